"""`stepsmith test [PATH...]`: run every fixture in parallel sandboxes and compare.

Exit 0 when every fixture passed (or was served from its recording), 1 on any failure or
error (including workflows with check problems, with or without fixtures), 2 on usage/internal
errors or when the sandbox is unavailable (never runs anything unsandboxed). A clean workflow
without any fixture exits 0 with "no fixtures found" (unlike pytest's 5: a new workflow is not
a broken one); `--step`/`-k` selecting nothing is a usage error (2).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import threading

from stepsmith.runner.app import cases as suite
from stepsmith.runner.cli.args import (
    add_format,
    add_live,
    add_selection,
    add_strict,
    add_switches,
    add_watch,
)
from stepsmith.runner.cli.test_watch import watch
from stepsmith.runner.errors import SandboxUnavailable
from stepsmith.runner.fixtures.shard import parse_shard
from stepsmith.runner.settings import active


def register(sub) -> None:
    p = sub.add_parser("test", help="run the recorded fixtures of workflows in sandboxes",
                       description="Run every fixture (fixtures/<step>/<case>.json) of the "
                       "workflows under PATH in fresh sandboxes and compare with the expected "
                       "results.")
    add_selection(p, "only fixtures of this step id", "only fixtures whose id "
                  "(workflow::step::case) matches the pytest expression, e.g. 'add or double', "
                  "'not boom'")
    p.add_argument("--lf", "--last-failed", dest="last_failed", action="store_true",
                   help="run only the fixtures that failed last time (all when none did)")
    p.add_argument("--ff", "--failed-first", dest="failed_first", action="store_true",
                   help="run the fixtures that failed last time first, then the rest")
    p.add_argument("--co", "--collect-only", dest="collect_only", action="store_true",
                   help="list the selected fixtures' node ids; run nothing")
    p.add_argument("-x", "--exitfirst", dest="maxfail", action="store_const", const=1,
                   help="stop after the first failure or error")
    p.add_argument("--maxfail", type=int, dest="maxfail", metavar="N",
                   help="stop after N failures or errors")
    p.add_argument("--sw", "--stepwise", dest="stepwise", action="store_true",
                   help="stop at the first failure; the next --sw run starts from that "
                   "fixture (as pytest's --sw; state in each workflow's .stepsmith/)")
    p.add_argument("--sw-skip", "--stepwise-skip", dest="stepwise_skip", action="store_true",
                   help="let the first failure pass and stop at the next (implies --sw)")
    p.add_argument("--sw-reset", "--stepwise-reset", dest="stepwise_reset",
                   action="store_true", help="forget where the last --sw run stopped and start "
                   "from the first fixture (implies --sw)")
    p.add_argument("--durations", type=int, default=None, metavar="N",
                   help="show the N slowest fixtures (0: all)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="list every fixture with its outcome and time")
    p.add_argument("--shard", metavar="K/N", default=None,
                   help="run only the K-th of N deterministic parts of the selected fixtures, "
                   "balanced by the last run's durations (a CI matrix runs 1/N .. N/N)")
    p.add_argument("--durations-path", metavar="FILE", default=None,
                   help="read and write the fixtures' durations in FILE (for a CI cache) "
                   "instead of each workflow's .stepsmith/durations.json")
    p.add_argument("--store-durations", action="store_true", default=None,
                   help="record the durations also when running a shard (a whole run always "
                   "records them; shards only read them, so every shard sees the same)")
    add_watch(p, "run", "on every save re-run the fixtures the change affects")
    add_switches(p, table="the per-workflow table with every workflow (by default, past 10 "
                 "workflows it lists only those that did not pass)")
    add_format(p)
    p.add_argument("--junit-xml", metavar="FILE", help="also write a JUnit XML report")
    add_live(p, "run public_egress steps against the network instead of serving their "
             "recordings (never retried)")
    add_switches(p, update="accept every changed output as the fixture's new expectation")
    p.add_argument("-s", dest="show_stdout", action="store_true",
                   help="show the captured stdout of passing fixtures too")
    add_strict(p, "fail the run instead of warning")
    add_switches(p, coverage="trace the step files: covered share, missing lines and branches "
                 "per step file (coverage.py's report)")
    p.add_argument("--coverage-json", metavar="FILE",
                   help="also write the coverage as JSON (implies --coverage)")
    p.add_argument("--lcov", metavar="FILE", help="also write the coverage as LCOV (implies "
                   "--coverage)")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="run each fixture N times in fresh sandboxes; fail when runs disagree")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    err = _StderrConsole()
    if args.durations is not None and args.durations < 0:
        err.print("stepsmith test: --durations must be 0 (all) or more", markup=False)
        return 2
    shard = None
    if args.shard is not None:
        shard = parse_shard(args.shard)
    req = suite.SuiteRequest(
        paths=args.paths or active().paths, steps=args.step, keywords=args.keyword,
        last_failed=args.last_failed, failed_first=args.failed_first, ci=_in_ci(),
        jobs=active().jobs if args.jobs is None else args.jobs,
        maxfail=args.maxfail, live=args.live, update=args.update, strict=args.strict,
        coverage=bool(args.coverage or args.coverage_json or args.lcov), repeat=args.repeat,
        shard=shard, durations_path=args.durations_path, store_durations=args.store_durations,
        stepwise=args.stepwise, stepwise_skip=args.stepwise_skip,
        stepwise_reset=args.stepwise_reset)
    if args.watch:
        return watch(args, req)
    if args.collect_only:
        return _collect_only(suite.select(req), args)
    for target in (f for f in (args.junit_xml, args.coverage_json, args.lcov) if f):
        problem = _unwritable(target)  # fail before running anything, not after
        if problem:
            err.print(f"stepsmith test: cannot write {target}: {problem}", markup=False)
            return 2
    suite.probe_sandbox_ahead()  # start-up: the probe runs while the workflows load
    progress, prefetching = _progress(err, args), []

    def done(r) -> None:
        if not prefetching:  # once the first fixture is done: start-up is over by then
            prefetching.append(True)
            _prefetch_report(args)
        if progress is not None:
            progress.done(r)

    try:
        if progress is None:
            outcome = suite.run_request(req, on_done=done)
        else:
            with progress:
                outcome = suite.run_request(req, on_selected=progress.selected, on_done=done)
    except SandboxUnavailable as exc:  # the CLI's own advice under the core's message
        raise SandboxUnavailable(str(exc), lines=(
            "Refusing to run step code outside the sandbox.",)) from None
    from stepsmith.runner.cli.test_output import print_outcome, write_reports

    written, notes = write_reports(err, args, outcome)  # the results are still printed
    junit_failed = not written
    if args.format == "json":
        sys.stdout.write(json.dumps(outcome.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        from stepsmith.runner.cli.console import SafeConsole

        out = SafeConsole(highlight=False, soft_wrap=True)
        print_outcome(out, err, outcome, args)
        for note in notes:  # the summary says what a report left out
            out.print(note, markup=False)
    if outcome.failed:
        return 1
    return 2 if junit_failed else 0


def _in_ci() -> bool:
    """`CI` set to anything but empty/0/false, as CI services set it."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _collect_only(selection, args) -> int:
    ids = [c.id for c in selection.selected]
    if args.format == "json":
        sys.stdout.write(json.dumps({"selected": ids}, indent=2) + "\n")
        return 0
    for i in ids:
        print(i)
    print(f"\n{len(ids)} fixture(s) selected")
    return 0


