"""`stepsmith mutants --output-format github|sarif`: survivors where CI shows them, as notes
(never errors: a survivor is a question about the fixtures, not a fault in the code).

Built on `check --output-format`'s pieces (runner/cli/check_formats.py): the GitHub
workflow-command escaping and the SARIF schema; columns printed 1-based in code points, as
there.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from stepsmith.runner.cli.check_formats import SARIF_SCHEMA, _gh_data, _gh_prop, sarif_location
from stepsmith.runner.mutants.operators import BY_NAME

from stepsmith import __version__


def render(fmt: str, report) -> str:
    survivors = [m for m in report.ordered() if m.status == "survived"]
    if fmt == "github":
        return render_github(survivors)

    return render_sarif(survivors, version=__version__)


def render_github(survivors) -> str:
    out = []
    for m in survivors:
        props = (f"file={_gh_prop(m.path.replace(chr(92), '/'))},line={m.line},"
                 f"col={m.column + 1},endLine={m.end_line},endColumn={m.end_column + 1},"
                 f"title={_gh_prop('surviving mutant (' + m.operator + ')')}")
        out.append(f"::notice {props}::{_gh_data(m.message())}\n")
    return "".join(out)


def _fingerprint(m) -> str:
    """Stable across unrelated edits: file, operator, the change and its steps (no line)."""
    raw = "\0".join((m.path, m.operator, m.original, m.replacement, ",".join(m.steps)))
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def render_sarif(survivors, *, version: str) -> str:
    names = sorted({m.operator for m in survivors})
    index = {n: i for i, n in enumerate(names)}
    rules = [{"id": f"mutant/{n}", "name": f"surviving-{n}-mutant",
              "shortDescription": {"text": f"no fixture notices a change: {BY_NAME[n].changes}"
                                   if n in BY_NAME else n},
              "defaultConfiguration": {"level": "note"},
              "properties": {"tags": ["fixture-strength"]}} for n in names]
    results = [{
        "ruleId": f"mutant/{m.operator}", "ruleIndex": index[m.operator], "level": "note",
        "message": {"text": m.message()},
        "locations": [{"physicalLocation": {
            "artifactLocation": sarif_location(m.path),
            "region": {"startLine": m.line, "startColumn": m.column + 1,
                       "endLine": m.end_line, "endColumn": m.end_column + 1}}}],
        "partialFingerprints": {"stepsmith-mutant/v1": _fingerprint(m)},
        "properties": {"steps": m.steps, "fixtures_run": m.fixtures_run},
    } for m in survivors]
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "stepsmith mutants", "version": version, "rules": rules}},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints", "results": results}]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
