"""Terminal rendering shared by the commands: a step's typed result, a run's step outcome."""

from __future__ import annotations

import json

from stepsmith.runner.fixtures.compare import describe_result, is_big, unified_diff


def print_result(console, res: dict, step_id: str) -> None:
    from rich.json import JSON
    from rich.markup import escape

    status = res.get("status")
    style = "green" if status == "ok" else "red"
    ms = res.get("duration_ms")
    console.print(f"step [bold]{escape(step_id)}[/]: [{style}]{status}[/]"
                  + (f" [dim]({ms:.0f} ms)[/]" if isinstance(ms, (int, float)) else ""))
    if res.get("evaluation_time"):  # the instant used (a wall time read in the workflow's zone)
        console.print(f"[dim]evaluation time {escape(res['evaluation_time'])}[/]")
    if status == "ok":
        console.print("[bold]output[/]")
        console.print(JSON(json.dumps(res.get("output"), ensure_ascii=False)))
        effects = res.get("effects") or []
        if effects:
            console.print(f"[bold]effect intents[/] ({len(effects)}; recorded, never performed)")
            console.print(JSON(json.dumps(effects, ensure_ascii=False)))
    else:
        for line in describe_result(res):
            console.print("  " + escape(line))
    from stepsmith.runner.cli.loopview import print_stdout

    print_stdout(console, res.get("stdout"), indent="")


class StepLog:
    """A run's step outcomes (run-workflow, replay), printed as they come in text mode and
    kept, so that a run stopped by a refusal still ends with a ✗ line and its summary."""

    def __init__(self, console, text: bool):
        self.console, self.text, self.seen = console, text, []

    def __call__(self, o) -> None:
        self.seen.append(o)
        if self.text:
            print_outcome(self.console, o)

    def stopped(self, exc: Exception, summary: str) -> None:
        """`summary`: "run day1: stopped — 2 accepted" (the refusal is counted here; its
        whole text goes to stderr)."""
        from rich.markup import escape

        head = str(exc).split(". ", 1)[0]
        head = head if len(head) < 200 else head[:197] + "..."
        self.console.print(f"[red]✗ stopped[/]: {escape(head)}")
        self.console.print(f"{escape(summary)}, 1 refused (the reason is on stderr)")


MARKS = {"accepted": "[green]✓ accepted[/]", "reused": "[cyan]↺ reused[/]  ",
         "failed": "[red]✗ failed[/]  ", "same": "[green]✓ same[/]    ",
         "differs": "[red]✗ differs[/] ", "changed": "[red]✗ changed[/] ",
         "recorded": "[yellow]⏺ recorded[/]"}


def print_outcome(console, o) -> None:
    from rich.markup import escape

    extra = ""
    if o.served_from == "recording" and o.outcome in ("accepted", "reused"):
        extra = " [yellow](served from recording)[/]"
    sha = f" [dim]request {o.request_sha256[:12]}[/]" if o.request_sha256 else ""
    detail = o.detail or ""
    if o.outcome == "reused" and "\n" not in detail:
        extra += f" [dim]({escape(detail)})[/]"
        detail = ""
    console.print(f"{MARKS.get(o.outcome, o.outcome)} {escape(o.step_id)}{extra}{sha}")
    for line in detail.splitlines():
        if line:
            console.print("    " + escape(line))
    if o.code_diff:
        console.print("    what changed in the code since it was accepted:")
        _print_diff(console, o.code_diff)
    if o.outcome == "changed" and o.reexecuted:
        _print_edit_effect(console, o)
        return
    from stepsmith.runner.cli.loopview import print_differences

    print_differences(console, o.differences, indent="    ")
    if o.outcome == "differs":
        _print_big(console, o)


def _print_edit_effect(console, o) -> None:
    """A changed step re-executed with today's code on the stored request: what the edit does
    to the accepted result, in the fixtures' typed rendering."""
    from rich.markup import escape
    from stepsmith.runner.cli.loopview import print_differences

    req = o.request or {}
    pinned = ", ".join(f"{k} {v}" for k, v in (("time", req.get("evaluation_time")),
                                                ("seed", req.get("seed"))) if v is not None)
    res = o.result if isinstance(o.result, dict) else {}
    if res.get("status") != "ok":
        what = "the step fails"
    elif o.differences:
        what = "the output changes"
    else:
        what = "the output is the same"
    console.print(f"    [bold]re-executed with the current code[/] (same inputs"
                  f"{', ' + escape(pinned) if pinned else ''}): {what}")
    print_differences(console, o.differences, indent="    ")
    if res.get("status") != "ok":
        for line in describe_result(res):
            console.print("      " + escape(line))
    else:
        _print_big(console, o)


def _print_big(console, o) -> None:
    """Beside the typed differences, a unified diff when the values are big."""

    if o.accepted is None or not isinstance(o.result, dict):
        return
    for label in ("output", "effects"):
        exp, act = o.accepted.get(label), o.result.get(label)
        if exp != act and is_big(exp, act):
            _print_diff(console, unified_diff(exp, act, label, names=("accepted", "fresh")))


def _print_diff(console, text: str, indent: str = "    ") -> None:
    """A unified diff inside a step's block, indented as the block's other lines."""
    from rich.markup import escape

    for line in text.rstrip("\n").split("\n"):
        style = ("bold" if line.startswith(("---", "+++")) else "green" if line.startswith("+")
                 else "red" if line.startswith("-") else "cyan" if line.startswith("@@")
                 else "")
        shown = escape(line)
        console.print(indent + (f"[{style}]{shown}[/]" if style else shown))
