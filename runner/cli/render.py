"""Terminal rendering shared by the commands: a step's typed result, a run's step outcome."""

from __future__ import annotations


def print_result(console, res: dict, step_id: str) -> None:
    from rich.json import JSON
    from rich.markup import escape
    from stepsmith.runner.fixtures.suite import describe_result

    status = res.get("status")
    style = "green" if status == "ok" else "red"
    ms = res.get("duration_ms")
    console.print(f"step [bold]{escape(step_id)}[/]: [{style}]{status}[/]"
                  + (f" [dim]({ms:.0f} ms)[/]" if isinstance(ms, (int, float)) else ""))
    if status == "ok":
        import json

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
    for d in o.differences:
        console.print(f"    [yellow]{escape(d.path)}[/]: {escape(d.message)}")
    if o.outcome == "differs" and o.accepted is not None and isinstance(o.result, dict):
        from rich.syntax import Syntax
        from stepsmith.runner.fixtures.compare import is_big, unified_diff

        for label in ("output", "effects"):
            exp, act = o.accepted.get(label), o.result.get(label)
            if exp != act and is_big(exp, act):
                console.print(Syntax(unified_diff(exp, act, label).replace(
                    "expected", "accepted").replace("actual", "fresh"), "diff",
                    theme="ansi_dark", background_color="default"))
