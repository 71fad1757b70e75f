"""`stepsmith test`'s report of the fixture loop (runner/app/cases.LoopReport): pending changes
written, --update decisions, stale wired fixtures (SF001; errors only with --strict)."""

from __future__ import annotations

from stepsmith.runner.app.fixture_loop import summary, waiting_sentence
from stepsmith.runner.display import display_path


def print_loop(report, out, err) -> None:
    from rich.markup import escape
    from stepsmith.runner.cli.loopview import print_decision

    if report.waiting:  # proposals (and changes) a person has to decide
        where = sorted({display_path(i.workflow_dir) for i in report.waiting})
        out.print(escape(waiting_sentence(report.waiting, where)))
    for line in report.problems:
        err.print(f"[bold red]warning[/] {escape(line)}")
    level = "[bold red]error[/]" if report.strict else "[yellow]warning[/]"
    for s in report.stale:
        out.print(f"{level} {escape(s.message)}")
    if report.update:
        for d in report.decisions:
            print_decision(out if d.outcome != "refused" else err, d)
        out.print(f"--update: {summary(report.decisions)}")
    elif report.ci_not_written:
        out.print(f"CI is set: {report.ci_not_written} pending change(s) not written (a "
                  "changed output is reviewed by a person: run `stepsmith test` locally, then "
                  "`stepsmith review`)")
    elif report.written:
        where = sorted({display_path(c.workflow_dir) for c in report.written})
        out.print(f"{len(report.written)} pending change(s) written; review them with "
                  f"`stepsmith review {' '.join(where)}` (or `--accept`)")
