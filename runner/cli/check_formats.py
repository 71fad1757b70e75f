"""`stepsmith check --output-format`: the renderers of a `CheckReport` (runner/app/check.py),
one per format name in `OUTPUT_FORMATS` (as ruff's `OutputFormat`): full / concise (terminal),
json / json-lines (programs), github (workflow commands), gitlab (Code Quality report), sarif
(2.1.0, for code scanning), junit (test reports).

Every renderer takes the same `View` (the report's findings as shown rows) and `Options`, and
returns the whole document as text, so each format is a pure function tested field by field.
Positions: `Problem` columns are 0-based code points; every format here prints 1-based columns
(SARIF says `columnKind: unicodeCodePoints`, so no UTF-16 conversion is implied).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    path: str  # as shown (relative to the current folder when inside it), "/" separated
    problem: object  # stepsmith.runner.problems.Problem

    @property
    def uri(self) -> str:
        """The path with "/" separators: only the system's own separator is one (a backslash
        in a POSIX name is part of the name)."""
        return self.path.replace(os.sep, "/")


@dataclass(frozen=True)
class View:
    """A report as the formats show it: `rows` (shown path, problem, the step ids running
    it) of the files with findings, by shown path and position; `stale` (the SF001
    warnings); `files`, the shown paths of every file checked."""

    rows: list[tuple[str, object, list[str]]]
    stale: list
    files: list[str]

    @classmethod
    def of(cls, report, shown: Callable) -> View:
        """`shown(path) -> str`: how a path is printed (relative to the current folder)."""
        rows = []
        if any(report.problems.values()):  # (not needed by a clean tree)
            from stepsmith.runner.problem_steps import steps_for
        for path in sorted((p for p, probs in report.problems.items() if probs), key=shown):
            name = shown(path)
            for pr in sorted(report.problems[path],
                             key=lambda p: (p.span.line, p.span.column, p.code)):
                rows.append((name, pr, steps_for(pr, path, report.steps_of)))
        stale = report.stale if report.problems else []
        return cls(rows, stale, sorted({shown(p) for p in report.problems}))

    @property
    def findings(self) -> list[Finding]:
        """Every finding, the stale fixtures last (`--strict` fails on them: a format that
        left them out would pass what the exit status fails)."""
        return ([Finding(shown, pr) for shown, pr, _steps in self.rows]
                + [Finding(w.fixture, w.problem()) for w in self.stale])


@dataclass(frozen=True)
class Options:
    strict: bool = False  # the stale fixtures are errors
    unsafe: bool = False  # --unsafe-fixes: the closing hint counts the guesses as taken
    fixed: int = 0  # findings `--fix` fixed before this check
    version: str = ""  # stepsmith's, for SARIF's driver


def _rule(code: str):
    from stepsmith.runner import rules

    try:
        return rules.get(code)
    except KeyError:
        return None


def rule_url(code: str) -> str | None:
    from stepsmith.runner.rules import rule_url as url

    return url(code)


def _level(problem) -> str:
    return "warning" if problem.severity == "warning" else "error"


def _end(problem) -> tuple[int, int]:
    s = problem.span
    return s.end_line, s.end_column + 1


def problem_json(f: Finding) -> dict:
    d = f.problem.to_json()
    d["path"] = f.path
    d["url"] = rule_url(f.problem.code)
    return d


# --- full (the default) and json -----------------------------------------------------------
def render_full(view: View, opts: Options) -> str:
    """ruff's `full`: one line per finding with the step ids running it, the stale fixtures,
    the count and how many `--fix` would take care of."""
    from stepsmith.runner.problem_steps import message_with_step

    out = [f"{shown}:{pr.span.line}:{pr.span.column + 1}: {pr.code} "
           f"{message_with_step(pr, steps)}\n" for shown, pr, steps in view.rows]
    out += [f"{w.fixture}: {'error' if opts.strict else 'warning'}: {w.message}\n"
            for w in view.stale]
    n, n_fixed = len(view.rows), opts.fixed
    n_files = len({row[0] for row in view.rows})
    if n:
        noun = "problem" if n + n_fixed == 1 else "problems"  # all that were found
        fnoun = "file" if n_files == 1 else "files"
        out.append(f"Found {n + n_fixed} {noun} in {n_files} {fnoun} ({n_fixed} fixed, {n} "
                   "remaining).\n" if n_fixed else f"Found {n} {noun} in {n_files} {fnoun}.\n")
        out.append(_fixable_hint([row[1] for row in view.rows], unsafe=opts.unsafe))
    elif n_fixed:
        out.append(f"Found {n_fixed} problem(s) ({n_fixed} fixed, 0 remaining).\n")
    else:
        out.append("All checks passed!\n")
    return "".join(out)


def _fixable_hint(problems, *, unsafe: bool) -> str:
    """ruff's closing hint: how many of the findings `--fix` would take care of."""
    from stepsmith.runner.fixes import fix_of

    fixes = [fix_of(p) for p in problems]
    safe = sum(1 for f in fixes if f is not None and f.safe)
    n_unsafe = sum(1 for f in fixes if f is not None and not f.safe)
    if safe:
        return (f"[*] {safe} fixable with the `--fix` option"
                + (f" ({n_unsafe} more with `--unsafe-fixes`).\n" if n_unsafe else ".\n"))
    if n_unsafe and not unsafe:
        return f"{n_unsafe} fix(es) available with `--fix --unsafe-fixes`.\n"
    return ""


