"""The one shape every finding takes: validator violations and manifest errors alike.

Positions: `line` is 1-based, `column` is 0-based and counted in Unicode code points of the
line (Python `str` indices), never UTF-8 bytes; the end is exclusive. Editors convert to their
own encoding (the language server does UTF-16/UTF-8).

Written by hand rather than with `dataclasses`/`enum`: this module is imported by every
pinned interpreter's check helper (pythons/helper.py) and on `check`'s cold start, where `dataclasses` (which pulls in `inspect`,
`re`, `copy`, ...) and `enum` cost most of a step's start-up. The classes behave as the
declarations in `_declarations()` would (`@dataclass(frozen=True, order=True) Span`,
`@dataclass(frozen=True) Problem` with `data` excluded from eq/hash, `Severity(str, Enum)`):
same constructor, repr, equality, hash, ordering, immutability, `__match_args__`; and the
`dataclasses` functions (`replace`, `asdict`, `fields`, `is_dataclass`) keep working on them
through a lazily built `__dataclass_fields__` (tests/validator/test_problems_api.py pins this).
This module imports nothing.
"""

from __future__ import annotations

# `typing` is for the type checker only (mypy reads any `TYPE_CHECKING` name as true): the
# module imports nothing at run time
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["FrozenRecord", "Problem", "Severity", "Span", "shifted"]


def _frozen(obj, name: str, verb: str = "assign to"):
    import dataclasses  # error path only

    return dataclasses.FrozenInstanceError(f"cannot {verb} field {name!r}")


_DECLARATIONS: dict | None = None


def _declarations() -> dict:
    """The dataclass declarations these classes implement (for `dataclasses` introspection)."""
    global _DECLARATIONS
    if _DECLARATIONS is None:
        from dataclasses import dataclass, field

        @dataclass(frozen=True, order=True)
        class Span:
            line: int
            column: int
            end_line: int
            end_column: int

        @dataclass(frozen=True)
        class Problem:
            code: str
            message: str
            span: Span
            path: str | None = None
            step: str | None = None
            rationale: str = ""
            severity: Severity = Severity.ERROR
            data: dict = field(default_factory=dict, compare=False, hash=False)

        @dataclass
        class Box:  # see _plain
            value: object

        _DECLARATIONS = {"Span": Span, "Problem": Problem, "Box": Box}
    return _DECLARATIONS


def dataclass_compatible(cls: type, declaration: Callable[[], type]) -> type:
    """Give the hand-written `cls` lazily built `__dataclass_fields__`/`__dataclass_params__`
    taken from `declaration()` (a function returning the equivalent @dataclass class), so
    `dataclasses.replace/asdict/fields/is_dataclass` treat it as that dataclass."""
    for attr in ("__dataclass_fields__", "__dataclass_params__"):
        setattr(cls, attr, _DeclaredAttr(declaration, attr))
    return cls


class _DeclaredAttr:
    __slots__ = ("attr", "declaration", "value")

    def __init__(self, declaration, attr: str):
        self.declaration = declaration
        self.attr = attr
        self.value = None

    def __get__(self, obj, owner=None):
        if self.value is None:
            self.value = getattr(self.declaration(), self.attr)
        return self.value


# --------------------------------------------------------------------------- Severity


class _SeverityType(type):
    """Enum-style class behaviour: iteration, len, lookup by value `Severity("error")` and by
    name `Severity["ERROR"]`, `__members__`."""

    def __call__(cls, value):
        for member in cls._members.values():
            if member._value_ == value:
                return member
        raise ValueError(f"{value!r} is not a valid {cls.__qualname__}")

    def __getitem__(cls, name):
        return cls._members[name]

    def __iter__(cls):
        return iter(tuple(cls._members.values()))

    def __reversed__(cls):
        return reversed(tuple(cls._members.values()))

    def __len__(cls):
        return len(cls._members)

    def __contains__(cls, member):
        if not isinstance(member, cls):
            raise TypeError(f"unsupported operand type(s) for 'in': "
                            f"{type(member).__qualname__!r} and 'EnumType'")
        return member in cls._members.values()

    @property
    def __members__(cls):
        return dict(cls._members)

    def __repr__(cls):
        return f"<enum {cls.__name__!r}>"

    def __setattr__(cls, name, value):
        if name in cls.__dict__.get("_members", ()):
            raise AttributeError(f"cannot reassign member {name!r}")
        super().__setattr__(name, value)


