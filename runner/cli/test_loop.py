"""What `stepsmith test` does after running the fixtures: write the pending changes of failed
fixtures (drop those of passing ones), accept them with `--update`, and report stale wired
fixtures (SF001; failures only with `--strict`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class LoopReport:
    written: list = field(default_factory=list)  # PendingChange
    problems: list[str] = field(default_factory=list)
    decisions: list = field(default_factory=list)  # fixture_loop.Decision (--update)
    stale: list = field(default_factory=list)  # StaleFixture
    strict: bool = False
    update: bool = False

    def failed(self, counts: dict) -> bool:
        updated = sum(d.outcome in ("accepted", "already") for d in self.decisions)
        if counts["error"] or counts["failed"] - updated > 0:
            return True
        return bool(self.strict and self.stale)

    def to_json(self) -> dict:
        return {"pending": [str(c.path) for c in self.written],
                "pending_problems": self.problems,
                "updated": [d.to_json() for d in self.decisions],
                "stale": [s.to_json() for s in self.stale]}

    def print(self, out, err) -> None:
        from rich.markup import escape
        from stepsmith.runner.cli.loopview import print_decision
        from stepsmith.runner.fixtures.invoke import display_path

        for line in self.problems:
            err.print(f"[bold red]warning[/] {escape(line)}")
        level = "[bold red]error[/]" if self.strict else "[yellow]warning[/]"
        for s in self.stale:
            out.print(f"{level} {escape(s.message)}")
        if self.update:
            for d in self.decisions:
                print_decision(out if d.outcome != "refused" else err, d)
            from stepsmith.runner.app.fixture_loop import summary

            out.print(f"--update: {summary(self.decisions)}")
        elif self.written:
            where = sorted({display_path(c.workflow_dir) for c in self.written})
            out.print(f"{len(self.written)} pending change(s) written; review them with "
                      f"`stepsmith review {' '.join(where)}` (or `--accept`)")


def after_run(results, workflows, *, update: bool = False, strict: bool = False) -> LoopReport:
    from stepsmith.runner.fixtures import pending
    from stepsmith.runner.fixtures.stale import stale_fixtures

    report = LoopReport(strict=strict, update=update)
    report.written, report.problems = pending.sync(results)
    if update:
        from stepsmith.runner.app import fixture_loop as loop

        by_dir = {}
        for c in report.written:
            by_dir.setdefault(c.workflow_dir, []).append(c)
        shown = {w.dir: w.shown for w in workflows}
        for wdir, changes in by_dir.items():
            for c in changes:
                item = loop.Item(f"{shown.get(wdir, wdir.name)}::{c.step_id}::{c.case}",
                                 shown.get(wdir, wdir.name), wdir, change=c)
                report.decisions.append(loop.accept(item))
    report.stale = stale_fixtures([r.case for r in results])
    return report
