"""Renaming parameters of a step function gave each mismatch on both sides
(SM204 + SM205 in the manifest and again on the `def` line: 8 findings for two renames). A
rename is reported once in the manifest, with the fix that renames the inputs, and echoed once
on the `def` line."""

import textwrap

from stepsmith.runner.manifest import check_workflow

MANIFEST = """\
workflow: w
version: 1
python: "3.11"
trigger: {manual: {}}
connections: {ledger: {description: l}}
sources: {numbers: {connection: ledger}}
steps:
  - id: add
    explanation: Add.
    code: steps/calc.py:add
    inputs:
      a: sources.numbers
      b: "0.50"
"""


def findings(tmp_path, code):
    (tmp_path / "steps").mkdir(exist_ok=True)
    (tmp_path / "steps" / "calc.py").write_text(textwrap.dedent(code))
    (tmp_path / "workflow.yaml").write_text(MANIFEST)
    wc = check_workflow(tmp_path / "workflow.yaml")
    return {p.name: ps for p, ps in wc.problems.items() if ps}


def apply(text: str, edits) -> str:
    lines = text.splitlines(keepends=True)
    for line, col, end_line, end_col, new in sorted(edits, reverse=True):
        assert line == end_line
        row = lines[line - 1]
        lines[line - 1] = row[:col] + new + row[end_col:]
    return "".join(lines)


def test_two_renamed_parameters_are_one_finding_with_the_fix(tmp_path):
    got = findings(tmp_path, "def add(amount, extra):\n    return amount\n")
    (m,) = got["workflow.yaml"]
    assert m.code == "SM204" and m.span.line == 12
    assert "'a' -> 'amount'" in m.message and "'b' -> 'extra'" in m.message
    assert m.data["fix"] == "rename-inputs"
    fixed = apply(MANIFEST, m.data["edits"])
    assert "      amount: sources.numbers\n      extra: \"0.50\"\n" in fixed
    (d,) = got["calc.py"]
    assert d.span.line == 1 and "'a' -> 'amount'" in d.message
    (tmp_path / "workflow.yaml").write_text(fixed)
    assert not any(check_workflow(tmp_path / "workflow.yaml").problems.values())


def test_an_extra_parameter_alone_is_still_a_missing_input(tmp_path):
    got = findings(tmp_path, "def add(a, b, c):\n    return a\n")
    assert [p.code for p in got["workflow.yaml"]] == ["SM205"]
