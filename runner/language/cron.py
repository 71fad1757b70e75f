"""A cron schedule in plain English, for the manifest's inlay hint after `cron:`.

`describe("0 7 * * 1-5", "Europe/London")` -> "07:00 on weekdays, Europe/London". Pure; never
raises: anything the manifest would refuse is None. Validity, macros and the values of a
field are the manifest's own (`runner/manifest/cron.py`, the one cron grammar), so the hint
and the SM error never disagree; this module only adds the words.
"""

from __future__ import annotations

from stepsmith.runner.manifest.cron import (
    CRON_FIELDS,
    MACROS,
    MAX_CRON_CHARS,
    check_cron,
    expand_macro,
    field_values,
    split_fields,
)

__all__ = ["MACROS", "describe", "expand"]

_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_WEEKDAYS = frozenset(range(1, 6))
_WEEKEND = frozenset({0, 6})
_MAX_LISTED_TIMES = 6


class _Field:
    """One parsed field: its values, whether it is a bare `*`, and `*/N` / `a-b/N` as (N, base)."""

    __slots__ = ("star", "starred", "step", "values")

    def __init__(self, values: tuple[int, ...], text: str, step: tuple[int, bool] | None):
        self.values = values
        self.star = text == "*"
        self.starred = text.startswith("*")  # `*/2`: cron's OR rule does not apply to it
        self.step = step  # (N, True when the base is `*`)


def _parse_field(text: str, spec) -> _Field:
    name = spec[0]
    values = field_values(text, spec)  # the manifest's own reading of the field
    items = text.split(",")
    step_form = None
    if len(items) == 1 and "/" in text:
        step_form = (int(text.rsplit("/", 1)[1]), text.startswith("*"))
    if name == "day of week" and 7 in values:  # 7 is Sunday too
        values.discard(7)
        values.add(0)
    return _Field(tuple(sorted(values)), text, step_form)


def expand(cron: str) -> tuple[tuple[int, ...], ...] | None:
    """The five value sets (minute, hour, day of month, month, day of week; Sunday is 0) of a
    valid expression or macro, else None."""
    fields = _fields(cron)
    return None if fields is None else tuple(f.values for f in fields)


def _fields(cron) -> list[_Field] | None:
    if not isinstance(cron, str) or len(cron) > MAX_CRON_CHARS:
        return None
    try:
        check_cron(cron)
    except (ValueError, TypeError):
        return None
    text = expand_macro(cron)
    return [_parse_field(t, spec) for t, spec in zip(split_fields(text), CRON_FIELDS, strict=True)]


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _contiguous(values: tuple[int, ...]) -> bool:
    return len(values) >= 3 and values[-1] - values[0] == len(values) - 1


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _time_part(minute: _Field, hour: _Field) -> str:
    m, h = minute.values, hour.values

    def hours_phrase() -> str:
        if _contiguous(h):
            return f"from {h[0]:02d}:00 to {h[-1]:02d}:{m[-1]:02d}"
        return "in the " + _join([f"{x:02d}:00" for x in h]) + (" hour" if len(h) == 1 else " hours")

    if minute.star or (minute.step and minute.step[1]):
        every = "every minute" if minute.star else f"every {minute.step[0]} minutes"
        if minute.step and len(m) == 1:  # `*/90`: a step longer than the hour is one minute
            every = None
        if every is not None:
            return every if hour.star else f"{every} {hours_phrase()}"
    if len(m) * len(h) <= _MAX_LISTED_TIMES:
        return _join([f"{x:02d}:{y:02d}" for x in h for y in m])
    at = _join([f":{y:02d}" for y in m])
    if hour.star:
        return f"every hour at {at}"
    if hour.step and hour.step[1]:
        return f"every {hour.step[0]} hours at {at}"
    if _contiguous(h):
        return f"every hour at {at} from {h[0]:02d}:00 to {h[-1]:02d}:00"
    return f"at {at} past " + _join([f"{x:02d}" for x in h]) + " hours"


def _dow_part(dow: _Field) -> str:
    w = frozenset(dow.values)
    if w == _WEEKDAYS:
        return "on weekdays"
    if w == _WEEKEND:
        return "on weekends"
    v = dow.values
    if _contiguous(v):
        return f"from {_DAYS[v[0]]} to {_DAYS[v[-1]]}"
    return "on " + _join([_DAYS[x] + "s" for x in v])


def _dom_part(dom: _Field) -> str:
    v = dom.values
    if dom.step and dom.step[1] and len(v) > _MAX_LISTED_TIMES:
        return f"every {dom.step[0]} days of the month from the 1st"
    if _contiguous(v):
        return f"on the {_ordinal(v[0])} to {_ordinal(v[-1])} of the month"
    return "on the " + _join([_ordinal(x) for x in v]) + " of the month"


def _month_part(month: _Field) -> str:
    v = month.values
    if month.star or len(v) == 12:
        return ""
    if _contiguous(v):
        return f" from {_MONTHS[v[0] - 1]} to {_MONTHS[v[-1] - 1]}"
    return " in " + _join([_MONTHS[x - 1] for x in v])


def describe(cron: str, timezone: str | None = None) -> str | None:
    """The schedule in words with its timezone, or None when `cron` is not a valid 5-field
    expression or macro (never raises)."""
    try:
        fields = _fields(cron)
    except Exception:  # noqa: BLE001 -- a hint is optional; a bad one must not break the editor
        return None
    if fields is None:
        return None
    minute, hour, dom, month, dow = fields
    time = _time_part(minute, hour)
    if dom.star and dow.star:
        day = "" if time.startswith("every") else " every day"
    elif dow.star:
        day = " " + _dom_part(dom)
    elif dom.star:
        day = " " + _dow_part(dow)
    elif dom.starred or dow.starred:  # cron ANDs the two when either starts with `*`
        day = f" {_dom_part(dom)}, {_dow_part(dow)} only"
    else:
        day = f" {_dom_part(dom)} or {_dow_part(dow)} (cron's OR rule: either day matches)"
    if dow.star and len(dom.values) == 1 and len(month.values) == 1:
        return _with_zone(f"{time} on {dom.values[0]} {_MONTHS[month.values[0] - 1]}", timezone)
    return _with_zone(time + day + _month_part(month), timezone)


def _with_zone(text: str, timezone) -> str:
    zone = " ".join(timezone.split())[:100] if isinstance(timezone, str) else ""
    if zone:  # whitespace folded: a hint is one line whatever the YAML held
        text += ", " + zone
    return text
