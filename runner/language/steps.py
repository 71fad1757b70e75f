"""Language-service logic for step files: symbols, completion, hover helpers, quick fixes.

Pure functions over the text. Positions: 1-based lines, 0-based code-point columns.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from stepsmith.runner.problems import Problem, Span

from .lines import function_spans, split_lines
from .manifest import Completion, Symbol

ALLOWED_MODULES = ("json", "math", "decimal", "datetime", "statistics", "re")
NETWORK_MODULES = ("urllib.request", "urllib.parse", "urllib.error")

_CLOCK_RE = re.compile(r"\b(?:(?:datetime|date)\s*\.\s*)?(now|utcnow|today)\s*\(")
_IMPORT_RE = re.compile(r"^\s*(?:import\s+([\w.]*)|from\s+([\w.]*))$")


@dataclass
class TextEdit:
    span: Span  # replaced range (end exclusive)
    new_text: str


@dataclass
class Fix:
    title: str
    edits: list[TextEdit]
    code: str  # the rule it fixes


def _strip(line: str) -> str:
    return line.rstrip("\r\n")


# ------------------------------------------------------------------ symbols


def step_symbols(text: str) -> list[Symbol]:
    lines = split_lines(text)
    out = []
    for f in function_spans(text):
        end_line = f.end_line
        # trim trailing blank/comment lines from the range
        while end_line > f.line and not _strip(lines[end_line - 1]).strip():
            end_line -= 1
        last = _strip(lines[end_line - 1])
        out.append(Symbol(f.name, "function", Span(f.line, 0, end_line, len(last)),
                          Span(f.line, f.column, f.line, f.column + len(f.name))))
    for i, raw in enumerate(lines):
        line = _strip(raw)
        if line.startswith(("import ", "from ")):
            out.append(Symbol(line.strip(), "import", Span(i + 1, 0, i + 1, len(line)),
                              Span(i + 1, 0, i + 1, len(line))))
    out.sort(key=lambda s: (s.span.line, s.span.column))
    return out


def function_at_line(text: str, line: int):
    """The top-level function whose chunk contains 1-based `line`."""
    for f in function_spans(text):
        if f.line <= line <= f.end_line:
            return f
    return None


def def_name_at(text: str, line: int, column: int):
    """The FunctionSpan when (line, column) is on a top-level `def` line."""
    for f in function_spans(text):
        if f.line == line:
            return f
    return None


# ------------------------------------------------------------------ completion


def step_completions(text: str, line: int, column: int) -> list[Completion]:
    lines = split_lines(text)
    if not 1 <= line <= len(lines):
        return []
    prefix = _strip(lines[line - 1])[:column]
    m = _IMPORT_RE.match(prefix)
    if not m:
        return []
    typed = m.group(1) if m.group(1) is not None else m.group(2)
    out = []
    for mod in ALLOWED_MODULES + NETWORK_MODULES:
        if mod.startswith(typed or ""):
            detail = ("only for steps declared network: public_egress" if mod.startswith("urllib")
                      else "allowed module")
            out.append(Completion(mod, "module", detail=detail))
    return out


# ------------------------------------------------------------------ hover helpers


def clock_call_at(text: str, line: int, column: int) -> str | None:
    """`datetime.now()`-style call under the cursor -> the call text, else None."""
    lines = split_lines(text)
    if not 1 <= line <= len(lines):
        return None
    s = _strip(lines[line - 1])
    for m in _CLOCK_RE.finditer(s):
        if m.start() <= column <= m.end():
            name = m.group(1)
            owner = "date" if name == "today" and "date." in m.group(0) and "datetime" not in m.group(0) else "datetime"
            return f"{owner}.{name}()"
    return None


def problems_at(problems: list[Problem], line: int, column: int) -> list[Problem]:
    out = []
    for p in problems:
        s = p.span
        if (s.line, s.column) <= (line, column) <= (s.end_line, max(s.end_column, s.column + 1)) or (
            s.line <= line <= s.end_line and s.line != s.end_line and s.line < line < s.end_line
        ):
            out.append(p)
    return out


# ------------------------------------------------------------------ quick fixes


def _node_span(node) -> tuple[int, int, int, int]:
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


def _bytes_to_cols(lines: list[str], line: int, byte_col: int) -> int:
    s = _strip(lines[line - 1]) if 1 <= line <= len(lines) else ""
    if s.isascii():
        return byte_col
    return len(s.encode("utf-8", "surrogatepass")[:byte_col].decode("utf-8", "ignore"))


def _parents(tree):
    parents = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            parents[child] = node
            stack.append(child)
    return parents


def _contains(node, lines, sp: Span) -> bool:
    if not hasattr(node, "lineno"):
        return False
    l1, c1, l2, c2 = _node_span(node)
    c1 = _bytes_to_cols(lines, l1, c1)
    c2 = _bytes_to_cols(lines, l2, c2)
    return (l1, c1) <= (sp.line, sp.column) and (sp.end_line, sp.end_column) <= (l2, c2)


def quick_fixes(text: str, problem: Problem) -> list[Fix]:
    """Unambiguous fixes for one step-file problem. Never a 'suppress' action."""
    fix = (problem.data or {}).get("fix")
    if fix not in ("remove-import", "add-seed", "remove-decorator"):
        return []
    try:
        tree = ast.parse(text)
    except Exception:
        return []
    lines = split_lines(text)
    sp = problem.span
    parents = _parents(tree)
    if fix == "remove-import":
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and _contains(node, lines, sp):
                return _remove_import(node, parents, lines, sp, problem.code)
        return []
    if fix == "add-seed":
        best = None
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "samples" and _contains(node, lines, sp)):
                if best is None or (node.lineno, node.col_offset) > (best.lineno, best.col_offset):
                    best = node
        if best is None or any(k.arg == "seed" for k in best.keywords):
            return []
        l2, c2 = best.end_lineno, _bytes_to_cols(lines, best.end_lineno, best.end_col_offset)
        has_args = bool(best.args or best.keywords)
        insert = ", seed=0" if has_args else "seed=0"
        at = Span(l2, c2 - 1, l2, c2 - 1)
        return [Fix("Add seed=0 to samples() (choose your own seed)", [TextEdit(at, insert)],
                    problem.code)]
    if fix == "remove-decorator":
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for dec in node.decorator_list:
                    if _contains(dec, lines, sp) and dec.lineno == dec.end_lineno:
                        line = dec.lineno
                        s = _strip(lines[line - 1])
                        if s.strip().startswith("@"):
                            return [Fix("Remove the decorator", [TextEdit(Span(line, 0, line + 1, 0), "")],
                                        problem.code)]
        return []
    return []


def _remove_import(node, parents, lines, sp: Span, code: str) -> list[Fix]:
    names = node.names
    l1, l2 = node.lineno, node.end_lineno
    c1 = _bytes_to_cols(lines, l1, node.col_offset)
    c2 = _bytes_to_cols(lines, l2, node.end_col_offset)
    if len(names) == 1:
        first = _strip(lines[l1 - 1])
        last = _strip(lines[l2 - 1])
        alone = not first[:c1].strip() and (not last[c2:].strip() or last[c2:].strip().startswith("#"))
        parent = parents.get(node)
        body = None
        for fld in ("body", "orelse", "finalbody"):
            seq = getattr(parent, fld, None)
            if isinstance(seq, list) and node in seq:
                body = seq
        title = "Remove the disallowed import"
        if body is not None and len(body) == 1 and not isinstance(parent, ast.Module):
            return [Fix(title, [TextEdit(Span(l1, c1, l2, c2), "pass")], code)]
        if alone:
            return [Fix(title, [TextEdit(Span(l1, 0, l2 + 1, 0) if l2 < len(lines) else
                                         Span(l1, 0, l2, len(last)), "")], code)]
        return [Fix(title, [TextEdit(Span(l1, c1, l2, c2), "pass")], code)]
    # several names: remove just the refused one
    for i, alias in enumerate(names):
        a1 = _bytes_to_cols(lines, alias.lineno, alias.col_offset)
        a2 = _bytes_to_cols(lines, alias.end_lineno, alias.end_col_offset)
        if not (alias.lineno == sp.line and a1 <= sp.column <= a2):
            continue
        if i + 1 < len(names):
            nxt = names[i + 1]
            start = Span(alias.lineno, a1, nxt.lineno, _bytes_to_cols(lines, nxt.lineno, nxt.col_offset))
        else:
            prev = names[i - 1]
            p2 = _bytes_to_cols(lines, prev.end_lineno, prev.end_col_offset)
            start = Span(prev.end_lineno, p2, alias.end_lineno, a2)
        return [Fix(f"Remove `{alias.name}` from the import", [TextEdit(start, "")], code)]
    return []


# ------------------------------------------------------------------ manifest quick fixes


_MISSING_EXPL = re.compile(r"missing required key 'explanation'")
EXPLANATION_PLACEHOLDER = "TODO: say in plain language what this step does"


def manifest_quick_fixes(doc, problem: Problem) -> list[Fix]:
    """Add a missing `explanation:` placeholder to a step (the author must fill it in)."""
    if problem.code != "SM004" or not _MISSING_EXPL.search(problem.message):
        return []
    from .manifest import step_items

    lines = split_lines(doc.text)
    sp = problem.span
    for i, item in step_items(doc):
        s = item.span
        if not ((s.line, s.column) <= (sp.line, sp.column) <= (s.end_line, s.end_column)):
            continue
        if item.get("explanation") is not None or getattr(item, "flow", False):
            return []
        anchor = item.pair("id") or (item.pairs[0] if item.pairs else None)
        if anchor is None:
            return []
        col = anchor.key.span.column
        after = anchor.value.span.end_line
        if after > len(lines):
            return []
        ending = "\n"
        raw = lines[after - 1]
        if raw.endswith("\r\n"):
            ending = "\r\n"
        text = " " * col + f"explanation: {EXPLANATION_PLACEHOLDER}" + ending
        if not raw.endswith(("\n", "\r")):
            edit = TextEdit(Span(after, len(raw), after, len(raw)), ending + text.rstrip("\r\n"))
        else:
            edit = TextEdit(Span(after + 1, 0, after + 1, 0), text)
        return [Fix("Add an explanation placeholder (fill it in)", [edit], problem.code)]
    return []
