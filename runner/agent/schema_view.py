"""The manifest's schema as an assistant reads it: the authoring view the `schema` tool returns,
generated from the full JSON Schema (runner/schema.py, itself generated from the model), so it
cannot drift from what `check` enforces. The full schema stays the `stepsmith://schema`
resource.

What the view changes, mechanically:
- a pattern is given in words (its error message, or the grammar's rule for that pattern) with
  the field's examples; the regex itself stays only when it is short once the spelled-out
  whitespace class reads `\\s` and the end anchor `$` (the cron pattern, 32 KB, does not);
- the time zone list (about 600 names) becomes a reference to `stepsmith://timezones`;
- editor-only keys go (markdownDescription, snippets, titles, patternErrorMessage), and the
  editor snippet of a whole manifest becomes one `example` with its placeholders filled in.
"""

from __future__ import annotations

import re
from typing import Any

from stepsmith.runner.model import grammar as g
from stepsmith.runner.model.grammar import WHITESPACE_CLASS

MAX_PATTERN = 120  # a regex longer than this (once simplified) is given in words only
DROP = {"markdownDescription", "defaultSnippets", "title", "patternErrorMessage", "$id",
        "$schema", "markdownEnumDescriptions"}
ZONES_RESOURCE = "stepsmith://timezones"


def _words_of_grammar() -> dict[str, str]:
    return {g.SLUG_PATTERN: g.SLUG_RULE, g.NAME_PATTERN: g.NAME_RULE,
            g.CASE_PATTERN: g.CASE_RULE}


def simplified(pattern: str) -> str:
    """The same regex as a reader would write it: `$` for the strict end anchor, `\\s` for
    the spelled-out whitespace class (runner/model/grammar.WHITESPACE_CLASS)."""

    return pattern.replace("(?![\\s\\S])", "$").replace(WHITESPACE_CLASS, "\\s")


def _node(node: Any, words: dict[str, str]) -> Any:
    if isinstance(node, list):
        return [_node(x, words) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k in DROP:
            continue
        if k == "pattern" and isinstance(v, str):
            short = simplified(v)
            said = node.get("patternErrorMessage") or words.get(short)
            if said:
                out["pattern_in_words"] = said
            if len(short) <= MAX_PATTERN:
                out["pattern"] = short
            elif not said:
                out["pattern_in_words"] = f"see {'stepsmith://schema'} for the exact pattern"
            continue
        out[k] = _node(v, words)
    return out


def _filled(snippet: Any) -> Any:
    """An editor snippet body with its `${1:default}` placeholders replaced by the defaults."""
    if isinstance(snippet, dict):
        return {k: _filled(v) for k, v in snippet.items()}
    if isinstance(snippet, list):
        return [_filled(v) for v in snippet]
    if isinstance(snippet, str):
        text = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", snippet)
        return text if text != snippet or not re.fullmatch(r"\$\d+", snippet) else ""
    return snippet


def _is_zone_list(node: Any) -> bool:
    return isinstance(node, dict) and isinstance(node.get("enum"), list) and \
        len(node["enum"]) > 100 and "Europe/London" in node["enum"]


def authoring_view(full: dict) -> dict:
    """The view of `full` (the manifest's JSON Schema)."""
    words = _words_of_grammar()
    defs = dict(full.get("$defs", {}))
    for name, d in defs.items():
        if _is_zone_list(d):
            defs[name] = {"type": "string", "description": (
                f"an IANA time zone name, e.g. Europe/London or America/New_York ("
                f"{len(d['enum'])} names: the resource {ZONES_RESOURCE} lists them)")}
    view = _node({**full, "$defs": defs}, words)
    view["description"] = (full.get("description", "") + " This is the authoring view: "
                           "patterns in words; the exact JSON Schema is the resource "
                           "stepsmith://schema.").strip()
    snippets = full.get("defaultSnippets") or []
    if snippets and isinstance(snippets[0], dict) and "body" in snippets[0]:
        view["example"] = _filled(snippets[0]["body"])
    return view


def zone_names(full: dict) -> list[str]:
    """The time zone names the full schema accepts (the `stepsmith://timezones` resource)."""
    for d in full.get("$defs", {}).values():
        if _is_zone_list(d):
            return list(d["enum"])
    return []
