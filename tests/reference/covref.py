"""The two sides of the coverage comparison (tests/reference/test_coverage_agreement.py).

Reference: coverage.py itself (`coverage.Coverage(branch=True)`), in-process on the host, over
the step files written as modules to a temp folder, calling each step function with its
fixture's inputs. This executes the *test corpus* on the host, which is fine: it is our own
code (the generated corpus and the bundled examples), never a user's.

stepsmith: the real `stepsmith test --coverage --coverage-json FILE` over a workflow folder,
every fixture in its own bubblewrap sandbox.

Both give coverage.py's JSON report shape, the text table's row per file and the LCOV figures
(lines run, LF/LH/BRF/BRH); `compare` lists every field that differs.
"""

from __future__ import annotations

import copy
import datetime as _dt
import importlib.util
import io
import json
import sys
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from zoneinfo import ZoneInfo

import coverage

FILE_FIELDS = ("executed_lines", "missing_lines", "excluded_lines", "executed_branches",
               "missing_branches")
ROW_FIELDS = ("Stmts", "Miss", "Branch", "BrPart", "Cover", "Missing")


@dataclass
class Call:
    """One fixture: `function` of step file `stem` called with `inputs` (keyword args)."""

    stem: str
    function: str
    inputs: dict
    evaluation_time: str | None = None  # pins date.today()/datetime.now() as the sandbox does
    timezone: str = "UTC"
    effects: bool = False  # pass an `effects` recorder
    connections: Mapping[str, str] | None = None


@dataclass
class Report:
    """Per step-file stem: coverage.py's JSON entry and the text table's row (by column)."""

    files: dict[str, dict] = field(default_factory=dict)
    rows: dict[str, dict[str, str]] = field(default_factory=dict)
    outputs: list = field(default_factory=list)  # (stem, function, output or exception)
    totals: dict = field(default_factory=dict)  # the JSON report's totals
    lcov: dict[str, dict] = field(default_factory=dict)  # stem -> LCOV figures (`_lcov`)


class _Effects:
    def __init__(self) -> None:
        self.intents: list = []

    def emit(self, name, payload):
        self.intents.append((name, payload))


