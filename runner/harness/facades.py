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

# The modules a step may import: filled in by `harness.bundle()` from
# validator/policy.py's ALLOWED_MODULES (the one list; unvalidated runs ship no validator).
_ALLOWED = ()
_URLLIB = ("urllib.request", "urllib.parse", "urllib.error")
_FACADES = {}
_ModuleType = type(sys)


class PinnedClockError(RuntimeError):
    pass


class UnseededSamplingError(RuntimeError):
    pass


def public_members(real):
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


class _ReadOnlyModule(_ModuleType):
    """A facade refuses attribute assignment and deletion (SS406 at the facade level:
    `datetime.datetime = datetime.datetime.min` would swap the pinned class for the real one
    behind every later call the validator approved)."""

    def __setattr__(self, name, value):
        raise AttributeError(f"module {name!r} of a sandbox facade cannot be reassigned")

    def __delattr__(self, name):
        raise AttributeError(f"module {name!r} of a sandbox facade cannot be deleted")


class _ReadOnlyClass(type):
    """Metaclass of the facade's own classes (pinned datetime/date, seeded NormalDist)."""

    def __setattr__(cls, name, value):
        raise AttributeError(f"attribute {name!r} of a sandbox facade class cannot be reassigned")

    def __delattr__(cls, name):
        raise AttributeError(f"attribute {name!r} of a sandbox facade class cannot be deleted")


def _facade(name, attrs, doc=None):
    m = _ReadOnlyModule("stepsmith.facade:" + name,
                        doc or f"Sandbox facade of {name} (public API only).")
    m.__dict__.update(attrs)
    m.__dict__.update(__spec__=None, __loader__=None)
    return m


# --------------------------------------------------------------------------- datetime


def _datetime_facade():
    import datetime as real

    text = REQ["evaluation_time"]  # noqa: F821
    pinned = None if text is None else real.datetime.fromisoformat(text)
    if pinned is not None and pinned.tzinfo is None:
        pinned = pinned.replace(tzinfo=real.UTC)

    # naive reads are the evaluation time in the sandbox's local zone, which the harness set
    # to the workflow's (TZ, from the request): the C library computes it from the zone's
    # TZif file, fold included (the second 01:30 of a repeated hour has fold=1), exactly as
    # every other naive operation of the real classes does
    epoch = real.datetime(1970, 1, 1, tzinfo=real.UTC)

    def _now_local():
        u = _now_utc()
        d = u - epoch
        return real.datetime.fromtimestamp(d.days * 86400 + d.seconds).replace(
            microsecond=u.microsecond)

    def _now_utc():
        if pinned is None:
            raise PinnedClockError(
                "this run has no pinned evaluation time, so the clock cannot be read "
                "(give the fixture an evaluation_time, or the run --at TIME)")
        return pinned.astimezone(real.UTC)

    class datetime(real.datetime, metaclass=_ReadOnlyClass):
        __slots__ = ()
        __module__ = "datetime"

        @classmethod
        def now(cls, tz=None):
            if tz is None:
                r = _now_local()
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

        # CPython (3.11) drops `fold` when these two build an instance of a subclass: the
        # second 01:30 of a repeated hour came back as the first. Built by the real class,
        # then copied with its fold.
        @classmethod
        def fromtimestamp(cls, t, tz=None):
            return _copy(cls, real.datetime.fromtimestamp(t, tz))

        @classmethod
        def combine(cls, date, time, tzinfo=True):
            r = (real.datetime.combine(date, time) if tzinfo is True
                 else real.datetime.combine(date, time, tzinfo))
            return _copy(cls, r)

    def _copy(cls, r):
        return cls(r.year, r.month, r.day, r.hour, r.minute, r.second, r.microsecond,
                   r.tzinfo, fold=r.fold)

    class date(real.date, metaclass=_ReadOnlyClass):
        __slots__ = ()
        __module__ = "datetime"

        @classmethod
        def today(cls):
            u = _now_local()
            return cls(u.year, u.month, u.day)

    attrs = public_members(real)
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

    class NormalDist(Real, metaclass=_ReadOnlyClass):
        __slots__ = ()
        __module__ = "statistics"
        __qualname__ = "NormalDist"

        def samples(self, n, *, seed=None):
            if seed is None:
                msg = ("NormalDist.samples() needs an explicit seed= (sampling must be "
                       "reproducible)")
                VIOLATIONS.append(("sampling", msg))  # noqa: F821
                raise UnseededSamplingError(msg)
            return Real.samples(self, n, seed=seed)

    real.NormalDist = NormalDist  # arithmetic/from_samples inside the module build ours
    attrs = public_members(real)
    attrs["NormalDist"] = NormalDist
    return _facade("statistics", attrs)


