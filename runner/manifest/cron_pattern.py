"""`check_cron` as one regular expression, for the JSON Schema (`trigger.schedule.cron`).

A JSON Schema tool (yaml-language-server, jsonschema, ...) cannot run our Python check, so the
schema carries this pattern, built from the same grammar (`cron.py`): every field's values and
names, ranges that run forwards only, steps of at least 1, the macros, and a look-ahead that
refuses schedules that never fire. Written in the regex subset ECMAScript and Python read alike
(no `\\s`, no `$`, no inline flags: names list both cases of every letter).
tests/reference/test_cron_reference.py checks it against `check_cron` on generated
expressions; test_schema_model_agreement.py reads it in node too.
"""

from __future__ import annotations

from functools import cache

from .cron import _MONTH_DAYS, CRON_FIELDS, MACROS

_SP = "[ \\t]"
_END = "(?![\\s\\S])"  # the end of the text in both dialects (Python's `$` allows a final \n)
_STEP = "/0*[1-9][0-9]*"


def _any_case(word: str) -> str:
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)


def _digits_from(lo: int, hi: int) -> str:
    """Decimal numbers lo..hi (no leading zeros; the caller adds `0*`)."""
    alts = []
    for tens in range(lo // 10, hi // 10 + 1):
        a = max(lo, tens * 10) % 10
        b = min(hi, tens * 10 + 9) % 10
        digit = str(a) if a == b else f"[{a}-{b}]"
        alts.append(digit if tens == 0 else f"{tens}{digit}")
    return "|".join(alts)


def _num(lo: int, hi: int) -> str:
    return f"0*(?:{_digits_from(lo, hi)})"


def _value(v: int, spec) -> str:
    name, _lo, _hi, names = spec
    alts = [_num(v, v)]
    if names:
        i = v - 1 if name == "month" else v
        if 0 <= i < len(names):
            alts.append(_any_case(names[i]))
    return "(?:" + "|".join(alts) + ")"


def _range(spec) -> str:
    _name, lo, hi, names = spec
    if names:  # small fields: every forward pair, names or numbers on either side
        parts = []
        for a in range(lo, hi + 1):
            ends = "|".join(_value(b, spec) for b in range(a, hi + 1))
            parts.append(f"{_value(a, spec)}-(?:{ends})")
        return "(?:" + "|".join(parts) + ")"
    return "(?:" + "|".join(f"{_num(a, a)}-{_num(a, hi)}" for a in range(lo, hi + 1)) + ")"


def _field(spec) -> str:
    _name, lo, hi, names = spec
    value = _num(lo, hi) if not names else "(?:" + "|".join(_value(v, spec) for v in range(lo, hi + 1)) + ")"
    item = f"(?:\\*(?:{_STEP})?|{_range(spec)}(?:{_STEP})?|{value}(?:{_STEP})?)"
    return f"{item}(?:,{item})*"


def _steps_regex(ok: set[int], big_ok: bool, span: int) -> str:
    """Step numbers N (leading zeros allowed) with N in `ok`, or N > span when `big_ok`."""
    alts = [str(n) for n in sorted(ok)]
    if big_ok:
        alts.append(f"(?:{_digits_from(span + 1, 99)}|[1-9][0-9]{{2,}})")
    return "/0*(?:" + "|".join(alts) + ")" if alts else ""


def _subset_items(spec, allowed: frozenset[int]) -> str:
    """Items of a field whose values all lie in `allowed` (a `*` item never does here): `a`,
    `a/N` (a to the field's end), `a-b`, `a-b/N`, each with the steps N that keep it inside."""
    _name, _lo, hi, _names = spec
    span = hi - _lo

    def steps_of(a: int, end: int) -> str:
        ok = {n for n in range(1, span + 1) if set(range(a, end + 1, n)) <= allowed}
        return _steps_regex(ok, True, span)  # a step past the end leaves `a` alone

    alts = []
    for a in sorted(allowed):
        alts.append(f"{_value(a, spec)}(?:{steps_of(a, hi)})?")
        groups: dict[tuple[bool, str], list[int]] = {}
        for b in range(a, hi + 1):
            plain = set(range(a, b + 1)) <= allowed
            groups.setdefault((plain, steps_of(a, b)), []).append(b)
        for (plain, steps), ends in groups.items():
            ends_rx = "(?:" + "|".join(_value(b, spec) for b in ends) + ")"
            alts.append(f"{_value(a, spec)}-{ends_rx}" + (f"(?:{steps})?" if plain else steps))
    item = "(?:" + "|".join(alts) + ")"
    return f"{item}(?:,{item})*"


@cache
def cron_pattern() -> str:
    """The pattern: a macro, or five valid fields that can fire."""
    dom, month = CRON_FIELDS[2], CRON_FIELDS[3]
    short = frozenset(m for m in range(1, 13) if _MONTH_DAYS[m - 1] < 31)
    never = (f"{_SP}*[^ \\t]+{_SP}+[^ \\t]+{_SP}+"
             f"(?:{_subset_items(dom, frozenset({31}))}{_SP}+{_subset_items(month, short)}"
             f"|{_subset_items(dom, frozenset({30, 31}))}{_SP}+{_subset_items(month, frozenset({2}))})"
             f"{_SP}+\\*[^ \\t]*{_SP}*{_END}")
    fields = f"{_SP}+".join(f"(?:{_field(spec)})" for spec in CRON_FIELDS)
    macros = "|".join(_any_case(m) for m in sorted(MACROS))
    return f"^(?:{_SP}*(?:{macros}){_SP}*|(?!{never}){_SP}*{fields}{_SP}*){_END}"
