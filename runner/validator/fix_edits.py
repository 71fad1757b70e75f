"""The edits of the validator's quick fixes, computed where the problem is found (see
stepsmith.runner.fixes for the shape). Only on the reporting path: a clean file pays nothing.
Positions come from `ctx.pos` (code points, shifted by the line offset like the spans)."""

from __future__ import annotations

import _ast as ast

_BODIES = ("body", "orelse", "finalbody")


def _data(kind: str, title: str, edits) -> dict:
    return {"fix": kind, "title": title,
            "edits": [[s.line, s.column, s.end_line, s.end_column, t] for s, t in edits]}


def _pos(ctx, lineno: int, byte_col: int) -> tuple[int, int]:
    return lineno, ctx.pos.char_col(lineno, byte_col)


def _sole_in_block(ctx, node) -> bool:
    """`node` is the only statement of a block (deleting it would leave the block empty)."""
    stack = [ctx.root]
    while stack:
        cur = stack.pop()
        if cur is None:
            continue
        for name in getattr(cur, "_fields", ()):
            value = getattr(cur, name, None)
            if isinstance(value, list):
                if name in _BODIES and node in value:
                    return len(value) == 1
                stack.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
    return False  # a top-level statement: a module may be empty


def remove_statement(ctx, node):
    """Edits deleting statement `node`: its `;` neighbour, its whole lines, or `pass` in a
    block it is the only statement of."""
    pos = ctx.pos
    l1, c1 = _pos(ctx, node.lineno, node.col_offset)
    l2, c2 = _pos(ctx, node.end_lineno, node.end_col_offset)
    first, last = pos.line(l1), pos.line(l2)
    before, after = first[:c1], last[c2:]
    span = pos.span
    if after.lstrip().startswith(";"):  # `import os; import json` -> `import json`
        end = c2 + len(after) - len(after.lstrip()) + 1
        while end < len(last) and last[end] in " \t":
            end += 1
        return [(span(l1, c1, l2, end), "")]
    if before.rstrip().endswith(";"):  # `x = 1; import os` -> `x = 1`
        return [(span(l1, len(before.rstrip()[:-1].rstrip()), l2, c2), "")]
    if node is not ctx.root and _sole_in_block(ctx, node):
        return [(span(l1, c1, l2, c2), "pass")]
    rest = after.strip()
    if not before.strip() and (not rest or rest.startswith("#")):
        if l2 < len(pos.lines):
            return [(span(l1, 0, l2 + 1, 0), "")]
        return [(span(l1, 0, l2, len(last)), "")]
    return [(span(l1, c1, l2, c2), "pass")]


def _binds(node, aliases) -> list[list[str]]:
    """[[name bound, what it is bound to], ...] for `aliases` of import `node` (`*` for a
    star import): whether removing them leaves a name undefined is decided on the whole file
    (runner/fix_safety.py), which this statement cannot see."""
    out = []
    if node.__class__ is ast.ImportFrom:
        base = "." * (node.level or 0) + (node.module + "." if node.module else "")
        for a in aliases:
            out.append(["*" if a.name == "*" else a.asname or a.name, base + a.name])
    else:
        for a in aliases:
            out.append([a.asname or a.name.partition(".")[0],
                        a.name if a.asname else a.name.partition(".")[0]])
    return out


def remove_import(ctx, node, alias=None) -> dict:
    """Fix data removing import `node`, or only `alias` of it when it names several."""
    names = node.names
    if alias is None or len(names) == 1:
        data = _data("remove-import", "Remove the disallowed import",
                     remove_statement(ctx, node))
        data["binds"] = _binds(node, names)
        return data
    i = names.index(alias)
    a1 = _pos(ctx, alias.lineno, alias.col_offset)
    a2 = _pos(ctx, alias.end_lineno, alias.end_col_offset)
    if i + 1 < len(names):  # up to the next name (its comma and spaces go too)
        nxt = names[i + 1]
        end = _pos(ctx, nxt.lineno, nxt.col_offset)
        sp = ctx.pos.span(a1[0], a1[1], end[0], end[1])
    else:  # from the end of the previous name
        prev = names[i - 1]
        start = _pos(ctx, prev.end_lineno, prev.end_col_offset)
        sp = ctx.pos.span(start[0], start[1], a2[0], a2[1])
    data = _data("remove-import", f"Remove `{alias.name}` from the import", [(sp, "")])
    data["binds"] = _binds(node, [alias])
    return data


def add_seed(ctx, call) -> dict | None:
    """Fix data giving `.samples(...)` call `call` a `seed=0` (the author picks the seed)."""
    title = "Add seed=0 to samples() (choose your own seed)"
    span = ctx.pos.span
    for kw in call.keywords:
        if kw.arg == "seed":  # `seed=None`
            v = kw.value
            (l1, c1), (l2, c2) = (_pos(ctx, v.lineno, v.col_offset),
                                  _pos(ctx, v.end_lineno, v.end_col_offset))
            return _data("add-seed", "Use seed=0 (choose your own seed)", [(span(l1, c1, l2, c2), "0")])
    given = [*call.args, *call.keywords]
    end = _pos(ctx, call.end_lineno, call.end_col_offset)
    if len(given) == 1 and given[0].__class__ is ast.GeneratorExp \
            and _pos(ctx, given[0].end_lineno, given[0].end_col_offset) == end:
        # `samples(x for x in xs)`: the generator shares the call's parentheses
        (l1, c1), (l2, c2) = _pos(ctx, given[0].lineno, given[0].col_offset), end
        return _data("add-seed", title, [(span(l1, c1 + 1, l1, c1 + 1), "("),
                                         (span(l2, c2 - 1, l2, c2 - 1), "), seed=0")])
    if given:  # right after the last argument: a trailing comma stays where it is
        last = max(given, key=lambda n: (n.end_lineno, n.end_col_offset))
        line, col = _after_parens(ctx, _pos(ctx, last.end_lineno, last.end_col_offset), end)
        return _data("add-seed", title, [(span(line, col, line, col), ", seed=0")])
    line, col = _pos(ctx, call.end_lineno, call.end_col_offset)
    if col == 0:
        return None
    return _data("add-seed", title, [(span(line, col - 1, line, col - 1), "seed=0")])


def _after_parens(ctx, at: tuple[int, int], end: tuple[int, int]) -> tuple[int, int]:
    """Past the `)` closing a parenthesised last argument (`samples((3))`): between the
    argument and the call's own `)` there are only spaces, comments, `)` and a comma."""
    line, col = at
    best = at
    while (line, col) < (end[0], end[1] - 1):
        text = ctx.pos.line(line)  # AST numbering (`_pos`), before the line offset
        if col >= len(text) or text[col] == "#":
            line, col = line + 1, 0
            continue
        ch = text[col]
        if ch == ",":
            break
        col += 1
        if ch == ")":
            best = (line, col)
    return best


def remove_decorator(ctx, deco) -> dict | None:
    """Fix data deleting decorator `deco` when it stands on lines of its own."""
    pos = ctx.pos
    l1, c1 = _pos(ctx, deco.lineno, deco.col_offset)
    l2, c2 = _pos(ctx, deco.end_lineno, deco.end_col_offset)
    head, tail = pos.line(l1)[:c1].strip(), pos.line(l2)[c2:].strip()
    if head != "@" or (tail and not tail.startswith("#")) or l2 >= len(pos.lines):
        return None
    return _data("remove-decorator", "Remove the decorator", [(pos.span(l1, 0, l2 + 1, 0), "")])