class Severity(str, metaclass=_SeverityType):
    """ERROR or WARNING; a `str` equal to its value ("error"/"warning"), like `(str, Enum)`."""

    __slots__ = ("_name_", "_value_")
    _members: dict = {}  # noqa: RUF012 - name -> member, filled below, never reassigned
    _name_: str  # set once per member by _severity_member
    _value_: str
    ERROR: Severity  # the members, for type checkers (_severity_member makes them)
    WARNING: Severity

    @property
    def name(self) -> str:
        return self._name_

    @property
    def value(self) -> str:
        return self._value_

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self._name_}: {self._value_!r}>"

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self._name_}"

    def __format__(self, spec: str) -> str:
        return str.__format__(str(self), spec)

    __hash__ = str.__hash__

    def __reduce_ex__(self, proto):
        return type(self), (self._value_,)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot set attribute {name!r} of a {type(self).__name__} member")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete attribute {name!r} of a {type(self).__name__} member")

    def __dir__(self):
        return ["__class__", "__doc__", "__module__", "name", "value"]


def _severity_member(name: str, value: str) -> Severity:
    member = str.__new__(Severity, value)
    object.__setattr__(member, "_name_", name)
    object.__setattr__(member, "_value_", value)
    Severity._members[name] = member
    type.__setattr__(Severity, name, member)
    return member


_severity_member("ERROR", "error")
_severity_member("WARNING", "warning")


# --------------------------------------------------------------------------- FrozenRecord


class FrozenRecord:
    """Base of the hand-written frozen records (Span, Problem, StepUse, Rule): a subclass sets
    `__slots__ = __match_args__ = <its field names>` and `_key()` (the compared and hashed
    fields); repr, equality, hash, immutability and pickling come from here, as a
    `@dataclass(frozen=True)` would give them."""

    __slots__ = ()
    __match_args__: tuple[str, ...]  # a subclass's field names (it sets them)

    def _key(self) -> tuple:
        return tuple(getattr(self, f) for f in self.__match_args__)

    def __repr__(self) -> str:
        return type(self).__qualname__ + "(" + ", ".join(
            f"{f}={getattr(self, f)!r}" for f in self.__match_args__) + ")"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name, value):
        raise _frozen(self, name)

    def __delattr__(self, name):
        raise _frozen(self, name, "delete")

    def __reduce__(self):
        return type(self), tuple(getattr(self, f) for f in self.__match_args__)


# --------------------------------------------------------------------------- Span


class Span(FrozenRecord):
    """Span(line, column, end_line, end_column): line 1-based, column 0-based code points,
    end exclusive. Frozen, ordered like the tuple of its fields."""

    __slots__ = __match_args__ = ("line", "column", "end_line", "end_column")
    line: int  # the fields, for type checkers (__init__ sets them: the record is frozen)
    column: int
    end_line: int
    end_column: int

    def __init__(self, line: int, column: int, end_line: int, end_column: int) -> None:
        _set = object.__setattr__
        _set(self, "line", line)  # 1-based
        _set(self, "column", column)  # 0-based, code points
        _set(self, "end_line", end_line)
        _set(self, "end_column", end_column)

    @classmethod
    def point(cls, line: int, column: int, width: int = 1) -> Span:
        return cls(line, column, line, column + width)

    def __lt__(self, other):
        if other.__class__ is self.__class__:
            return self._key() < other._key()
        return NotImplemented

    def __le__(self, other):
        if other.__class__ is self.__class__:
            return self._key() <= other._key()
        return NotImplemented

    def __gt__(self, other):
        if other.__class__ is self.__class__:
            return self._key() > other._key()
        return NotImplemented

    def __ge__(self, other):
        if other.__class__ is self.__class__:
            return self._key() >= other._key()
        return NotImplemented


dataclass_compatible(Span, lambda: _declarations()["Span"])


# --------------------------------------------------------------------------- Problem