def _pinned_clock(module, when: str, zone: str) -> None:
    """Rebind `date`/`datetime` in the module's globals to subclasses whose today()/now()
    answer the pinned instant in the workflow's zone, as the sandbox's clock does."""
    at = _dt.datetime.fromisoformat(when)
    local = at.astimezone(ZoneInfo(zone)).replace(tzinfo=None)

    class PinnedDateTime(_dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return at.astimezone(tz) if tz is not None else local

        @classmethod
        def today(cls):
            return local

    class PinnedDate(_dt.date):
        @classmethod
        def today(cls):
            return local.date()

    ns = vars(module)
    if ns.get("datetime") is _dt.datetime:
        ns["datetime"] = PinnedDateTime
    if ns.get("date") is _dt.date:
        ns["date"] = PinnedDate


def _parse_rows(text: str) -> dict[str, dict[str, str]]:
    """The table's file rows: Name Stmts Miss Branch BrPart Cover [Missing]."""
    rows = {}
    for line in text.splitlines():
        parts = line.split(None, 6)
        if len(parts) < 6 or not (parts[0].endswith(".py") or parts[0] == "TOTAL") or \
                not all(p.isdigit() for p in parts[1:5]) or not parts[5].endswith("%"):
            continue
        rows[Path(parts[0]).stem] = dict(zip(ROW_FIELDS, parts[1:6] + [
            parts[6] if len(parts) > 6 else ""], strict=True))
    return rows


def _lcov(text: str) -> dict[str, dict]:
    """Per file of an LCOV tracefile: which lines ran (DA hits > 0; stepsmith counts fixtures
    where coverage.py writes 1), LF, LH, BRF, BRH (coverage.py leaves BRF/BRH out at 0).
    BRDA records are not compared: their names and "-" mean different things by design."""
    out: dict[str, dict] = {}
    cur: dict = {}
    for line in text.splitlines():
        key, _, val = line.partition(":")
        if key == "SF":
            cur = out.setdefault(Path(val).stem, {"DA": {}, "BRF": 0, "BRH": 0})
        elif key == "DA":
            n, hits = val.split(",")[:2]
            cur["DA"][int(n)] = int(hits) > 0
        elif key in ("LF", "LH", "BRF", "BRH"):
            cur[key] = int(val)
    return out


def reference(sources: Mapping[str, str], calls: list[Call], tmp: Path) -> Report:
    """coverage.py's report of `sources` (stem -> text) after running `calls` on the host."""
    folder = tmp / f"ref-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True)
    for stem, text in sources.items():
        (folder / f"{stem}.py").write_text(text, encoding="utf-8")
    cov = coverage.Coverage(branch=True, data_file=None, source=[str(folder)],
                            config_file=False)
    out = Report()
    modules: dict[str, object] = {}
    cov.start()
    try:
        for call in calls:
            mod = modules.get(call.stem)
            if mod is None:
                name = f"covref_{folder.name.replace('-', '_')}_{call.stem}"
                spec = importlib.util.spec_from_file_location(name, folder / f"{call.stem}.py")
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
                modules[call.stem] = mod
            if call.evaluation_time:
                _pinned_clock(mod, call.evaluation_time, call.timezone)
            kwargs = copy.deepcopy(call.inputs)
            fn = getattr(mod, call.function)
            params = fn.__code__.co_varnames[:fn.__code__.co_argcount]
            # as the harness does: `effects`/`connections` only to a function that takes them
            if call.effects and "effects" in params:
                kwargs["effects"] = _Effects()
            if call.connections is not None and "connections" in params:
                kwargs["connections"] = dict(call.connections)
            try:
                result = fn(**kwargs)
            except Exception as exc:  # noqa: BLE001 - a fixture may expect an error
                result = exc
            out.outputs.append((call.stem, call.function, result))
    finally:
        cov.stop()
        for name in [m.__name__ for m in modules.values()]:
            sys.modules.pop(name, None)
    report_file = folder / "coverage.json"
    cov.json_report(outfile=str(report_file))
    doc = json.loads(report_file.read_text())
    out.files = {Path(k).stem: v for k, v in doc["files"].items()}
    out.totals = doc["totals"]
    cov.lcov_report(outfile=str(folder / "coverage.lcov"))
    out.lcov = _lcov((folder / "coverage.lcov").read_text())
    buf = io.StringIO()
    cov.report(show_missing=True, file=buf)
    out.rows = _parse_rows(buf.getvalue())
    return out


def stepsmith(run_cli: Callable, workflow: Path, tmp: Path) -> tuple[int, str, Report]:
    """(exit code, stdout, report) of `stepsmith test WORKFLOW --coverage --coverage-json`."""
    target = tmp / f"cov-{uuid.uuid4().hex[:8]}.json"
    lcov = target.with_suffix(".lcov")
    code, text = run_cli("test", workflow, "--coverage", "--coverage-json", target,
                         "--lcov", lcov)
    doc = json.loads(target.read_text())
    rep = Report({Path(k).stem: v for k, v in doc["files"].items()}, _parse_rows(text),
                 totals=doc["totals"], lcov=_lcov(lcov.read_text()))
    return code, text, rep


def compare(ref: Report, ours: Report) -> list[str]:
    """Every disagreement, as `stem: field: reference != ours` lines ([] when they agree)."""
    bad = []
    if set(ref.files) != set(ours.files):
        bad.append(f"files: {sorted(ref.files)} != {sorted(ours.files)}")
    for stem in sorted(set(ref.files) & set(ours.files)):
        r, o = ref.files[stem], ours.files[stem]
        for f in FILE_FIELDS:
            if r[f] != o.get(f):
                bad.append(f"{stem}: {f}: {r[f]} != {o.get(f)}")
        for k, v in r["summary"].items():
            if o["summary"].get(k) != v:
                bad.append(f"{stem}: summary.{k}: {v!r} != {o['summary'].get(k)!r}")
        if ref.rows.get(stem) != ours.rows.get(stem):
            bad.append(f"{stem}: text row: {ref.rows.get(stem)} != {ours.rows.get(stem)}")
    if set(ref.lcov) != set(ref.files):
        bad.append(f"lcov files: {sorted(ref.lcov)} != {sorted(ref.files)}")
    if ref.lcov != ours.lcov:
        bad += [f"{stem}: lcov: {ref.lcov.get(stem)} != {ours.lcov.get(stem)}"
                for stem in sorted(set(ref.lcov) | set(ours.lcov))
                if ref.lcov.get(stem) != ours.lcov.get(stem)]
    for k, v in ref.totals.items():
        if ours.totals.get(k) != v:
            bad.append(f"totals.{k}: {v!r} != {ours.totals.get(k)!r}")
    if ref.rows.get("TOTAL") != ours.rows.get("TOTAL"):
        bad.append(f"TOTAL row: {ref.rows.get('TOTAL')} != {ours.rows.get('TOTAL')}")
    return bad