def render_json(view: View, opts: Options) -> str:
    """The problems as the internal contract defines them, the stale fixtures apart."""
    doc = {"problems": [problem_json(Finding(shown, pr)) for shown, pr, _steps in view.rows],
           "files_checked": len(view.files),
           "files_with_problems": len({row[0] for row in view.rows}),
           "warnings": [w.to_json() for w in view.stale]}
    return json.dumps(doc, indent=2) + "\n"


def render_concise(findings: list[Finding]) -> str:
    return "".join(f"{f.path}:{f.problem.span.line}:{f.problem.span.column + 1}: "
                   f"{f.problem.code} {f.problem.message}\n" for f in findings)


def render_json_lines(findings: list[Finding]) -> str:
    return "".join(json.dumps(problem_json(f), ensure_ascii=False) + "\n" for f in findings)


# --- GitHub Actions workflow commands -------------------------------------------------------
def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: list[Finding]) -> str:
    out = []
    for f in findings:
        p, s = f.problem, f.problem.span
        end_line, end_col = _end(p)
        props = (f"file={_gh_prop(f.uri)},line={s.line},col={s.column + 1},"
                 f"endLine={end_line},endColumn={end_col},title={_gh_prop(p.code)}")
        out.append(f"::{_level(p)} {props}::{_gh_data(f'{p.code} {p.message}')}\n")
    return "".join(out)


# --- fingerprints -------------------------------------------------------------------------
def fingerprints(findings: list[Finding]) -> list[str]:
    """Stable per finding across unrelated edits: rule, file, step and message (not the line),
    plus an occurrence count for identical findings in one file (as ruff does)."""
    seen: Counter = Counter()
    out = []
    for f in findings:
        p = f.problem
        key = (f.uri, p.code, p.step or "", p.message)
        seen[key] += 1
        raw = "\0".join((*key, str(seen[key])))
        out.append(hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest())
    return out


# --- GitLab Code Quality --------------------------------------------------------------------
def render_gitlab(findings: list[Finding]) -> str:
    report = []
    for f, fp in zip(findings, fingerprints(findings)):
        p, s = f.problem, f.problem.span
        rule = _rule(p.code)
        severity = ("minor" if _level(p) == "warning"
                    else "critical" if rule is not None and rule.security else "major")
        end_line, end_col = _end(p)
        report.append({
            "description": f"{p.code} {p.message}",
            "check_name": p.code,
            "fingerprint": fp,
            "severity": severity,
            "categories": ["Security"] if rule is not None and rule.security else ["Style"],
            "location": {"path": f.uri,
                         "positions": {"begin": {"line": s.line, "column": s.column + 1},
                                       "end": {"line": end_line, "column": end_col}}},
        })
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


# --- SARIF 2.1.0 ----------------------------------------------------------------------------
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _sarif_rule(code: str) -> dict:
    """The rule with its help embedded: a `file://` help link would name a file on the CI
    host, which the reader of a code-scanning alert cannot open."""
    from stepsmith.runner.rules.pages import page, text

    rule = _rule(code)
    if rule is None:
        return {"id": code}
    props: dict = {"tags": ["security"] if rule.security else ["correctness"]}
    if rule.security:
        props["security-severity"] = "8.0" if code.startswith(("SS1", "SS2", "SS3")) else "5.0"
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": text(rule), "markdown": page(rule, index_link=False)},
        "defaultConfiguration": {"level": "error"},
        "properties": props,
    }


def sarif_location(path: str) -> dict:
    """`artifactLocation` of a shown path: a relative one as a percent-encoded relative
    reference under %SRCROOT% (the current folder; a raw path is not a URI: GitHub decodes
    `pct%41` as `pctA`), an absolute one as its `file` URI."""
    from pathlib import PurePosixPath
    from urllib.parse import quote

    if PurePosixPath(path).is_absolute():
        return {"uri": PurePosixPath(path).as_uri()}
    # quote() with only "/" safe: `:` in a first segment would read as a scheme
    return {"uri": quote(path, safe="/"), "uriBaseId": "%SRCROOT%"}


