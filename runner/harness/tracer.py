"""The opt-in trace of the step file. Runs INSIDE the sandbox, shipped only when a trace is
asked for (inside.py executes it with ``CONF`` and ``SECRETS`` in its globals; it defines
``start()``, ``stop()`` and ``result()``).

``CONF`` (from the parent): ``mode`` ("coverage" or "values"), ``filename`` (only frames whose
code comes from that file are traced), ``lmap`` {physical line: statement line} for the lines
of multi-line statements (the values and ``lines`` are per statement line), ``assigns``
{statement line: [names bound there]} (values mode), the interpreter's ``resume`` and
``push_exc_info`` opcodes, and the caps.

Python 3.11 (the pinned version) has no ``sys.monitoring``, so this is ``sys.settrace``: the
global function answers each new frame with ``None`` unless the frame runs the step file's
code, so facade, validator and harness frames cost one call each and no line events.

Arcs are recorded as coverage.py's own tracer (pytracer.py) records them, on raw line
numbers: (previous line, line) on every line event of one frame (self-arcs too), entering a
code object (-first_line, line), leaving it (line, -first_line); a generator resumed goes on
from its last line and a yield is no exit, a handler's PUSH_EXC_INFO line event is skipped.
The parent translates them as coverage.py's analysis does (codeshape.py), so they are
never mapped here. Values: when a frame leaves a statement line, the reprs of the
names that statement binds (read from the frame's locals), and a function's return value;
per line the first and the last such snapshot are kept (a loop body's first and last
iteration). Every repr is bounded and never cut inside a granted credential (the parent
redacts, then cuts). The trace is advisory and bounded; it never raises into the step.
"""

# ruff: noqa: BLE001  (the tracer must never raise into the step)

import sys

