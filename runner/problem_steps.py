"""Which steps a finding belongs to: a step file's finding names the function (Problem.step),
while what an author reads is the ids of the steps running it. Shared by `stepsmith check`
and the fixture loader's refusals (never CLI wording inside runner/fixtures)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stepsmith.runner.problems import Problem


def step_ids_by_function(step_files) -> dict[tuple[Path, str], list[str]]:
    """{(step file, function): [ids of the steps running it]} from a check's `step_files`."""
    out: dict[tuple[Path, str], list[str]] = {}
    for path, uses in step_files.items():
        for u in uses:
            ids = out.setdefault((Path(path).resolve(), u.function), [])
            if u.step_id not in ids:
                ids.append(u.step_id)
    return out


def steps_for(pr, path: Path, steps_of: dict) -> list[str] | None:
    """The step ids of a finding in a step file (None: not a step file's finding, whose
    `step` already is the step id)."""
    if not pr.step or not pr.code.startswith("SS"):
        return None
    return steps_of.get((Path(path).resolve(), pr.step), [])


def message_with_step(pr: Problem, steps: list[str] | None = None) -> str:
    """`message [step]`, naming the step once: a message that already says "(step 'x')"
    (the schema's wording, kept for editors) drops it for the trailing tag. The tag is always
    step ids: `steps` for a step-code finding (Problem.step is the function there;
    runner/problem_steps.steps_for)."""
    if steps is not None:
        return pr.message + (f" [{', '.join(steps)}]" if steps else "")
    if not pr.step:
        return pr.message
    named = " (step '" + pr.step + "')"
    return pr.message.replace(named, "") + f" [{pr.step}]"
