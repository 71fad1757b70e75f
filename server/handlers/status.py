"""stepsmith/status: is the sandbox available, and the server's version."""

from __future__ import annotations

from stepsmith.server.handlers.common import safe


def register(ls) -> None:
    @ls.feature("stepsmith/status")
    @safe
    async def status(ls, params):
        from stepsmith.runner import __version__

        ok, reason = await ls.off_loop(ls.runner.sandbox_status)
        return {"sandboxAvailable": ok, "reason": "" if ok else reason, "version": __version__}
