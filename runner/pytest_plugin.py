"""pytest plugin: ``pytest --stepsmith PATH`` collects every fixture of the workflows under
PATH as a test item, so CI gets pytest's reporting, ``-k``, JUnit XML and xdist for free.

Node ids: ``<workflow folder relative to rootdir>::<step>::<case>``, for example
``examples/invoice-matching::match::acme-2026-12-01``. A fixture of a ``public_egress`` step
is reported as "recorded" (served from its recording) unless ``--stepsmith-live``. Failures show the
structural diff. Without ``--stepsmith`` the plugin does nothing (it is loaded in every pytest
run through the ``pytest11`` entry point): its hooks return at once and nothing heavy is
imported until a workflow is actually collected.

When ``--stepsmith`` is given and no test paths are on the command line, only the fixtures
are collected (the ``testpaths`` ini setting is not used). ``--stepsmith`` alone (no PATH)
collects the configured paths (``[tool.stepsmith] paths``), else ``.``.

The items take part in pytest's own selection: the tree is workflow (a file node) -> step (a
collector) -> case (an item), so an item's structured id is ``(folder, (step, case))`` and the
ids in pytest's cache (``--lf``, ``--ff``, ``--sw``) match it. Node ids and paths inside a
workflow folder given as plain test arguments narrow the run (pytest cannot resolve them
itself: a workflow's fixtures are not Python files).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def pytest_addoption(parser) -> None:
    group = parser.getgroup("stepsmith", "stepsmith workflow fixtures")
    group.addoption("--stepsmith", action="append", default=[], metavar="PATH", nargs="?",
                    const="",
                    help="collect the fixtures of the workflows under PATH as tests "
                    "(repeatable; without PATH: the configured paths, else '.')")
    group.addoption("--stepsmith-live", action="store_true", default=False,
                    help="run public_egress steps against the network instead of serving "
                    "their recordings")


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "stepsmith: a stepsmith workflow fixture")
    paths = config.getoption("stepsmith", default=None)
    if not paths:
        return
    from stepsmith.runner.app.selection import parse_target
    from stepsmith.runner.errors import UsageError

    if "" in paths:  # the bare flag: the configured paths, else "."
        paths = [p for p in paths if p] + _configured_paths()
    source = getattr(config, "args_source", None)
    explicit = source is not None and source.name == "ARGS"
    args = list(config.args) if explicit else []
    # a node id (PATH::step::case), a fixture file or a step file given to --stepsmith, or a
    # node id or path inside a --stepsmith workflow given as a test path: stepsmith's own
    # selection, since pytest cannot resolve `::` parts or fixture files inside a workflow
    try:
        targets = [parse_target(p) for p in paths]
        roots = [m.resolve().parent for t in targets for m in t.manifests]
        picked = []
        for a in list(args):
            part = a.partition("::")[0]
            if ("::" in a or os.path.exists(part)) and _within(Path(part).resolve(), roots):
                picked.append(parse_target(a))
                args.remove(a)
        if picked:  # `pytest --stepsmith wf wf::add::simple` runs just that, as pytest would
            targets = [t for t in targets if t.narrowed] + picked
    except UsageError as exc:
        raise pytest.UsageError(f"--stepsmith: {exc}") from None
    config._stepsmith_manifests = {m.resolve() for t in targets for m in t.manifests}
    config._stepsmith_targets = targets
    for t in targets:
        # a folder holding whole workflows is collected as given (pytest walks it); a path
        # inside a workflow through the workflow's manifest, found upward
        for a in [t.path] if not t.narrowed else map(str, t.manifests):
            if a not in args:
                args.append(a)
    config.args = args


def _configured_paths() -> list[str]:
    from stepsmith.runner.settings import SettingsError, load_settings

    try:
        return list(load_settings(".").paths)
    except SettingsError as exc:
        raise pytest.UsageError(f"--stepsmith: {exc}") from None


def _within(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def pytest_collection_modifyitems(config, items) -> None:
    targets = getattr(config, "_stepsmith_targets", None)
    if not targets or not any(t.narrowed for t in targets):
        return
    keep, drop = [], []
    for item in items:
        case = getattr(item, "case", None)
        if case is None or any(t.selects(case) for t in targets):
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_report_teststatus(report, config):
    """A fixture served from its recording counts as "recorded", as `stepsmith test` says
    (JUnit XML still marks it skipped, as `stepsmith test --junit-xml` does)."""
    if report.when == "call" and report.skipped and "stepsmith" in report.keywords \
            and _RECORDED_NOTE in str(report.longrepr):
        return "recorded", "R", "RECORDED"
    return None


_RECORDED_NOTE = "served from recording"


def _is_manifest(path: Path) -> bool:
    from stepsmith.runner.model.grammar import is_manifest_name  # cheap: no pydantic

    return is_manifest_name(path.name)


def pytest_collect_file(file_path: Path, parent):
    manifests = getattr(parent.config, "_stepsmith_manifests", None)
    if not manifests or not _is_manifest(file_path) or ".stepsmith" in file_path.parts:
        return None
    resolved = file_path.resolve()
    if resolved not in manifests:  # only what the one discovery found for --stepsmith
        return None
    rel = os.path.relpath(resolved.parent, parent.config.rootpath)
    rel = rel.replace(os.sep, "/")
    if rel == "." or rel.startswith(".."):  # run from inside the workflow folder
        rel = resolved.parent.name
    from stepsmith.runner.model.grammar import MANIFEST_NAME

    if file_path.name != MANIFEST_NAME:
        rel = rel + "/" + file_path.name
    return StepsmithWorkflow.from_parent(parent, path=file_path, nodeid=rel)


class StepsmithFailure(Exception):
    def __init__(self, result):
        super().__init__(result.failure_text())
        self.result = result


class StepsmithWorkflow(pytest.File):
    def collect(self):
        from stepsmith.runner.app.cases import workflow_items

        # one collector per step, in the order the cases come (so `folder::step::case` is
        # the structured id (step, case) that pytest's cache and selection compare)
        groups: dict[str, list] = {}
        for case in workflow_items(self.path, base=self.config.rootpath, shown=self.nodeid):
            groups.setdefault(case.step_id or "\0" + case.case, []).append(case)
        for key, cases in groups.items():
            if key.startswith("\0"):  # the workflow's own problems: an item of the file
                yield StepsmithItem.from_parent(self, name=cases[0].case, case=cases[0])
            else:
                yield StepsmithStep.from_parent(self, name=key, cases=cases)


class StepsmithStep(pytest.Collector):
    """One step's fixtures."""

    def __init__(self, *, cases, **kw):
        super().__init__(**kw)
        self.cases = cases

    def collect(self):
        for case in self.cases:
            yield StepsmithItem.from_parent(self, name=case.case, case=case)