_MODE = CONF["mode"]  # noqa: F821  (provided by inside.py)
_FILE = CONF["filename"]  # noqa: F821
_LMAP = CONF["lmap"]  # noqa: F821
_ASSIGNS = CONF["assigns"]  # noqa: F821
_MAX_LINES = CONF["max_lines"]  # noqa: F821
_MAX_ARCS = CONF["max_arcs"]  # noqa: F821
_MAX_REPR = CONF["max_repr"]  # noqa: F821
_MAX_VALUE_CHARS = CONF["max_value_chars"]  # noqa: F821
_SECRETS = [s for s in SECRETS if s]  # noqa: F821
_VALUES = _MODE == "values"
# code objects whose "return" is not a value the author wrote
_NO_RETURN = frozenset({"<module>", "<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})
_GENERATOR_FLAGS = 0x20 | 0x200 | 0x80 | 0x100  # generator, async generator, coroutine
# opcode numbers of this interpreter (the parent's own binary), for coverage.py's tests of
# real calls and returns (generators) and of exception-handler line events
_RESUME = CONF.get("resume")  # noqa: F821
_PUSH_EXC_INFO = CONF.get("push_exc_info")  # noqa: F821
if _PUSH_EXC_INFO is None:
    _PUSH_EXC_INFO = -1  # no such opcode: no line event is skipped
_LASTI_IS_YIELD = sys.version_info[:2] != (3, 13)
_RETURN_LINE = sys.version_info >= (3, 14)  # 3.14 may report a new line only on return

_arcs = set()
_values = {}  # statement line -> [hits, first snapshot, last snapshot]
_state = {"chars": 0, "truncated": False}


def _cut(s, n):
    """s[:n] + "…", but never ending inside an occurrence of a secret (extended past it)."""
    if len(s) <= n:
        return s
    end = n
    moved = True
    while moved:
        moved = False
        for secret in _SECRETS:
            size = len(secret)
            i = s.find(secret, max(0, end - size + 1))
            while i != -1 and i < end:
                if i + size > end:
                    end = i + size
                    moved = True
                i = s.find(secret, i + 1)
    return s[:end] + "…"


def _leaf(v):
    t = type(v)
    if t is str and len(v) > _MAX_REPR:  # repr only the head of a long string
        r = repr(_cut(v, _MAX_REPR)[:-1])
        return r + "…" if len(r) <= _MAX_REPR + 2 else _cut(r, _MAX_REPR + 2)
    try:
        r = repr(v)
    except ValueError:  # e.g. an int past the str-digits limit
        return f"<{t.__name__}>"
    return _cut(r if type(r) is str else "<?>", _MAX_REPR)


def _short(v, depth=0):
    """A bounded repr: containers to 8 items and 3 levels, every leaf capped."""
    t = type(v)
    if t in (list, tuple, set, frozenset, dict):
        if depth >= 3:
            return "[…]" if t is list else "{…}" if t in (dict, set) else "(…)"
        items = v.items() if t is dict else v
        parts = []
        for i, item in enumerate(items):
            if i == 8:
                parts.append("…")
                break
            if t is dict:
                parts.append(_short(item[0], depth + 1) + ": " + _short(item[1], depth + 1))
            else:
                parts.append(_short(item, depth + 1))
        body = ", ".join(parts)
        if t is list:
            return "[" + body + "]"
        if t is tuple:
            return "(" + body + ("," if len(parts) == 1 else "") + ")"
        if t is dict:
            return "{" + body + "}"
        if not parts:
            return t.__name__ + "()"
        return "{" + body + "}" if t is set else "frozenset({" + body + "})"
    return _leaf(v)


def _snapshot(frame, line, returned, has_return):
    names = _ASSIGNS.get(line)
    if not names and not has_return:
        return
    loc = frame.f_locals
    assigned = []
    size = 0
    for name in names or ():
        if name in loc:
            r = _short(loc[name])
            size += len(name) + len(r)
            assigned.append((name, r))
    ret = None
    if has_return:
        ret = _short(returned)
        size += len(ret)
    snap = (assigned, ret)
    entry = _values.get(line)
    if entry is None:
        if _state["chars"] + size > _MAX_VALUE_CHARS:
            _state["truncated"] = True
            return
        _state["chars"] += size
        _values[line] = [1, snap, None, size, 0]
    else:
        entry[0] += 1
        grow = size - entry[4]
        if _state["chars"] + grow > _MAX_VALUE_CHARS:
            _state["truncated"] = True
            return
        _state["chars"] += grow
        entry[2] = snap
        entry[4] = size


def _real_call(frame):
    """coverage.py's test (pytracer.py): a "call" event starts a frame, or resumes a
    generator; on 3.11+ the RESUME instruction's argument says which (0: a real call)."""
    code = frame.f_code
    if _RESUME is not None:
        return code.co_code[frame.f_lasti + 1] == 0
    return frame.f_lasti < 0


def _real_return(frame):
    """coverage.py's test: a "return" event that is not a generator's yield (one that
    resumes next) leaves the code object."""
    code = frame.f_code.co_code
    lasti = frame.f_lasti
    if len(code) == lasti + 2:
        return True
    if _LASTI_IS_YIELD:
        lasti += 2
    return code[lasti] != _RESUME


def _arc(a, b):
    if len(_arcs) < _MAX_ARCS:
        _arcs.add((a, b))
    else:
        _state["truncated"] = True


def _tracer(frame, event, arg):
    code = frame.f_code
    if code.co_filename != _FILE:
        return None
    first = code.co_firstlineno
    try:
        last = [-first if _real_call(frame) else frame.f_lineno]
    except BaseException:
        last = [-first]
    vlast = [-first]  # values: the statement line being left (statement lines, deduplicated)
    raised = [False]
    wants_return = _VALUES and code.co_name not in _NO_RETURN and \
        not code.co_flags & _GENERATOR_FLAGS

    co = code.co_code  # coverage.py skips the line event of a handler's PUSH_EXC_INFO
    arcs = _arcs

    def local(frame, event, arg):
        try:
            if event == "line":
                ln = frame.f_lineno
                if _VALUES:
                    raised[0] = False
                    sl = _LMAP.get(ln, ln)
                    if sl != vlast[0]:
                        if vlast[0] > 0:
                            _snapshot(frame, vlast[0], None, False)
                        vlast[0] = sl
                if co[frame.f_lasti] == _PUSH_EXC_INFO:
                    return local
                if len(arcs) < _MAX_ARCS:
                    arcs.add((last[0], ln))  # raw lines, self-arcs too: the parent translates
                else:
                    _state["truncated"] = True
                last[0] = ln
            elif event == "return":
                if _real_return(frame):
                    ln = frame.f_lineno
                    if _RETURN_LINE and ln is not None and ln != last[0]:
                        _arc(last[0], ln)
                        last[0] = ln
                    _arc(last[0], -first)
                if _VALUES and vlast[0] > 0:
                    _snapshot(frame, vlast[0], arg, wants_return and not raised[0])
            elif event == "exception":
                raised[0] = True
        except BaseException:  # advisory: a failing trace never fails the step
            _state["truncated"] = True
        return local

    return local


def start():
    sys.settrace(_tracer)


def stop():
    sys.settrace(None)


def result():
    # the statement lines the arcs touch (multi-line statements onto their first line)
    lines = {_LMAP.get(n, n) for arc in _arcs for n in arc if n > 0}
    if len(lines) > _MAX_LINES:
        _state["truncated"] = True
    out = {"lines": sorted(lines)[:_MAX_LINES], "arcs": sorted([a, b] for a, b in _arcs),
           "truncated": _state["truncated"]}
    if _VALUES:
        vals = []
        for line in sorted(_values):
            hits, first, lastsnap, _, _ = _values[line]
            item = {"line": line, "hits": hits,
                    "first": {"assigned": [list(p) for p in first[0]], "returned": first[1]}}
            if lastsnap is not None:
                item["last"] = {"assigned": [list(p) for p in lastsnap[0]],
                                "returned": lastsnap[1]}
            vals.append(item)
        out["values"] = vals
    return out
