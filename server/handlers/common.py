"""What every handler shares: `safe` (errors answered as JSON-RPC errors, logged), argument
helpers, the trust gate."""

from __future__ import annotations

import asyncio
import functools

from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from stepsmith.runner.errors import StepsmithError, UsageError

REQUEST_FAILED = -32803  # LSP: the request was valid and failed (not a bug of the server)

def safe(fn):
    """Wrap a handler: never a silent empty answer, which a client would take for "not ready
    yet". The one mapping of stepsmith's typed errors (runner/errors.py) here: a UsageError is
    InvalidParams, any other a RequestFailed, with its message. Any other exception is a bug:
    logged (window/logMessage, type Error) and answered as an InternalError with its message.
    JsonRpcExceptions (InvalidParams, ...) pass unchanged."""

    def fail(ls, exc: Exception):
        if isinstance(exc, JsonRpcException):
            return exc
        if isinstance(exc, StepsmithError):
            text = " ".join([f"{fn.__name__}: {exc}", *exc.lines])
            if isinstance(exc, UsageError):
                return JsonRpcInvalidParams(text)
            return JsonRpcException(text, code=REQUEST_FAILED)
        ls.log_exception(f"{fn.__name__} failed", exc)
        return JsonRpcInternalError(f"{fn.__name__} failed: {type(exc).__name__}: {exc}")

    if asyncio.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def wrapper(ls, *args, **kwargs):
            try:
                return await fn(ls, *args, **kwargs)
            except Exception as exc:
                raise fail(ls, exc) from exc
    else:
        @functools.wraps(fn)
        def wrapper(ls, *args, **kwargs):
            try:
                return fn(ls, *args, **kwargs)
            except Exception as exc:
                raise fail(ls, exc) from exc
    return wrapper


async def at_cursor(ls, params, wait: str = "never"):
    """(cursor, snapshot) for a positioned request on an open document with a path, else None.
    `wait`: "always" / "py" (a step file: which manifests use it is known once they are
    checked) waits for the workspace to settle before the snapshot is taken."""
    at = ls.session.cursor(params.text_document.uri, params.position)
    if at is None or not at.path:
        return None
    if wait == "always" or (wait == "py" and at.path.endswith(".py")):
        await ls.wait_workspace_ready()
    return at, ls.session.snapshot()


async def locations_at_cursor(ls, params, service, *args):
    """A navigation request (definition, references): `service(snapshot, path, line, column,
    *args)` off the loop for the cursor of `params`, its locations converted (None: none)."""
    from stepsmith.server.convert import location

    found = await at_cursor(ls, params, wait="py")
    if found is None:
        return None
    at, ws = found
    locs = await ls.off_loop(service, ws, at.path, at.line, at.column, *args)
    return [location(ls.session, ws, loc) for loc in locs] or None


async def workspace_table(ls, params, table, to_json):
    """A workspace table request (`stepsmith/reach`, `stepsmith/fixtures`): once settled, the
    table of the snapshot (for the `uri` given, else every workflow) converted off the loop."""
    from stepsmith.server.workspace import uri_to_path

    await ls.wait_workspace_ready()
    uri = param(params, "uri")
    ws = ls.session.snapshot()
    return {"workflows": await ls.off_loop(
        lambda: to_json(ws, table(ws, uri_to_path(uri) if uri else None)))}


def command_args(args) -> list:
    """pygls passes command arguments positionally; some clients wrap them in one list."""
    if len(args) == 1 and isinstance(args[0], list):
        return args[0]
    return list(args)


def param(params, name: str) -> str | None:
    """A string parameter of a custom request (anything else counts as absent)."""
    if params is None:
        return None
    value = params.get(name) if isinstance(params, dict) else getattr(params, name, None)
    return value if isinstance(value, str) else None


def invalid_params(message: str) -> JsonRpcException:
    return JsonRpcException(message=message, code=-32602)


def require_trust(ls) -> None:
    """Untrusted workspace: nothing executes, whatever the client sends."""
    if not ls.session.settings.trusted:
        raise JsonRpcException(
            message="this workspace is not trusted: stepsmith shows diagnostics only and runs nothing",
            code=-32600)
