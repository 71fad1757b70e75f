"""Terminal rendering for the fixture loop: typed differences, pending changes, captured
stdout and the review summary. The only place these records become text for a terminal."""

from __future__ import annotations

from rich.markup import escape
from stepsmith.runner.display import display_path
from stepsmith.runner.fixtures.compare import is_big, unified_diff

STYLE = {"missing": "red", "unexpected": "green", "scale": "cyan", "offset": "cyan"}


def print_differences(console, differences, indent: str = "  ") -> None:
    for d in differences:
        style = STYLE.get(d.kind, "yellow")
        console.print(f"{indent}[{style}]{escape(d.path)}[/]: {escape(d.message)}")


def print_unified(console, expected, actual, label: str,
                  names: tuple[str, str] = ("expected", "actual")) -> None:
    from rich.syntax import Syntax

    text = unified_diff(expected, actual, label, names=names)
    if text:
        console.print(Syntax(text, "diff", theme="ansi_dark", background_color="default"))


def print_stdout(console, text: str | None, indent: str = "  ") -> None:
    """The step's print() output (captured and capped by the sandbox), as its own section."""
    if not text:
        return
    console.print(f"{indent}[dim]──── captured stdout ────[/]")
    for line in text.rstrip("\n").split("\n"):
        console.print(indent + escape(line))


def print_change(console, item) -> None:
    """One pending change: where, and what accepting it changes in the fixture."""

    if item.change is None:
        console.print(f"[bold red]UNUSABLE[/] {escape(item.id)}: {escape(item.problem.message)}")
        return
    c = item.change
    diffs = c.differences()
    if c.is_new:  # the document accepting creates, whole
        from rich.syntax import Syntax

        console.print(f"[bold]new fixture[/] {escape(item.id)}  "
                      f"[dim]{escape(display_path(c.fixture_path))}[/]")
        console.print(Syntax(c.new_text.rstrip("\n"), "json", theme="ansi_dark",
                             background_color="default"))
        return
    if any(d.path.startswith("expected") for d in diffs):
        what = "changed output"
    elif any(d.path.startswith("inputs") for d in diffs):
        what = "changed inputs"
    else:  # only evaluation_time / seed / recorded_from: the expectation stays
        what = "metadata only"
    console.print(f"[bold]{what}[/] {escape(item.id)}  [dim]{escape(display_path(c.fixture_path))}[/]")
    print_differences(console, diffs)
    _, old = c.current()
    old_exp = (old or {}).get("expected")
    new_exp = c.new.get("expected")
    if old is not None and is_big(old_exp, new_exp):
        print_unified(console, old_exp, new_exp, "expected", names=("accepted", "new"))


def print_decision(console, decision) -> None:
    marks = {"accepted": "[green]accepted[/]", "already": "[green]accepted[/]",
             "rejected": "[yellow]rejected[/]", "skipped": "[dim]skipped[/]",
             "refused": "[bold red]REFUSED[/]"}
    extra = f": {escape(decision.message)}" if decision.message else ""
    console.print(f"{marks[decision.outcome]} {escape(decision.item.id)}{extra}")
