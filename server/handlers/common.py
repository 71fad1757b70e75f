"""What every handler shares: `safe` (errors answered as JSON-RPC errors, logged), argument
helpers, the trust gate."""

from __future__ import annotations

import asyncio
import functools

from pygls.exceptions import JsonRpcException, JsonRpcInternalError


def safe(fn):
    """Wrap a handler: an exception is logged (window/logMessage, type Error) and answered as
    a JSON-RPC InternalError with its message: never a silent empty answer, which a client
    would take for "not ready yet". JsonRpcExceptions (InvalidParams, ...) pass unchanged."""

    def fail(ls, exc: Exception):
        if isinstance(exc, JsonRpcException):
            return exc
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
