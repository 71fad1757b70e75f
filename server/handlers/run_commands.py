"""workspace/executeCommand: stepsmith.runStepFixtures, .runFixture, .recordFixture (fixture_runs.py)."""

from __future__ import annotations

from stepsmith.server.handlers.common import (
    command_args,
    invalid_params,
    require_trust,
    safe,
)


def register(ls) -> None:
    @ls.command("stepsmith.runStepFixtures")
    @safe
    async def run_step_fixtures(ls, *args):
        require_trust(ls)
        a = command_args(args)
        if len(a) < 2:
            raise invalid_params("stepsmith.runStepFixtures needs [manifestUri, stepId]")
        return await ls.cancellable(ls.runner.run_step_command(str(a[0]), str(a[1]),
                                                               _repeat(a[2:3])))

    @ls.command("stepsmith.runFixture")
    @safe
    async def run_fixture(ls, *args):
        require_trust(ls)
        a = command_args(args)
        if len(a) < 1:
            raise invalid_params("stepsmith.runFixture needs [fixtureUri]")
        return await ls.cancellable(ls.runner.run_fixture_command(str(a[0]), _repeat(a[1:2])))

    @ls.command("stepsmith.recordFixture")
    @safe
    async def record_fixture(ls, *args):
        require_trust(ls)
        a = command_args(args)
        if len(a) < 4:
            raise invalid_params(
                "stepsmith.recordFixture needs [manifestUri, stepId, name, inputsJson, evaluationTime]")
        at = a[4] if len(a) > 4 else None
        return await ls.cancellable(ls.runner.record_command(str(a[0]), str(a[1]), str(a[2]), a[3], at))


def _repeat(opts: list) -> int:
    """An optional trailing `{"repeat": N}` (the determinism check, 1..10 runs)."""
    n = opts[0].get("repeat", 1) if opts and isinstance(opts[0], dict) else 1
    return min(10, n) if isinstance(n, int) and not isinstance(n, bool) and n >= 1 else 1