def _plain(name):
    real = __import__(name)
    for part in name.split(".")[1:]:
        real = getattr(real, part)
    return _facade(name, public_members(real))


# --------------------------------------------------------------------------- urllib.request

#: What a step gets of urllib.request: opening http(s) URLs, and the handlers that only shape
#: HTTP requests. No FileHandler/FTPHandler/DataHandler/ProxyHandler, URLopener, urlretrieve,
#: getproxies (it reads the environment, where the connections are), install_opener.
_REQUEST_NAMES = ("Request", "HTTPBasicAuthHandler", "HTTPDigestAuthHandler",
                  "HTTPPasswordMgr", "HTTPPasswordMgrWithDefaultRealm",
                  "HTTPPasswordMgrWithPriorAuth", "HTTPCookieProcessor")


def _urllib_request_facade():
    import http.client
    import socket
    import urllib.error
    import urllib.request as real

    path = REQ.get("egress")  # noqa: F821 - the proxy's socket in a live run, else None
    URLError = urllib.error.URLError

    def _proxy_socket(timeout):
        if path is None:
            raise URLError("no network: this is not a live run (run it with --live)")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if timeout is not None and timeout is not socket._GLOBAL_DEFAULT_TIMEOUT:
            s.settimeout(timeout)
        s.connect(path)
        return s

    # Every request is tunnelled through the runner's egress proxy (CONNECT host:port); for
    # https the TLS handshake happens here, end to end, over that tunnel.
    class _Tunnelled:
        def __init__(self, host, **kw):
            super().__init__("stepsmith-egress", **kw)
            self.set_tunnel(host)

        def connect(self):
            self.sock = _proxy_socket(self.timeout)
            self._tunnel()

    class _HTTP(_Tunnelled, http.client.HTTPConnection):
        pass

    class _HTTPS(_Tunnelled, http.client.HTTPSConnection):
        def connect(self):
            _Tunnelled.connect(self)
            self.sock = self._context.wrap_socket(self.sock, server_hostname=self._tunnel_host)

    class _HTTPHandler(real.HTTPHandler):
        def http_open(self, req):
            return self.do_open(_HTTP, req)

    class _HTTPSHandler(real.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(_HTTPS, req, context=self._context)

    class _OtherSchemes(real.BaseHandler):
        def unknown_open(self, req):
            raise URLError(f"scheme {req.type!r} is not available to a step: http:// and "
                           "https:// only")

    allowed_extra = tuple(getattr(real, n) for n in _REQUEST_NAMES[1:])

    def build_opener(*handlers):
        for h in handlers:
            if not isinstance(h, allowed_extra):
                raise TypeError(f"handler {type(h).__name__} is not available to a step")
        opener = real.OpenerDirector()
        for h in (_HTTPHandler(), _HTTPSHandler(), real.HTTPDefaultErrorHandler(),
                  real.HTTPRedirectHandler(), real.HTTPErrorProcessor(), _OtherSchemes(),
                  *handlers):
            opener.add_handler(h)
        return opener

    default = build_opener()

    def urlopen(url, data=None, timeout=socket._GLOBAL_DEFAULT_TIMEOUT, *, context=None):
        if context is not None:  # a step cannot build one (no ssl module); say so plainly
            raise TypeError("urlopen(context=...) is not available to a step")
        return default.open(url, data, timeout)

    attrs = {n: getattr(real, n) for n in _REQUEST_NAMES}
    attrs.update(urlopen=urlopen, build_opener=build_opener)
    return _facade("urllib.request", attrs)


_BUILDERS = {"datetime": _datetime_facade, "statistics": _statistics_facade,
             "urllib.request": _urllib_request_facade}


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
            top.__dict__[sub] = facade("urllib." + sub)  # read-only module: not setattr
        return top if (name == "urllib" or not fromlist) else facade(name)
    if not validated:  # run_unvalidated: arbitrary Python; the OS sandbox is the wall
        return __import__(name, None, None, fromlist, level)
    raise ImportError(f"module {name!r} is not available in the sandbox (allowed: "
                      + ", ".join(_ALLOWED) + ")")
