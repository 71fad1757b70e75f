"""Facade modules for the step dialect. Runs INSIDE the sandbox (executed by inside.py on the
first import a step makes, with ``REQ`` and ``VIOLATIONS`` in its globals).

A facade is a fresh module object holding only the real module's public API (its ``__all__``,
or its public non-module names), never a submodule or another module: ``json.codecs``,
``datetime.sys``, ``statistics.random``, ``re.enum`` and ``re.functools`` are simply absent.
Its ``__name__`` is ``stepsmith.facade:<name>``, so ``from json import decoder`` cannot fall
back to ``sys.modules["json.decoder"]`` (the import system looks up "<__name__>.decoder").

What a facade does NOT do: hide the real module from someone who can read dunder attributes
(``json.dumps.__globals__``) or walk ``object.__subclasses__()``. CPython has no
in-process boundary; that is the validator's job (it refuses every dunder/frame route), and
below it the OS sandbox (bwrap + seccomp + rlimits + libfaketime) is the boundary that holds
even with full Python. The clock is pinned at both levels: here in the facade, and by
libfaketime for every path that reaches the real ``datetime`` class (``mro()[1].now()``).
"""

import sys

_ALLOWED = ("json", "math", "decimal", "datetime", "statistics", "re")
_URLLIB = ("urllib.request", "urllib.parse", "urllib.error")
_FACADES = {}
_ModuleType = type(sys)


class PinnedClockError(RuntimeError):
    pass


class UnseededSamplingError(RuntimeError):
    pass


def _public(real):
    names = getattr(real, "__all__", None)
    if names is None:
        names = [n for n in real.__dict__ if not n.startswith("_")]
    out = {}
    for n in names:
        if n.startswith("_"):
            continue
        try:
            v = getattr(real, n)
        except AttributeError:
            continue
        if type(v) is _ModuleType:
            continue
        out[n] = v
    return out


def _facade(name, attrs, doc=None):
    m = _ModuleType("stepsmith.facade:" + name, doc or f"Sandbox facade of {name} (public API only).")
    m.__dict__.update(attrs)
    m.__spec__ = None
    m.__loader__ = None
    return m


# --------------------------------------------------------------------------- datetime


def _datetime_facade():
    import datetime as real

    text = REQ["evaluation_time"]  # noqa: F821
    pinned = None if text is None else real.datetime.fromisoformat(text)
    if pinned is not None and pinned.tzinfo is None:
        pinned = pinned.replace(tzinfo=real.UTC)

    # naive reads are the evaluation time in the workflow's timezone (a fixed offset the
    # parent resolved for this instant); aware reads convert the same instant as asked
    local = real.timezone(real.timedelta(seconds=REQ.get("utc_offset_seconds") or 0))  # noqa: F821

    def _now_local():
        return _now_utc().astimezone(local)

    def _now_utc():
        if pinned is None:
            raise PinnedClockError(
                "this run has no pinned evaluation time, so the clock cannot be read "
                "(give the fixture an evaluation_time, or the run --at TIME)")
        return pinned.astimezone(real.UTC)

    class datetime(real.datetime):
        __slots__ = ()

        @classmethod
        def now(cls, tz=None):
            if tz is None:
                r = _now_local().replace(tzinfo=None)
            else:
                r = _now_utc().astimezone(tz)
            return cls(r.year, r.month, r.day, r.hour, r.minute, r.second, r.microsecond,
                       r.tzinfo, fold=r.fold)

        @classmethod
        def utcnow(cls):  # UTC by name, whatever the workflow's timezone
            r = _now_utc()
            return cls(r.year, r.month, r.day, r.hour, r.minute, r.second, r.microsecond)

        @classmethod
        def today(cls):
            return cls.now(None)

    class date(real.date):
        __slots__ = ()

        @classmethod
        def today(cls):
            u = _now_local()
            return cls(u.year, u.month, u.day)

    for c in (datetime, date):
        c.__module__ = "datetime"
    attrs = _public(real)
    attrs["datetime"] = datetime
    attrs["date"] = date
    return _facade("datetime", attrs)


# --------------------------------------------------------------------------- statistics


def _statistics_facade():
    import random
    import statistics as real

    # Backstop for paths the facade cannot close (the real class via mro()): the module-level
    # generator is seeded, so even a leaked unseeded call is reproducible.
    seed = REQ["seed"]  # noqa: F821
    random.seed(0 if seed is None else seed)
    Real = real.NormalDist

    class NormalDist(Real):
        __slots__ = ()

        def samples(self, n, *, seed=None):
            if seed is None:
                msg = ("NormalDist.samples() needs an explicit seed= (sampling must be "
                       "reproducible)")
                VIOLATIONS.append(("sampling", msg))  # noqa: F821
                raise UnseededSamplingError(msg)
            return Real.samples(self, n, seed=seed)

    NormalDist.__module__ = "statistics"
    NormalDist.__qualname__ = NormalDist.__name__ = "NormalDist"
    real.NormalDist = NormalDist  # arithmetic/from_samples inside the module build ours
    attrs = _public(real)
    attrs["NormalDist"] = NormalDist
    return _facade("statistics", attrs)


def _plain(name):
    real = __import__(name)
    for part in name.split(".")[1:]:
        real = getattr(real, part)
    return _facade(name, _public(real))


_BUILDERS = {"datetime": _datetime_facade, "statistics": _statistics_facade}


def facade(name):
    m = _FACADES.get(name)
    if m is None:
        m = _BUILDERS.get(name, lambda: _plain(name))()
        _FACADES[name] = m
    return m


# C code of the allowed modules imports these lazily (datetime's strftime -> time,
# strptime -> _strptime, ...). CPython's PyImport_Import goes through the *current frame's*
# builtins, i.e. the step's guarded __import__, with an empty *list* as fromlist (3.11)
# and ignoring the return value; an import statement passes None or a tuple. The module never
# reaches the step (None is returned; CPython then reads sys.modules itself).
_C_LEVEL = frozenset({"time", "_strptime", "locale", "calendar", "_datetime", "_decimal",
                      "numbers", "collections", "contextvars", "unicodedata", "_locale"})


def guarded_import(name, fromlist, level, validated):
    if type(fromlist) is list and not fromlist and level == 0 and name in _C_LEVEL:
        __import__(name)
        return None
    if level != 0:
        raise ImportError("relative imports are not available in a step")
    if name in _ALLOWED:
        return facade(name)
    if name == "urllib" or name in _URLLIB:
        if validated and not REQ["allow_urllib"]:  # noqa: F821
            raise ImportError(f"module {name!r} is only available to public_egress steps")
        if name == "urllib":
            wanted = [f for f in (fromlist or ()) if f"urllib.{f}" in _URLLIB]
        else:
            wanted = [name.split(".", 1)[1]]
        top = _FACADES.get("urllib") or _facade("urllib", {})
        _FACADES["urllib"] = top
        for sub in wanted:
            setattr(top, sub, facade("urllib." + sub))
        return top if (name == "urllib" or not fromlist) else facade(name)
    if not validated:  # run_unvalidated: arbitrary Python; the OS sandbox is the wall
        return __import__(name, None, None, fromlist, level)
    raise ImportError(f"module {name!r} is not available in the sandbox (allowed: "
                      + ", ".join(_ALLOWED) + ")")
