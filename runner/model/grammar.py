"""The one grammar of a workflow's names: slugs and step ids, case names, manifest file names,
input-reference prefixes and the modules a step may import.

Plain Python (no pydantic): the pytest plugin and the CLI import it at start-up. The manifest
model, the fixture loader, the language services and (through the generated
`vscode-extension/src/generated/grammar.json`, see `export.py`) the TypeScript client all read
these definitions; nothing else spells them. Patterns are written in the subset Python `re`,
pydantic's Rust regex and JavaScript `RegExp` read alike.
"""

from __future__ import annotations

import re

#: Workflow slugs and step ids.
SLUG_PATTERN = r"^[a-z][a-z0-9_-]*$"
SLUG_RULE = "lowercase letters, digits, '-' or '_', starting with a letter"
#: Connection aliases, source and effect names.
NAME_PATTERN = r"^[a-z][a-z0-9_]*$"
NAME_RULE = "lowercase letters, digits or '_', starting with a letter"
#: Input (parameter) names and effect key fields: Python identifiers, ASCII.
PARAM_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
#: Parameters a step function may take beyond its inputs; no input may be named so.
RESERVED_PARAMETERS = ("connections", "effects")
#: What an effect is performed on: exactly one of these fields of its declaration.
EFFECT_TARGETS = ("connection", "channel")
#: Whitespace by any of Python's `str.isspace`, Unicode's White_Space (pydantic's Rust regex)
#: and ECMAScript's `\s` (which alone counts U+FEFF): spelled out, since `\s` differs among them.
WHITESPACE_CLASS = (r"\u0009-\u000d\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029"
                    r"\u202f\u205f\u3000\ufeff")
#: `code:` as the schema accepts it; `refs.CodeRef` parses it.
CODE_PATTERN = r"^[^:" + WHITESPACE_CLASS + r"][^:]*\.py:[A-Za-z_][A-Za-z0-9_]*$"
PYTHON_PATTERN = r"^3\.[0-9]{1,2}(\.[0-9]{1,3})?$"  # "3.13": any 3.13.x; "3.13.5": that one
EVENT_PATTERN = r"^[a-z][a-z0-9_.-]*$"
#: Fixture case names (`fixtures/<step>/<case>.json`, `fixtures/_workflow/<case>.json`):
#: a file name without a folder, so it can never climb out (`..` cannot start it).
CASE_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,99}$"
CASE_RULE = "lowercase letters, digits, '.', '-' or '_', starting with a letter or digit " \
    "(at most 100)"

SLUG_RE = re.compile(SLUG_PATTERN)
NAME_RE = re.compile(NAME_PATTERN)
CASE_RE = re.compile(CASE_PATTERN)
PYTHON_RE = re.compile(PYTHON_PATTERN)


def is_slug(text: object) -> bool:
    """A workflow slug or step id."""
    return isinstance(text, str) and SLUG_RE.fullmatch(text) is not None


is_step_id = is_slug


def is_name(text: object) -> bool:
    """A connection alias, source or effect name."""
    return isinstance(text, str) and NAME_RE.fullmatch(text) is not None


def is_case_name(text: object) -> bool:
    return isinstance(text, str) and CASE_RE.fullmatch(text) is not None


def is_python_pin(text: object) -> bool:
    """A `python:` pin: "3.13" (any 3.13.x) or "3.13.5" (that release only)."""
    return isinstance(text, str) and PYTHON_RE.fullmatch(text) is not None


# ------------------------------------------------------------------------- manifest files

MANIFEST_NAME = "workflow.yaml"
MANIFEST_SUFFIX = ".workflow.yaml"
#: For file watchers and activation events (VS Code, LSP `didChangeWatchedFiles`).
MANIFEST_GLOBS = ("**/" + MANIFEST_NAME, "**/*" + MANIFEST_SUFFIX)


def is_manifest_name(name: str) -> bool:
    """`workflow.yaml` or `<something>.workflow.yaml` (a bare `.workflow.yaml` is not one)."""
    return name == MANIFEST_NAME or (name.endswith(MANIFEST_SUFFIX)
                                     and len(name) > len(MANIFEST_SUFFIX))


# ---------------------------------------------------------------- input-reference prefixes

#: `sources.<name>`: a string input starting with this is a source reference.
SOURCE_PREFIX = "sources."
#: `steps.<id>.output`: a string input starting with STEP_PREFIX is a step reference.
STEP_PREFIX = "steps."
STEP_SUFFIX = ".output"

FIXTURES_DIR = "fixtures"
WORKFLOW_CASES_DIR = "_workflow"  # fixtures/_workflow/<case>.json
