"""The one cron grammar: what `trigger.schedule.cron` accepts, and why.

The manifest model (`check_cron`), the inlay hint (`language/cron.py`) and the JSON Schema
pattern (`cron_pattern.py`) all read these definitions, so the hint, the check and any schema
tool never disagree. The reference is Debian's (Vixie) cron, as cronsim implements it
(tests/reference/test_cron_reference.py compares verdicts and fire times):

- five fields separated by spaces or tabs (crontab's own separators; nothing else, so a value
  with a line break in it is refused), numbers with optional leading zeros, ranges, lists,
  steps, English month and weekday abbreviations (any case), 7 as Sunday;
- the macros Vixie cron has for a schedule (`@daily`, `@hourly`, ...; not `@reboot`, which is
  not a schedule), any case;
- a schedule that can never fire is refused: when the day-of-week field starts with `*`, cron
  ANDs the day of month with it, so `0 0 31 2 *` or `0 0 31 4,6,9,11 *` would wait forever
  (cron's OR rule applies only when neither day field starts with `*`).
Not supported (the engine's cron does not have them): `L`, `W`, `#`, `?`, seconds or years.
"""

from __future__ import annotations

import re

#: (name, lowest, highest, names) of the five fields, in order.
CRON_FIELDS = (
    ("minute", 0, 59, None),
    ("hour", 0, 23, None),
    ("day of month", 1, 31, None),
    ("month", 1, 12, ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]),
    ("day of week", 0, 7, ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]),
)
CRON_ITEM = re.compile(r"(?:(\*)|([0-9a-zA-Z]+)(?:-([0-9a-zA-Z]+))?)(?:/([0-9]+))?")
#: crontab's field separators
CRON_SPACE = " \t"
#: Longer than any sensible expression; the schema says the same (`maxLength`).
MAX_CRON_CHARS = 200

MACROS = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}

#: The longest month each day can fall in (February has a 29th in leap years).
_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


def expand_macro(expr: str) -> str:
    """`@daily` -> `0 0 * * *`; anything else unchanged."""
    return MACROS.get(expr.strip(CRON_SPACE).lower(), expr)


def split_fields(expr: str) -> list[str]:
    """The fields of `expr`, split at spaces and tabs only."""
    text = expr.strip(CRON_SPACE)
    return re.split(r"[ \t]+", text) if text else []


def _number(text: str, name: str, lo: int, hi: int, names) -> int:
    if text.isascii() and text.isdigit():
        n = int(text)
    elif names and text.lower() in names:
        n = names.index(text.lower()) + (1 if name == "month" else 0)
    else:
        raise ValueError(f"cron {name} field has unknown value {text!r}")
    if not lo <= n <= hi:
        raise ValueError(f"cron {name} value {text} is out of range {lo}-{hi}")
    return n


def field_values(text: str, spec) -> set[int]:
    """The values one valid field stands for (7 stays 7 here). Raises ValueError."""
    name, lo, hi, names = spec
    values: set[int] = set()
    for item in text.split(","):
        m = CRON_ITEM.fullmatch(item)
        if not m:
            raise ValueError(f"cron {name} field {text!r} is not valid")
        star, a, b, step = m.groups()
        n = int(step) if step is not None else 1
        if step is not None and n == 0:
            raise ValueError(f"cron {name} step must be at least 1")
        if star:
            start, end = lo, hi
        else:
            start = _number(a, name, lo, hi, names)
            end = _number(b, name, lo, hi, names) if b is not None else (hi if step else start)
            if end < start:
                raise ValueError(f"cron {name} range {a}-{b} runs backwards")
        values.update(range(start, end + 1, n))
    return values


def check_cron(expr: str) -> str:
    """Validate a 5-field cron expression or macro; raise ValueError with a precise message."""
    if len(expr) > MAX_CRON_CHARS:
        raise ValueError(f"cron expression is longer than {MAX_CRON_CHARS} characters")
    text = expand_macro(expr)
    if text.startswith("@") or text.strip(CRON_SPACE).startswith("@"):
        raise ValueError(f"cron macro {expr.strip()!r} is not supported; use one of "
                         + ", ".join(MACROS) + " or five fields")
    bad = re.search(r"[^ \t!-~]", text)
    if bad:
        raise ValueError(f"cron expression holds {bad.group()!r}; fields are separated by spaces")
    fields = split_fields(text)
    if len(fields) != 5:
        raise ValueError(
            f"cron needs 5 fields (minute hour day-of-month month day-of-week), got {len(fields)}"
        )
    days, months = (field_values(t, spec) for t, spec in zip(fields[2:4], CRON_FIELDS[2:4], strict=True))
    for t, spec in zip(fields, CRON_FIELDS, strict=True):
        field_values(t, spec)
    if fields[4].startswith("*") and not any(d <= _MONTH_DAYS[m - 1] for d in days for m in months):
        listed = ", ".join(_MONTHS[m - 1] for m in sorted(months))
        raise ValueError(f"cron schedule never fires: day {', '.join(map(str, sorted(days)))} "
                         f"never occurs in {listed}")
    return expr