class _StderrConsole:
    """The stderr console, made on first use: a run that writes nothing there before its
    fixtures start does not import rich first (it loads while they run: REPORT_MODULES)."""

    _console = None

    @property
    def real(self):
        if self._console is None:
            from stepsmith.runner.cli.console import SafeConsole

            self._console = SafeConsole(stderr=True, highlight=False, soft_wrap=True)
        return self._console

    def __getattr__(self, name: str):
        return getattr(self.real, name)


#: What printing the outcome imports: loaded in the background while the sandboxes run (the
#: run mostly waits on them), not after the last fixture (issue 20, start-up and wind-down).
REPORT_MODULES = ("stepsmith.runner.cli.test_report", "stepsmith.runner.cli.test_output",
                  "stepsmith.runner.cli.test_loop", "stepsmith.runner.app.fixture_loop",
                  "stepsmith.runner.app.pending", "stepsmith.runner.fixtures.shard",
                  "stepsmith.runner.fixtures.stale", "stepsmith.runner.cli.console",
                  "rich.table")


def _prefetch_report(args) -> None:
    if args.format != "text":
        return

    def load() -> None:
        for name in REPORT_MODULES:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001  imported again, and reported, where used
                return

    threading.Thread(target=load, name="stepsmith-report-imports", daemon=True).start()


class _Progress:
    """The progress bar on a terminal, from the start: "collecting fixtures" while the
    workflows load (the first ones already run), then "testing fixtures"; the total grows as
    workflows are loaded; failures are counted as they come."""

    def __init__(self, err) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.bar = Progress(TextColumn("[bold]{task.fields[phase]} fixtures"), BarColumn(),
                            MofNCompleteColumn(), TextColumn("[red]{task.fields[failed]} failed"),
                            TimeElapsedColumn(), console=err.real, transient=True)
        self.task = self.bar.add_task("fixtures", total=None, failed=0, phase="collecting")
        self.failed = 0

    def selected(self, n: int, final: bool) -> None:
        self.bar.update(self.task, total=n, phase="testing" if final else "collecting")

    def done(self, r) -> None:
        self.failed += r.outcome in ("failed", "error")
        self.bar.update(self.task, advance=1, failed=self.failed)

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc)


def _progress(err, args) -> _Progress | None:
    """A progress bar on a terminal (text mode), else None."""
    if args.format != "text" or not sys.stderr.isatty():
        return None
    return _Progress(err)


def _unwritable(path: str) -> str | None:
    """Why `path` cannot be written as a report file, or None."""
    if os.path.isdir(path):
        return "it is a folder"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"no such folder {os.path.dirname(path) or '.'}"
    if not os.access(parent, os.W_OK):
        return f"folder {os.path.dirname(path) or '.'} is not writable"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "permission denied"
    return None

