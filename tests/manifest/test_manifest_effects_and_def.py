"""The step's declared effects reach the validator (SS601/SS602
at check time), and an `inputs` mismatch shows on the `def` line of the step file too."""

from __future__ import annotations

from pathlib import Path

from manifest_kit import BASE, BILLS_PY, MATCH_PY, pos, write_workflow
from stepsmith.runner.manifest import check_workflow


def step_file(wc, rel):
    return wc.problems[Path(wc.manifest.path).parent / rel]


def test_uses_carry_the_declared_effects_with_their_key_field(tmp_path):
    m = write_workflow(tmp_path / "wf")
    wc = check_workflow(m)
    assert wc.ok
    (use,) = wc.step_files[m.parent / "steps/bills.py"]
    assert use.effects == (("draft_bill", "invoice_id"),)
    (match_use,) = wc.step_files[m.parent / "steps/match.py"]
    assert match_use.effects == ()  # declares none: it may emit none


def test_emit_of_an_undeclared_effect_fails_check(tmp_path):
    bills = BILLS_PY.replace('"draft_bill"', '"draft_bills"')
    m = write_workflow(tmp_path, files={"steps/match.py": MATCH_PY, "steps/bills.py": bills})
    (p,) = step_file(check_workflow(m), "steps/bills.py")
    assert p.code == "SS601" and p.step == "draft"
    assert (p.span.line, p.span.column) == pos(bills, '"draft_bills"')
    assert "did you mean 'draft_bill'" in p.message


def test_payload_without_the_key_field_fails_check(tmp_path):
    bills = BILLS_PY.replace('{"invoice_id": m["id"]}', '{"id": m["id"]}')
    m = write_workflow(tmp_path, files={"steps/match.py": MATCH_PY, "steps/bills.py": bills})
    (p,) = step_file(check_workflow(m), "steps/bills.py")
    assert p.code == "SS602" and "'invoice_id'" in p.message


def test_the_key_field_follows_the_manifest(tmp_path):
    text = BASE.replace("key: invoice_id", "key: number")
    m = write_workflow(tmp_path, text)
    (p,) = step_file(check_workflow(m), "steps/bills.py")
    assert p.code == "SS602" and "'number'" in p.message


def test_effect_removed_from_the_step_is_reported_in_the_code(tmp_path):
    text = BASE.replace("    effects: [draft_bill]\n", "    effects: []\n")
    m = write_workflow(tmp_path, text)
    wc = check_workflow(m)
    assert "SS601" in [p.code for p in step_file(wc, "steps/bills.py")]


def test_malformed_step_effects_leave_the_rules_silent(tmp_path):
    text = BASE.replace("    effects: [draft_bill]\n", "    effects: draft_bill\n")
    m = write_workflow(tmp_path, text)
    wc = check_workflow(m)
    (use,) = wc.step_files[m.parent / "steps/bills.py"]
    assert use.effects is None
    assert [p.code for p in step_file(wc, "steps/bills.py")] == []
    assert wc.problems[m]  # the schema says what is wrong, in the manifest


def test_input_without_parameter_shows_on_the_def_line(tmp_path):
    text = BASE.replace("      tolerance: \"0.50\"\n", "      tolerance: \"0.50\"\n      currency: GBP\n")
    m = write_workflow(tmp_path, text)
    wc = check_workflow(m)
    assert "SM204" in [p.code for p in wc.problems[m]]
    (p,) = step_file(wc, "steps/match.py")
    assert p.code == "SM204" and p.step == "match"
    assert (p.span.line, p.span.column, p.span.end_column) == (4, 4, 9)  # `match` in the def
    assert "currency" in p.message and "step `match`" in p.message
    assert f"workflow.yaml:{pos(text, 'currency')[0]}" in p.message
    assert p.data["name"] == "currency" and p.data["manifest"] == str(m)


def test_parameter_without_input_shows_on_the_def_line(tmp_path):
    text = BASE.replace("      tolerance: \"0.50\"\n", "")
    m = write_workflow(tmp_path, text)
    wc = check_workflow(m)
    (p,) = step_file(wc, "steps/match.py")
    assert p.code == "SM205" and (p.span.line, p.span.column) == (4, 4)
    assert "parameter 'tolerance'" in p.message
    assert p.rationale


def test_def_problem_goes_away_when_the_inputs_match_again(tmp_path):
    text = BASE.replace("      tolerance: \"0.50\"\n", "")
    m = write_workflow(tmp_path, text)
    assert step_file(check_workflow(m), "steps/match.py")
    m.write_text(BASE)
    assert check_workflow(m).ok


def test_def_line_found_past_extra_spaces(tmp_path):
    match = "from decimal import Decimal\n\n\ndef  match(invoices, purchase_orders):\n    return 1\n"
    m = write_workflow(tmp_path, files={"steps/match.py": match, "steps/bills.py": BILLS_PY})
    wc = check_workflow(m)
    got = [(p.code, p.span.line, p.span.column) for p in step_file(wc, "steps/match.py")]
    assert got == [("SM204", 4, 5)]


def test_a_manifest_is_split_into_lines_once_per_check_not_once_per_step(tmp_path, monkeypatch):
    # 200 steps re-split the whole manifest 200 times per keystroke (bench/lsp.py: p95 190 ms)
    from stepsmith.runner import lines as lines_mod
    from stepsmith.runner.workspace.workflow_check import workflow_check

    steps = "".join(f"  - id: s{i}\n    explanation: Step {i}.\n    code: steps/s.py:f{i}\n"
                    f"    inputs:\n      x: \"1\"\n" for i in range(40))
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps/s.py").write_text("".join(f"def f{i}(x):\n    return x\n\n\n"
                                                 for i in range(40)))
    text = ("workflow: many\nversion: 1\npython: \"3.11\"\ntrigger: {manual: {}}\nsteps:\n"
            + steps)
    (tmp_path / "workflow.yaml").write_text(text)
    calls = []
    real = lines_mod.split_lines
    monkeypatch.setattr(lines_mod, "split_lines", lambda t, *a: calls.append(len(t)) or real(t, *a))
    check = workflow_check(tmp_path / "workflow.yaml", validate_steps=False)
    assert not [p for ps in check.problems.values() for p in ps]
    assert sum(1 for n in calls if n == len(text)) <= 1
