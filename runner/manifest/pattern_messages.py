"""What a value refused by a schema pattern should have been, in the author's words (a slug,
a name, a code reference...), by where it stands in the manifest."""

from __future__ import annotations

from typing import Any

from stepsmith.runner.model.grammar import NAME_RULE, SLUG_RULE


def pattern_message(loc: tuple, value: Any) -> str:
    is_key = loc and loc[-1] == "[key]"
    core = [p for p in loc if p != "[key]"]
    field_name = next((p for p in reversed(core) if isinstance(p, str)), "value")
    if is_key:
        container = core[-2] if len(core) >= 2 else field_name
        if container == "inputs":
            return f"input name {value!r} must be a Python identifier"
        noun = {"connections": "connection alias", "sources": "source name", "effects": "effect name"}.get(
            str(container), "name"
        )
        return f"{noun} {value!r} must be {NAME_RULE}"
    last = core[-1] if core else None
    if isinstance(last, int):  # list items: step connections / effects
        noun = "connection alias" if field_name == "connections" else "effect name"
        return f"{noun} {value!r} must be {NAME_RULE}"
    if field_name in ("id", "workflow"):
        what = "step id" if field_name == "id" else "workflow slug"
        return f"{what} {value!r} must be {SLUG_RULE}"
    if field_name == "code":
        return f"code {value!r} must look like 'steps/file.py:function'"
    if field_name == "python":
        return (f'python must be a version string like "3.11" (any 3.11 release) or "3.11.7" '
                f'(that release), got {value!r}')
    if field_name == "connection":
        return f"connection alias {value!r} must be {NAME_RULE}"
    if field_name == "key":
        return f"effect key {value!r} must be a payload field name (a Python identifier)"
    if field_name == "name":
        return f"event name {value!r} must be lowercase letters, digits, '.', '-' or '_'"
    return f"{field_name} {value!r} is not valid"