def render_sarif(findings: list[Finding], *, version: str) -> str:
    codes = sorted({f.problem.code for f in findings})
    index = {c: i for i, c in enumerate(codes)}
    results = []
    for f, fp in zip(findings, fingerprints(findings)):
        p, s = f.problem, f.problem.span
        end_line, end_col = _end(p)
        results.append({
            "ruleId": p.code,
            "ruleIndex": index[p.code],
            "level": _level(p),
            "message": {"text": p.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": sarif_location(f.uri),
                "region": {"startLine": s.line, "startColumn": s.column + 1,
                           "endLine": end_line, "endColumn": end_col}}}],
            "partialFingerprints": {"stepsmith/v1": fp},
            **({"properties": {"step": p.step}} if p.step else {}),
        })
    from pathlib import Path

    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "stepsmith", "version": version,
                                "rules": [_sarif_rule(c) for c in codes]}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# --- JUnit XML ----------------------------------------------------------------------------
def _xml_text(text: str) -> str:
    """XML 1.0 allows neither most C0 controls nor lone surrogates, escaped or not: show them."""
    out = []
    for ch in text:
        o = ord(ch)
        if (o < 0x20 and ch not in "\t\n\r") or 0xD800 <= o <= 0xDFFF or o in (0xFFFE, 0xFFFF):
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}")
        else:
            out.append(ch)
    return "".join(out)


def render_junit(findings: list[Finding], files: list[str]) -> str:
    """One suite per checked file, one failing case per finding (a clean file: one passing
    case), as Jenkins' junit-10.xsd has it (what Jenkins and GitLab read): every count is the
    number of elements it counts, suites carry `errors`, cases no `file`/`line` (pytest's
    default xunit2 family leaves them out too: the position is in the case's name)."""
    from xml.etree import ElementTree as ET

    by_file: dict[str, list[Finding]] = {path: [] for path in files}
    for f in findings:
        by_file.setdefault(f.path, []).append(f)
    n_cases = sum(max(1, len(items)) for items in by_file.values())
    root = ET.Element("testsuites", name="stepsmith check", tests=str(n_cases),
                      failures=str(len(findings)), errors="0")
    for path, items in by_file.items():
        suite = ET.SubElement(root, "testsuite", name=_xml_text(path),
                              tests=str(max(1, len(items))), failures=str(len(items)),
                              errors="0")
        if not items:
            ET.SubElement(suite, "testcase", name="no problems", classname=_xml_text(path))
        for f in items:
            p, s = f.problem, f.problem.span
            case = ET.SubElement(suite, "testcase", classname=_xml_text(path),
                                 name=_xml_text(f"{p.code} at {s.line}:{s.column + 1}"))
            fail = ET.SubElement(case, "failure", message=_xml_text(f"{p.code} {p.message}"),
                                 type=p.code)
            fail.text = _xml_text(f"{path}:{s.line}:{s.column + 1}: {p.code} {p.message}"
                                  + (f" [{p.step}]" if p.step else ""))
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


# --- statistics ---------------------------------------------------------------------------
def statistics(findings: list[Finding]) -> list[dict]:
    """Counts per rule, most frequent first (as `ruff check --statistics`)."""
    from stepsmith.runner.fixes import fix_of

    counts = Counter(f.problem.code for f in findings)
    fixable = {f.problem.code for f in findings if fix_of(f.problem) is not None}
    out = []
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        rule = _rule(code)
        out.append({"code": code, "name": rule.name if rule else "", "count": n,
                    "fixable": code in fixable, "url": rule_url(code)})
    return out


def render_statistics(stats: list[dict]) -> str:
    width = max((len(str(s["count"])) for s in stats), default=1)
    return "".join(f"{s['count']:>{width}}\t{s['code']}\t{'[*] ' if s['fixable'] else '    '}"
                   f"{s['name']}\n" for s in stats)


# --- the registry -----------------------------------------------------------------------------
Renderer = Callable[[View, Options], str]

OUTPUT_FORMATS: dict[str, Renderer] = {
    "full": render_full,
    "concise": lambda v, o: render_concise(v.findings),
    "json": render_json,
    "json-lines": lambda v, o: render_json_lines(v.findings),
    "github": lambda v, o: render_github(v.findings),
    "gitlab": lambda v, o: render_gitlab(v.findings),
    "sarif": lambda v, o: render_sarif(v.findings, version=o.version),
    "junit": lambda v, o: render_junit(v.findings, v.files),
}
ALIASES = {"text": "full"}
# written as JSON escapes (the same value); the others with visible escapes (display_text)
JSON_FORMATS = frozenset({"json", "json-lines", "gitlab", "sarif"})
