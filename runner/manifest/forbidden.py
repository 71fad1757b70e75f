"""Forbidden field names (secret, credentials, api_key, token): the name test, the deep search."""

from __future__ import annotations

from typing import Any

FORBIDDEN_WORDS = ("secret", "credential", "apikey", "token")  # each also with a final `s`
FORBIDDEN_FIELD_NAMES = frozenset(w + s for w in FORBIDDEN_WORDS for s in ("", "s"))
_IGNORED = "-_ "  # dropped before comparing
#: Characters outside ASCII whose `str.lower()` is an ASCII letter (the Kelvin sign is `k`):
#: tests/manifest recomputes it over all of Unicode.
LOWERS_TO_ASCII = {"k": "\u212a"}


def is_forbidden_field(name: Any) -> bool:
    """`secret`, `credentials`, `api_key`, `token` (and singular/plural forms), compared
    case-insensitively with `-`, `_` and spaces ignored: `API_KEY`, `apiKey`, `api-key` match;
    `token_count` or `access_token` do not (a whole field name must match)."""
    if not isinstance(name, str):
        return False
    norm = name.lower().replace("_", "").replace("-", "").replace(" ", "")
    return norm in FORBIDDEN_FIELD_NAMES


def forbidden_name_pattern() -> str:
    """`is_forbidden_field` as a regular expression for the JSON Schema (ECMAScript and Python
    read it alike: character classes instead of a case-insensitive flag)."""
    sep = "[" + _IGNORED.replace("-", "\\-") + "]*"

    def cls(ch: str) -> str:
        return "[" + ch + ch.upper() + LOWERS_TO_ASCII.get(ch, "") + "]"

    words = "|".join("".join(cls(c) + sep for c in w) for w in FORBIDDEN_WORDS)
    return f"^{sep}(?:{words})(?:{cls('s')}{sep})?$"


def find_forbidden_fields(value: Any) -> list[tuple]:
    """Paths (tuples of keys / list indices) to every mapping key in `value`, at any depth,
    whose name is forbidden in stored inputs. Iterative: any depth, no recursion limit.
    Usable on fixtures and recorded inputs as well as manifest literals."""
    found: list[tuple] = []
    # paths as linked (parent, key) cells: O(1) per step, a tuple only for each hit
    stack: list[tuple[Any, Any]] = [(None, value)]
    seen: set[int] = set()

    def materialise(cell) -> tuple:
        parts = []
        while cell is not None:
            cell, key = cell
            parts.append(key)
        return tuple(reversed(parts))

    while stack:
        cell, v = stack.pop()
        if isinstance(v, dict):
            if id(v) in seen:
                continue
            seen.add(id(v))
            children = []
            for k, child in v.items():
                sub = (cell, k)
                if is_forbidden_field(k):
                    found.append(materialise(sub))
                children.append((sub, child))
            stack.extend(reversed(children))
        elif isinstance(v, (list, tuple)):
            if id(v) in seen:
                continue
            seen.add(id(v))
            stack.extend(reversed([((cell, i), c) for i, c in enumerate(v)]))
    return found
