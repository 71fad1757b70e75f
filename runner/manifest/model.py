"""The workflow manifest model (pydantic v2, strict, unknown keys forbidden).

This model is the single source of truth for `workflow.yaml`; `schemas/workflow.schema.json`
is generated from it (`stepsmith schema`). Every field carries a description because editors
show it on hover. Cross references (declared names, wiring, cycles, code files) are checked
in `crossref.py` / `check.py`, where exact positions are known.
"""

from __future__ import annotations

import difflib
import zoneinfo
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    PrivateAttr,
    StringConstraints,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError
from stepsmith.runner.manifest.cron import check_cron  # the one cron grammar
from stepsmith.runner.model.grammar import (  # the one grammar (re-exported for callers)
    CODE_PATTERN,
    EVENT_PATTERN,
    NAME_PATTERN,
    PARAM_PATTERN,
    PYTHON_PATTERN,
    SLUG_PATTERN,
    WHITESPACE_CLASS,
)
from stepsmith.runner.model.refs import CodeRef, InputRef, parse_input_ref

from .cron_pattern import cron_pattern
from .model_schema import (  # what the schema says beyond pydantic's own
    ONCE,
    SOURCE_KIND_FIELD,
    effect_target_schema,
    inputs_schema,
    source_kind_schema,
)
from .zones import ZONES

Slug = Annotated[str, StringConstraints(pattern=SLUG_PATTERN)]
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
ParamName = Annotated[str, StringConstraints(pattern=PARAM_PATTERN)]
# A channel is named by the platform it lives on (`finance-requests`, `#ops`, `Finance Team`),
# not by our slug grammar: any one-line text, not padded, no control characters.
CHANNEL_PATTERN = (r"^[^\x00-\x1f\x7f" + WHITESPACE_CLASS + r"](?:[^\x00-\x1f\x7f]*[^\x00-\x1f\x7f"
                   + WHITESPACE_CLASS + r"])?$")  # whitespace spelled out: alike in every engine
