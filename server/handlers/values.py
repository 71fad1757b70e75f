"""stepsmith.values.pickFixture [stepFileUri, fixture?]: which fixture's values the inlay
hints and hovers show (default: the first failing, else the first); without a fixture it
answers the choices. Then asks the client to refresh its inlay hints."""

from __future__ import annotations

from stepsmith.server.handlers.common import command_args, invalid_params, safe
from stepsmith.server.workspace import uri_to_path


def register(ls) -> None:
    @ls.command("stepsmith.values.pickFixture")
    @safe
    async def pick_fixture(ls, *args):
        a = command_args(args)
        path = uri_to_path(str(a[0])) if a else None
        if not path:
            raise invalid_params("stepsmith.values.pickFixture needs [stepFileUri, fixture?]")
        live = ls.runner.live
        if len(a) > 1 and a[1] is not None:
            live.choose(path, str(a[1]))
            ls.publisher.inlays_changed()
        traced = live.traced(path)
        return {"fixture": traced.fixture if traced else None,
                "fixtures": [{"name": n, "passed": ok} for n, ok in live.fixtures(path)]}