class Problem(FrozenRecord):
    """A rule violation in step code, or an error in a manifest."""

    __slots__ = __match_args__ = ("code", "message", "span", "path", "step", "rationale",
                                  "severity", "data")
    code: str
    message: str
    span: Span
    path: str | None
    step: str | None
    rationale: str
    severity: Severity
    data: dict

    def __init__(self, code: str, message: str, span: Span, path: str | None = None,
                 step: str | None = None, rationale: str = "",
                 severity: Severity = Severity.ERROR, data: dict | None = None) -> None:
        _set = object.__setattr__
        _set(self, "code", code)  # stable: SS1xx.. step rules, SM0xx manifest rules
        _set(self, "message", message)  # one line
        _set(self, "span", span)
        _set(self, "path", path)  # file the problem is in, when known
        _set(self, "step", step)  # step function (code) or step id (manifest) it is in
        _set(self, "rationale", rationale)  # one line: why the rule exists
        _set(self, "severity", severity)
        # fix hints for editors; never part of equality or the hash
        _set(self, "data", {} if data is None else data)

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    def sort_key(self):
        return (self.path or "", self.span, self.code)

    def _key(self) -> tuple:  # the compared (and hashed) fields: everything but `data`
        return (self.code, self.message, self.span, self.path, self.step, self.rationale,
                self.severity)

    def to_json(self) -> dict:
        d = {
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "step": self.step,
            "rationale": self.rationale,
            "severity": self.severity.value,
            "data": _plain(self.data),
        }
        d.update(_plain(self.span))
        return d


dataclass_compatible(Problem, lambda: _declarations()["Problem"])


def shifted(problem: Problem, lines: int, **changes) -> Problem:
    """`problem` moved down by `lines`, with the edits of its fix (`data["edits"]`, see
    stepsmith.runner.fixes) moved with it; `changes` replace other fields (e.g. `path`)."""
    sp = problem.span
    data = dict(problem.data)
    edits = data.get("edits")
    if lines and isinstance(edits, list):
        data["edits"] = [[e[0] + lines, e[1], e[2] + lines, *e[3:]]
                         if isinstance(e, list) and len(e) == 5 and isinstance(e[0], int)
                         and isinstance(e[2], int) else e for e in edits]
    fields: dict[str, Any] = {
        "code": problem.code, "message": problem.message,
        "span": Span(sp.line + lines, sp.column, sp.end_line + lines, sp.end_column)
        if lines else sp, "path": problem.path, "step": problem.step,
        "rationale": problem.rationale, "severity": problem.severity, "data": data}
    fields.update(changes)
    return Problem(**fields)


def moved_along(problem: Problem, line: int, columns: int) -> Problem:
    """`problem` with every position on `line` (its span and its fix's edits) `columns` on:
    a byte order mark kept at the start of a buffer is line 1's first character, so what was
    found in the text after it moves one column on along that line."""
    def col(at_line: int, at: int) -> int:
        return at + columns if at_line == line else at

    sp = problem.span
    data = dict(problem.data)
    edits = data.get("edits")
    if isinstance(edits, list):
        data["edits"] = [[e[0], col(e[0], e[1]), e[2], col(e[2], e[3]), e[4]]
                         if isinstance(e, list) and len(e) == 5 and isinstance(e[0], int)
                         and isinstance(e[2], int) else e for e in edits]
    return shifted(problem, 0, span=Span(sp.line, col(sp.line, sp.column), sp.end_line,
                                         col(sp.end_line, sp.end_column)), data=data)


def _plain(value):
    """`dataclasses.asdict`'s conversion: records to dicts, containers rebuilt, leaves copied."""
    cls = value.__class__
    if cls is str or cls is int or cls is float or cls is bool or value is None:
        return value
    if cls is Span:
        return {"line": value.line, "column": value.column, "end_line": value.end_line,
                "end_column": value.end_column}
    if cls is dict:
        return {_plain(k): _plain(v) for k, v in value.items()}
    if cls is list:
        return [_plain(v) for v in value]
    import dataclasses  # anything else: exactly what asdict() does

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return dataclasses.asdict(_Box(value))["value"]


class _Box:
    """Lets `_plain` hand an arbitrary value to `dataclasses.asdict` (tuples, namedtuples,
    dict subclasses, other leaves are then converted/copied exactly as asdict does)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


dataclass_compatible(_Box, lambda: _declarations()["Box"])


def errors_by_path(problems_by_path) -> list[tuple]:
    """(path, problem) of every error-severity problem: what keeps a workflow's fixtures from
    running (app.workflow.LoadedWorkflow, cli.check_units)."""
    return [(path, p) for path, probs in problems_by_path.items() for p in probs
            if p.severity == Severity.ERROR]
