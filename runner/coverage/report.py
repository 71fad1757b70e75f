"""Report shapes for combined coverage: coverage.py's text table, a JSON document (per file:
executed/missing lines, missing branches, per-fixture detail) and LCOV tracefile text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from stepsmith.runner.coverage.combine import FileCoverage


def display_percent(pc: float) -> str:
    """coverage.py's `display_covered` at precision 0 ("87", as in its JSON report): never
    "100" unless complete, never "0" unless nothing ran. The text table appends "%"."""
    if 0 < pc < 1:
        pc = 1.0
    elif 99 < pc < 100:
        pc = 99.0
    else:
        pc = round(pc)
    return f"{pc:.0f}"


def _ranges(statements: Iterable[int], lines: Iterable[int]) -> list[tuple[int, int]]:
    """Runs of `lines` over consecutive `statements` (coverage.py's `_line_ranges`)."""
    want = set(lines)
    pairs: list[tuple[int, int]] = []
    start = end = 0
    for stmt in sorted(statements):
        if stmt in want:
            start = start or stmt
            end = stmt
        elif start:
            pairs.append((start, end))
            start = 0
    if start:
        pairs.append((start, end))
    return pairs


def missing_text(fc: FileCoverage) -> str:
    """coverage.py's Missing column for `fc` (see `format_missing`)."""
    return format_missing(fc.statements, fc.missing, fc.missing_arcs)


def format_missing(statements: Iterable[int], missing: Iterable[int],
                   missing_arcs: Iterable[tuple[int, int]]) -> str:
    """coverage.py's `format_lines`: runs of missing statements ("3-4", runs over consecutive
    statements) and, for branch lines that ran, the arcs not taken ("6->8", "10->exit")
    unless their destination is itself a missing line (that line already says it)."""
    missing = set(missing)
    items = [(a, str(a) if a == b else f"{a}-{b}") for a, b in _ranges(statements, missing)]
    for a, d in missing_arcs:
        if a not in missing and d not in missing:
            items.append((a, f"{a}->{d if d > 0 else 'exit'}"))
    return ", ".join(t for _, t in sorted(items))


def text(files: Sequence[FileCoverage], *, show_missing: bool = True) -> str:
    """The table `coverage report -m --branch` prints, plus a TOTAL line."""
    head = ["Name", "Stmts", "Miss", "Branch", "BrPart", "Cover"] + (["Missing"] if show_missing
                                                                     else [])
    rows = []
    for fc in files:
        row = [fc.file, str(len(fc.statements)), str(len(fc.missing)), str(fc.num_branches),
               str(fc.partial_branches), display_percent(fc.percent) + "%"]
        rows.append(row + ([missing_text(fc)] if show_missing else []))
    stmts = sum(len(f.statements) for f in files)
    miss = sum(len(f.missing) for f in files)
    br = sum(f.num_branches for f in files)
    part = sum(f.partial_branches for f in files)
    done = stmts - miss + sum(f.covered_branches for f in files)
    pc = 100.0 * done / (stmts + br) if stmts + br else 100.0
    total = ["TOTAL", str(stmts), str(miss), str(br), str(part), display_percent(pc) + "%"]
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


def _summary(n_statements: int, n_executed: int, n_branches: int, n_covered_branches: int,
             n_partial: int) -> dict:
    """coverage.py's JSON summary (`JsonReporter.make_summary` + `make_branch_summary`)."""
    def pc(num: int, den: int) -> float:
        return 100.0 * num / den if den > 0 else 100.0

    covered = pc(n_executed + n_covered_branches, n_statements + n_branches)
    stmts, brs = pc(n_executed, n_statements), pc(n_covered_branches, n_branches)
    return {"covered_lines": n_executed, "num_statements": n_statements,
            "percent_covered": covered, "percent_covered_display": display_percent(covered),
            "missing_lines": n_statements - n_executed, "excluded_lines": 0,
            "percent_statements_covered": stmts,
            "percent_statements_covered_display": display_percent(stmts),
            "num_branches": n_branches, "num_partial_branches": n_partial,
            "covered_branches": n_covered_branches,
            "missing_branches": n_branches - n_covered_branches,
            "percent_branches_covered": brs,
            "percent_branches_covered_display": display_percent(brs)}


def _file_summary(fc: FileCoverage) -> dict:
    out = _summary(len(fc.statements), len(fc.executed), fc.num_branches, fc.covered_branches,
                   fc.partial_branches)
    out["excluded_lines"] = len(fc.shape.excluded)
    return out


def to_json(files: Sequence[FileCoverage]) -> dict:
    """coverage.py's JSON report (format 3, branch=True: per file `executed_lines`,
    `summary`, `missing_lines`, `excluded_lines`, `executed_branches`, `missing_branches`;
    `totals`), plus per file and fixture the lines and branch arcs it ran (per-test detail)."""
    out: dict = {"meta": {"format": 3, "branch_coverage": True}, "files": {}}
    for fc in files:
        out["files"][fc.file] = {
            "executed_lines": sorted(fc.executed),
            "summary": _file_summary(fc),
            "missing_lines": sorted(fc.missing),
            "excluded_lines": sorted(fc.shape.excluded),
            "executed_branches": [list(a) for a in sorted(fc.taken_arcs)],
            "missing_branches": [list(a) for a in sorted(fc.missing_arcs)],
            "fixtures": {name: {"executed_lines": sorted(r.lines),
                                "executed_branches": [list(a) for a in
                                                      sorted(r.arcs & fc.shape.arcs)],
                                "truncated": fc.fixtures[name].truncated}
                         for name, r in sorted(fc.ran.items())},
        }
    totals = _summary(sum(len(f.statements) for f in files),
                      sum(len(f.executed) for f in files), sum(f.num_branches for f in files),
                      sum(f.covered_branches for f in files),
                      sum(f.partial_branches for f in files))
    totals["excluded_lines"] = sum(len(f.shape.excluded) for f in files)
    out["totals"] = totals
    return out


def _lcov_can_hold(path: str) -> bool:
    # LCOV is one record per line with no quoting: a line break in `SF:` splits the record
    return "\n" not in path and "\r" not in path


def lcov_left_out(files: Sequence[FileCoverage]) -> list[str]:
    """The files `lcov` leaves out: their path cannot be written in a tracefile."""
    return [fc.file for fc in files if not _lcov_can_hold(fc.file)]


def lcov(files: Sequence[FileCoverage], test_name: str = "") -> str:
    """LCOV tracefile: hit counts are the number of fixtures that ran the line / took the arc;
    a branch of a line no fixture ran is "-" (lcov's "never evaluated"). A file whose path
    holds a line break is left out (`lcov_left_out` names them; the caller warns)."""
    out: list[str] = []
    for fc in files:
        if not _lcov_can_hold(fc.file):
            continue
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
        out += [f"BRF:{fc.num_branches}", f"BRH:{fc.covered_branches}", "end_of_record"]
    return "\n".join(out) + "\n"
