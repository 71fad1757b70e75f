"""Report shapes for combined coverage: coverage.py's text table, a JSON document (per file:
executed/missing lines, missing branches, per-fixture detail) and LCOV tracefile text."""

from __future__ import annotations

from collections.abc import Sequence

from stepsmith.runner.coverage.combine import FileCoverage


def display_percent(pc: float) -> str:
    """As coverage.py shows it: never 100% unless complete, never 0% unless nothing ran."""
    if 0 < pc < 1:
        return "1%"
    if 99 < pc < 100:
        return "99%"
    return f"{round(pc):d}%"


def _dest(d: int) -> str:
    return "exit" if d < 0 else str(d)


def missing_text(fc: FileCoverage) -> str:
    """coverage.py's Missing column: runs of missing statements ("3-4") and, for branch lines
    that ran, the arcs not taken ("6->8", "10->exit"), in line order."""
    stmts = sorted(fc.statements)
    missing = fc.missing
    items: list[tuple[int, str]] = []
    i = 0
    while i < len(stmts):
        if stmts[i] in missing:
            j = i
            while j + 1 < len(stmts) and stmts[j + 1] in missing:
                j += 1
            a, b = stmts[i], stmts[j]
            items.append((a, str(a) if a == b else f"{a}-{b}"))
            i = j + 1
        else:
            i += 1
    for a, d in sorted(fc.partial_arcs, key=lambda x: (x[0], x[1] < 0, abs(x[1]))):
        items.append((a, f"{a}->{_dest(d)}"))
    items.sort(key=lambda x: x[0])
    return ", ".join(t for _, t in items)


def text(files: Sequence[FileCoverage], *, show_missing: bool = True) -> str:
    """The table `coverage report -m --branch` prints, plus a TOTAL line."""
    head = ["Name", "Stmts", "Miss", "Branch", "BrPart", "Cover"] + (["Missing"] if show_missing
                                                                     else [])
    rows = []
    for fc in files:
        row = [fc.file, str(len(fc.statements)), str(len(fc.missing)), str(len(fc.shape.arcs)),
               str(fc.partial_branches), display_percent(fc.percent)]
        rows.append(row + ([missing_text(fc)] if show_missing else []))
    stmts = sum(len(f.statements) for f in files)
    miss = sum(len(f.missing) for f in files)
    br = sum(len(f.shape.arcs) for f in files)
    part = sum(f.partial_branches for f in files)
    done = stmts - miss + sum(len(f.taken_arcs) for f in files)
    pc = 100.0 * done / (stmts + br) if stmts + br else 100.0
    total = ["TOTAL", str(stmts), str(miss), str(br), str(part), display_percent(pc)]
    total += [""] if show_missing else []
    width = max(len(r[0]) for r in [head, total, *rows])
    nums = [max(len(r[k]) for r in [head, total, *rows]) for k in range(1, 6)]

    def line(r: list[str]) -> str:
        out = r[0].ljust(width) + "".join("   " + r[k].rjust(nums[k - 1]) for k in range(1, 6))
        if show_missing and r[6]:
            out += "   " + r[6]
        return out.rstrip()

    rule = "-" * len(line(head))
    return "\n".join([line(head), rule, *[line(r) for r in rows], rule, line(total)]) + "\n"


def _summary(fc: FileCoverage) -> dict:
    return {"num_statements": len(fc.statements), "covered_lines": len(fc.executed),
            "missing_lines": len(fc.missing), "num_branches": len(fc.shape.arcs),
            "covered_branches": len(fc.taken_arcs), "missing_branches": len(fc.missing_arcs),
            "num_partial_branches": fc.partial_branches,
            "percent_covered": round(fc.percent, 2),
            "percent_covered_display": display_percent(fc.percent)}


def to_json(files: Sequence[FileCoverage]) -> dict:
    """coverage.py-like JSON: per file its summary, executed and missing lines, executed and
    missing branch arcs, and per fixture the lines and arcs it ran (for per-test detail)."""
    out: dict = {"meta": {"format": 1, "branch_coverage": True}, "files": {}}
    for fc in files:
        out["files"][fc.file] = {
            "summary": _summary(fc),
            "executed_lines": sorted(fc.executed),
            "missing_lines": sorted(fc.missing),
            "executed_branches": [list(a) for a in sorted(fc.taken_arcs)],
            "missing_branches": [list(a) for a in sorted(fc.missing_arcs)],
            "fixtures": {name: {"executed_lines": sorted(c.lines & fc.statements),
                                "executed_branches": [list(a) for a in
                                                      sorted(c.arcs & fc.shape.arcs)],
                                "truncated": c.truncated}
                         for name, c in sorted(fc.fixtures.items())},
        }
    stmts = sum(len(f.statements) for f in files)
    ran = sum(len(f.executed) for f in files)
    br = sum(len(f.shape.arcs) for f in files)
    took = sum(len(f.taken_arcs) for f in files)
    out["totals"] = {"num_statements": stmts, "covered_lines": ran, "missing_lines": stmts - ran,
                     "num_branches": br, "covered_branches": took,
                     "percent_covered": round(100.0 * (ran + took) / (stmts + br), 2)
                     if stmts + br else 100.0}
    return out


def lcov(files: Sequence[FileCoverage], test_name: str = "") -> str:
    """LCOV tracefile: hit counts are the number of fixtures that ran the line / took the arc;
    a branch of a line no fixture ran is "-" (lcov's "never evaluated")."""
    out: list[str] = []
    for fc in files:
        out += [f"TN:{test_name}", f"SF:{fc.file}"]
        for line in sorted(fc.statements):
            out.append(f"DA:{line},{fc.fixture_hits(line)}")
        out += [f"LF:{len(fc.statements)}", f"LH:{len(fc.executed)}"]
        ran = fc.executed
        for line in sorted(fc.shape.branches):
            dests = sorted(fc.shape.branches[line], key=lambda d: (d < 0, abs(d)))
            for i, d in enumerate(dests):
                taken = str(fc.arc_hits((line, d))) if line in ran else "-"
                out.append(f"BRDA:{line},0,{i},{taken}")
        out += [f"BRF:{len(fc.shape.arcs)}", f"BRH:{len(fc.taken_arcs)}", "end_of_record"]
    return "\n".join(out) + "\n"
