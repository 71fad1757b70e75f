"""Terminal rendering shared by the commands: a step's typed result."""

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
