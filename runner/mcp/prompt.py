"""The "draft a workflow step" prompt: the task, then the rules an assistant most often breaks
(taken from the catalogue, so the wording is the rules' own), then how to check its draft."""

from __future__ import annotations

from stepsmith.runner import rules
from stepsmith.runner.validator import policy

# the rules drafts break most: imports, classes and decorators from habit, module-level code,
# unseeded randomness, the clock through an instance, wiring left to the code, undeclared
# effects and connections, credentials passed as inputs
OFTEN_BROKEN = ("SS101", "SS102", "SS201", "SS301", "SS401", "SS402", "SS404", "SS405", "SS501",
                "SS502", "SS601", "SM107", "SM204", "SM205", "SM207", "SM208", "SM301")


def draft_step_prompt(task: str) -> str:
    lines = [
        f"Draft one workflow step for this task: {task}",
        "",
        "A step is a top-level Python function in a file under steps/, declared in "
        "workflow.yaml with an `explanation` (plain language, what the owner reads), "
        "`code: steps/<file>.py:<function>` and `inputs` (parameter -> `sources.<name>`, "
        "`steps.<id>.output` or a literal). Wiring lives in the manifest, never in code.",
        f"Allowed imports: {', '.join(sorted(policy.ALLOWED_MODULES))} (plain or `from`; no "
        "submodules). Money travels as strings: use Decimal(x) and return str(...).",
        "",
        "The rules drafts break most often (each is refused by `check`):",
    ]
    for code in OFTEN_BROKEN:
        r = rules.get(code)
        lines.append(f"- {r.code} {r.name}: {r.summary}")
        if r.fix:  # whole: a first line alone can drop what makes it accepted (a seed=)
            lines.append("  accepted instead:")
            lines += ["    " + x if x.strip() else "" for x in r.fix.rstrip("\n").split("\n")]
    lines += [
        "",
        "Then call the `check` tool on the workflow and apply the fixes it returns until it is "
        "clean, and `test` to run the recorded fixtures. To add a fixture, use "
        "`propose_fixture`: a person reviews it. Never ask for live runs or credentials.",
    ]
    return "\n".join(lines)
