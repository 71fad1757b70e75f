"""Canonical JSON and the request hash that identifies an accepted result.

The request of a step invocation is::

    {"code_hash": sha256(step file source, UTF-8), "function": name,
     "inputs": {...}, "evaluation_time": "ISO 8601" | None, "seed": int | None}

and its identity is the SHA-256 of its canonical JSON: keys sorted, no insignificant
whitespace (``separators=(",", ":")``), ``ensure_ascii=False``, encoded UTF-8.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

REQUEST_FIELDS = ("code_hash", "function", "inputs", "evaluation_time", "seed")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def sha256_text(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def code_hash(source: str | bytes) -> str:
    """SHA-256 of a step file's source (the exact bytes on disk, or the str as UTF-8)."""
    return sha256_text(source)


def build_request(*, source: str | bytes, function: str, inputs: Any,
                  evaluation_time: str | None, seed: int | None,
                  timezone: str | None = None) -> dict:
    """`timezone`: the workflow's clock timezone; a naive now() depends on it. Absent for
    UTC, so requests (and their hashes) of workflows that never set one are unchanged."""
    req = {
        "code_hash": code_hash(source),
        "function": function,
        "inputs": inputs,
        "evaluation_time": evaluation_time,
        "seed": seed,
    }
    if timezone and timezone != "UTC":
        req["timezone"] = timezone
    return req


def request_sha256(request: dict) -> str:
    fields = {k: request.get(k) for k in REQUEST_FIELDS}
    if request.get("timezone"):
        fields["timezone"] = request["timezone"]
    return sha256_text(canonical_json(fields))


def request_differences(stored: dict, fresh: dict) -> list[str]:
    """Which request fields differ, in words (for the loud failure)."""
    out = []
    for key in (*REQUEST_FIELDS, "timezone"):
        a, b = stored.get(key), fresh.get(key)
        if canonical_json(a) == canonical_json(b):
            continue
        if key == "inputs" and isinstance(a, dict) and isinstance(b, dict):
            names = sorted(set(a) | set(b))
            changed = [n for n in names
                       if canonical_json(a.get(n, None)) != canonical_json(b.get(n, None))
                       or (n in a) != (n in b)]
            out.append("inputs differ (" + ", ".join(changed) + ")")
        elif key == "code_hash":
            out.append("the step's code changed")  # its hashes say nothing to an author
        else:
            out.append(f"{key} differs (stored {canonical_json(a)}, now {canonical_json(b)})")
    return out