ChannelName = Annotated[str, StringConstraints(max_length=200, pattern=CHANNEL_PATTERN)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


# --------------------------------------------------------------------------------- trigger

_ZONE_SET = frozenset(ZONES)


def check_timezone(name: str) -> str:
    if name not in _ZONE_SET:  # the schema's enum: the same list, on every machine
        close = difflib.get_close_matches(name, ZONES, n=1)
        if not close:
            folded = {z.lower(): z for z in ZONES}.get(name.strip().lower())
            close = [folded] if folded else []
        hint = f"; did you mean '{close[0]}'?" if close else " (use an IANA name such as Europe/London or UTC)"
        exc = ValueError(f"unknown timezone {name!r}{hint}")
        exc.suggestion = close[0] if close else None  # the editor's replace fix (parse.py)
        raise exc from None
    try:
        zoneinfo.ZoneInfo(name)
    except zoneinfo.ZoneInfoNotFoundError:
        raise ValueError(f"timezone {name!r} is not installed on this machine "
                         "(apt-get install tzdata, or pip install tzdata)") from None
    except (ValueError, OSError) as exc:  # found but unreadable or damaged: say what happened
        raise ValueError(f"timezone {name!r}: the time zone database could not be read "
                         f"({type(exc).__name__}: {exc})") from None
    return name


#: A timezone in the schema: marked here, made a reference to the one enum of IANA names by
#: runner/schema.py.
TIMEZONE_MARK = "x-stepsmith-timezone"
Timezone = Annotated[str, WithJsonSchema({"type": "string", TIMEZONE_MARK: True})]


def _whole_number(v):
    """JSON Schema's `integer` is any number with no fraction (`3.0`, `1e3`): so is ours."""
    if type(v) is float and v.is_integer():
        return int(v)
    return v


WholeNumber = Annotated[int, BeforeValidator(_whole_number)]


class Schedule(_Strict):
    """Run on a schedule."""

    cron: str = Field(
        description="Five-field cron expression (minute hour day-of-month month day-of-week), "
        "e.g. \"0 7 * * 1-5\" for 07:00 on weekdays.",
        examples=["0 7 * * 1-5", "0 0 1 * *", "@daily"],
        json_schema_extra={"pattern": cron_pattern(), "maxLength": 200, "patternErrorMessage":
                           "not a cron schedule that can fire: five fields (minute hour "
                           "day-of-month month day-of-week) or @daily, @hourly, ..."},
    )
    timezone: Timezone = Field(
        description="IANA timezone the cron expression is read in, e.g. Europe/London or UTC.",
        examples=["Europe/London"],
    )

    @field_validator("cron")
    @classmethod
    def _check_cron(cls, v: str) -> str:
        return check_cron(v)

    @field_validator("timezone")
    @classmethod
    def _check_timezone(cls, v: str) -> str:
        return check_timezone(v)


class Event(_Strict):
    """Run when an event arrives."""

    name: str = Field(
        pattern=EVENT_PATTERN,
        description="Name of the event that starts the workflow, e.g. invoice.received.",
        examples=["invoice.received"],
    )
    connection: Name = Field(  # type: ignore[assignment]  # absent = None; null is refused
        default=None,
        description="Alias (from `connections`) of the system the event comes from, if any.",
    )


class Manual(_Strict):
    """Run only when a person starts it."""

    description: str = Field(default="", description="Who starts this workflow and when.")


class Trigger(_Strict):
    """What starts the workflow: exactly one of `schedule`, `event` or `manual`."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1, "maxProperties": 1})

    # Absent keys default to None; an explicit null is refused for schedule/event (the schema
    # says "object") and means "no description" for manual (`manual:` reads naturally).
    schedule: Schedule = Field(default=None, description="Run on a cron schedule.")  # type: ignore[assignment]
    event: Event = Field(default=None, description="Run when a named event arrives.")  # type: ignore[assignment]
    manual: Manual | None = Field(
        default=None,
        description="Run only when started by hand: `manual: {}` or `manual:` (optionally with a "
        "description).",
    )

    @field_validator("manual", mode="before")
    @classmethod
    def _manual_null(cls, v):
        return Manual() if v is None else v

    @model_validator(mode="after")
    def _exactly_one(self):
        n = sum(x is not None for x in (self.schedule, self.event, self.manual))
        if n != 1:
            raise PydanticCustomError(
                "trigger_count",
                "trigger needs exactly one of schedule, event or manual; found {n}",
                {"n": n},
            )
        return self


# ------------------------------------------------------------------------- declarations


class Connection(_Strict):
    """A connection alias. Only a name: the credential is never written in the manifest."""

    description: str = Field(default="", description="What system this connection reaches.")


class Source(_Strict):
    """Data the workflow reads: a connected system's records (`kind: connection`, the
    default), a channel's records (`kind: channel`) or a query on the organisation's graph
    (`kind: graph`)."""

    model_config = ConfigDict(json_schema_extra=source_kind_schema())

    kind: Literal["connection", "channel", "graph"] = Field(
        default="connection",
        description="Where the data comes from: `connection` (default; a connected system, "
        "needs `connection`), `channel` (a channel's records, needs `channel`) or `graph` (the "
        "organisation's graph, needs `query`).",
    )
    connection: Name | None = Field(
        default=None,
        description="kind connection: alias (from `connections`) this source is read through.")
    channel: ChannelName | None = Field(
        default=None, description="kind channel: the channel whose records this source reads, "
        "named as its platform names it (e.g. finance-requests).")
    query: Name | None = Field(
        default=None, description="kind graph: the name of the graph query this source runs.")
    description: str = Field(default="", description="What this source holds, in plain language.")

    @model_validator(mode="after")
    def _fields_of_kind(self):
        need = SOURCE_KIND_FIELD[self.kind]
        if getattr(self, need) is None:
            raise PydanticCustomError(  # reported as a missing key (SM004) at the source
                "source_kind_missing", "a source of kind {kind} needs `{need}`",
                {"kind": self.kind, "need": need})
        extra = [f for f in SOURCE_KIND_FIELD.values() if f != need and getattr(self, f)]
        if extra:
            raise PydanticCustomError(
                "source_kind", "`{field}` belongs to a source of kind {other}, not {kind}",
                {"field": extra[0], "kind": self.kind,
                 "other": next(k for k, f in SOURCE_KIND_FIELD.items() if f == extra[0])})
        return self

    @property
    def origin(self) -> str:
        """"connection xero" / "channel billing-alerts" / "graph query open_invoices"."""
        if self.kind == "channel":
            return f"channel {self.channel}"
        if self.kind == "graph":
            return f"graph query {self.query}"
        return f"connection {self.connection}"


class Effect(_Strict):
    """A change the workflow may make in the outside world, through a connected system
    (`connection`) or on a channel (`channel`, e.g. posting a message). Locally it is only
    recorded."""

    model_config = ConfigDict(json_schema_extra=effect_target_schema())

    connection: Name | None = Field(
        default=None, description="Alias (from `connections`) the effect is performed through "
        "(or give `channel`).")
    channel: ChannelName | None = Field(
        default=None, description="The channel the effect is performed on (e.g. posting to "
        "finance-requests), named as its platform names it (or give `connection`).")
    kind: Literal["create", "update", "delete", "send"] = Field(
        description="What the effect does: create, update, delete or send."
    )
    key: str = Field(
        pattern=PARAM_PATTERN,
        description="Payload field that identifies the effect's target (its idempotency key), "
        "e.g. invoice_id.",
    )
    description: str = Field(default="", description="What this effect does, in plain language.")

    @model_validator(mode="after")
    def _one_target(self):
        if self.connection is None and self.channel is None:
            raise PydanticCustomError(  # reported as a missing key (SM004) at the effect
                "effect_target_missing", "an effect needs `connection` or `channel`")
        if self.connection is not None and self.channel is not None:
            raise PydanticCustomError(
                "effect_target_both", "an effect targets a connection or a channel, not both: "
                "keep `connection` or `channel`")
        return self

    @property
    def target(self) -> str:
        """"connection xero" / "channel finance-requests"."""
        return f"channel {self.channel}" if self.channel is not None else \
            f"connection {self.connection}"

    @property
    def reach(self) -> str:
        """What the effect does where: "create via xero" / "send to channel finance-requests"."""
        if self.channel is not None:
            return f"{self.kind} to channel {self.channel}"
        return f"{self.kind} via {self.connection}"


# --------------------------------------------------------------------------------- steps

class Step(_Strict):
    """One step: a top-level Python function run in its own sandbox."""

    id: Slug = Field(
        description="Unique step id: lowercase letters, digits, '-' or '_', starting with a letter.",
        examples=["match"],
    )
    explanation: str = Field(  # one rule (not also min_length): one squiggle in schema tools
        pattern=r"[^" + WHITESPACE_CLASS + "]",  # something not blank, read alike by every engine
        json_schema_extra={"patternErrorMessage": "explanation is empty: say in plain language "
                           "what this step does"},
        description="Plain-language explanation of what the step does; this is what the "
        "workflow's owner reads.",
    )
    code: str = Field(
        pattern=CODE_PATTERN,
        description="The step function as `path/to/file.py:function`, relative to the manifest's "
        "folder.",
        examples=["steps/match.py:match"],
    )
    inputs: dict[ParamName, JsonValue] = Field(
        default_factory=dict,
        description="Parameter name -> where its value comes from: `sources.<name>`, "
        "`steps.<id>.output`, or a literal JSON value (a string not starting with `sources.` or "
        "`steps.` is a literal).",
        json_schema_extra=inputs_schema,
    )
    network: Literal["none", "public_egress"] = Field(
        default="none",
        description="`none` (default) or `public_egress` (may reach the public internet in an "
        "explicitly live run). There is deliberately no per-domain allowlist.",
    )
    connections: list[Name] = Field(
        default_factory=list,
        description="Connection aliases whose credentials this step receives through its "
        "`connections` parameter, each once. Default: none.",
        json_schema_extra=ONCE,
    )
    effects: list[Name] = Field(
        default_factory=list,
        description="Effect names this step may emit through its `effects` parameter, each "
        "once. Default: none.",
        json_schema_extra=ONCE,
    )

    # parsed once, at validation: every consumer reads the typed references
    _code_ref: CodeRef = PrivateAttr()
    _input_refs: dict[str, InputRef] = PrivateAttr()

    def model_post_init(self, _context) -> None:
        code_ref = CodeRef.parse(self.code)
        if code_ref is None:  # pragma: no cover - CODE_PATTERN admits only parseable text
            raise ValueError(f"code {self.code!r} must look like 'steps/file.py:function'")
        self._code_ref = code_ref
        self._input_refs = {name: parse_input_ref(v) for name, v in self.inputs.items()}

    @property
    def code_ref(self) -> CodeRef:
        """`code` parsed: CodeRef(path, function)."""
        return self._code_ref

    @property
    def input_refs(self) -> dict[str, InputRef]:
        """`inputs` parsed: parameter -> SourceRef | StepOutputRef | Literal | MalformedRef
        (malformed only where the manifest check reported SM102/SM104)."""
        return self._input_refs


class Workflow(_Strict):
    """A stepsmith workflow manifest (workflow.yaml)."""

    workflow: Slug = Field(
        description="Workflow slug: lowercase letters, digits, '-' or '_', starting with a letter.",
        examples=["invoice-matching"],
    )
    version: WholeNumber = Field(ge=1, description="Immutable version number of this workflow (>= 1).",
                                 examples=[1])
    python: str = Field(
        pattern=PYTHON_PATTERN,
        description="The Python version the steps are checked and run on, as a quoted string: "
        "\"3.11\" (any 3.11 release) or \"3.11.7\" (that release only).",
        examples=["3.11"],
    )
    timezone: Timezone | None = Field(
        default=None,
        description="IANA timezone the workflow's clock is read in: a naive "
        "`datetime.datetime.now()` / `datetime.date.today()` inside a step is the evaluation "
        "time in this timezone. Default: the schedule's `timezone`, else UTC.",
        examples=["Europe/London"],
    )
    trigger: Trigger = Field(description="What starts the workflow: exactly one of schedule, event or manual.")
    connections: dict[Name, Connection] = Field(
        default_factory=dict,
        description="Connection aliases (names only, never credentials).",
    )
    sources: dict[Name, Source] = Field(
        default_factory=dict, description="Data sources the steps may read, by name."
    )
    effects: dict[Name, Effect] = Field(
        default_factory=dict, description="Effects the steps may emit, by name."
    )
    steps: list[Step] = Field(min_length=1, description="The steps, in order of declaration.")

    @field_validator("timezone")
    @classmethod
    def _check_timezone(cls, v: str | None) -> str | None:
        return None if v is None else check_timezone(v)

    @property
    def clock_timezone(self) -> str:
        """The timezone naive clock reads use: `timezone`, else the schedule's, else UTC."""
        if self.timezone:
            return self.timezone
        schedule = getattr(self.trigger, "schedule", None)
        return getattr(schedule, "timezone", None) or "UTC"

    def step(self, step_id: str) -> Step | None:
        for s in self.steps:
            if s.id == step_id:
                return s
        return None


MODELS = (Workflow, Trigger, Schedule, Event, Manual, Connection, Source, Effect, Step)