class StepsmithItem(pytest.Item):
    def __init__(self, *, case, **kw):
        super().__init__(**kw)
        self.case = case
        # pytest-lsp's runtest_call wrapper does not yield for items without `funcargs`
        self.funcargs = {}
        if case.step_id:
            self.add_marker(pytest.mark.stepsmith)

    def runtest(self) -> None:
        from stepsmith.runner.app.cases import run_one
        from stepsmith.runner.errors import SandboxUnavailable

        try:  # the use case `stepsmith test` runs each fixture with
            result = run_one(self.case, live=self.config.getoption("stepsmith_live"))
        except SandboxUnavailable as exc:
            pytest.fail(f"{exc} (never run unsandboxed)", pytrace=False)
        captured = (result.result or {}).get("stdout")
        if captured:  # the step's print() output, in pytest's "Captured stdout call" section
            from stepsmith.runner.display import display_text

            self.add_report_section("call", "stdout", display_text(captured))
        if result.outcome == "recorded":  # reported at the fixture's path, not at this line
            from stepsmith.runner.display import display_text

            raise pytest.skip.Exception(
                display_text(result.messages[0] if result.messages else "served from recording"),
                _use_item_location=True)
        if result.outcome in ("failed", "error"):
            raise StepsmithFailure(result)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, StepsmithFailure):
            from stepsmith.runner.fixtures.compare import unified_diff

            r = excinfo.value.result
            lines = [str(d) for d in r.differences] + list(r.messages)
            for label, exp, act in r.big:
                lines.append(unified_diff(exp, act, label).rstrip("\n"))
            head = "fixture does not match" if r.outcome == "failed" else "fixture could not run"
            lines.append(f"({head}: {self.case.shown_path})")
            from stepsmith.runner.display import display_text

            # pytest writes a report's text raw, to the terminal and to its JUnit XML
            return display_text("\n".join(lines))
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        path = self.case.path or self.case.workflow.manifest_path
        return path, 0, self.case.id
