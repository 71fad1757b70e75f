"""check_workflow: code files, function signatures, the validator per step file, discovery."""

import os
import textwrap
from pathlib import Path

import pytest
from manifest_kit import BASE, BILLS_PY, MATCH_PY, at, pos, write_workflow
from stepsmith.runner.manifest import check_workflow
from stepsmith.runner.workspace.discovery import find_manifests


def manifest_problems(wc):
    return wc.problems[Path(wc.manifest.path)]


def one(wc, code):
    hits = [p for p in manifest_problems(wc) if p.code == code]
    assert len(hits) == 1, [(p.code, p.message) for p in manifest_problems(wc)]
    return hits[0]


def test_clean_workflow(tmp_path):
    m = write_workflow(tmp_path / "wf")
    wc = check_workflow(m)
    assert wc.ok
    assert set(wc.problems) == {m, m.parent / "steps/match.py", m.parent / "steps/bills.py"}
    assert [(u.step_id, u.function, u.network) for u in wc.step_files[m.parent / "steps/bills.py"]] == [
        ("draft", "draft", "none")
    ]
    assert wc.manifest.workflow is not None


def test_code_file_missing_points_at_the_path_part(tmp_path):
    m = write_workflow(tmp_path, files={"steps/match.py": MATCH_PY})
    p = one(check_workflow(m), "SM201")
    line, col = pos(BASE, "steps/bills.py")
    assert (p.span.line, p.span.column, p.span.end_column) == (line, col, col + len("steps/bills.py"))
    assert p.step == "draft"


@pytest.mark.parametrize("code_value,fragment", [
    ("/etc/passwd.py:f", "absolute"),
    ("../other/steps.py:f", "leaves the workflow folder"),
    ("steps/../../x.py:f", "leaves the workflow folder"),
    ("~/x.py:f", "absolute"),
])
def test_code_path_must_stay_inside(tmp_path, code_value, fragment):
    text = BASE.replace("steps/bills.py:draft", code_value)
    m = write_workflow(tmp_path / "wf", text)
    p = one(check_workflow(m), "SM202")
    assert fragment in p.message
    assert at(p) == pos(text, code_value)


def test_code_path_symlink_escape(tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_text("def draft(matches, connections, effects):\n    return 1\n")
    m = write_workflow(tmp_path / "wf")
    (m.parent / "steps/bills.py").unlink()
    os.symlink(outside, m.parent / "steps/bills.py")
    p = one(check_workflow(m), "SM202")
    assert "symbolic link" in p.message


def test_function_missing_points_at_the_function_part(tmp_path):
    text = BASE.replace("steps/bills.py:draft", "steps/bills.py:drafts")
    m = write_workflow(tmp_path, text)
    p = one(check_workflow(m), "SM203")
    line, col = pos(text, "drafts")
    assert (p.span.line, p.span.column, p.span.end_column) == (line, col, col + 6)
    assert "did you mean 'draft'" in p.message


def test_nested_function_is_not_top_level(tmp_path):
    files = {"steps/match.py": MATCH_PY,
             "steps/bills.py": "def outer():\n    def draft(matches, connections, effects):\n        return 1\n    return draft\n"}
    m = write_workflow(tmp_path, files=files)
    assert "no top-level function 'draft'" in one(check_workflow(m), "SM203").message


def test_input_without_parameter_at_the_input_key(tmp_path):
    text = BASE.replace("      tolerance: \"0.50\"\n", "      tolerance: \"0.50\"\n      currency: GBP\n")
    m = write_workflow(tmp_path, text)
    p = one(check_workflow(m), "SM204")
    assert at(p) == pos(text, "currency")
    assert "match()" in p.message and "steps/match.py:4" in p.message


def test_parameter_without_input_at_the_inputs_key(tmp_path):
    text = BASE.replace("      tolerance: \"0.50\"\n", "")
    m = write_workflow(tmp_path, text)
    p = one(check_workflow(m), "SM205")
    assert at(p) == pos(text, "inputs:")
    assert "parameter 'tolerance'" in p.message


@pytest.mark.parametrize("sig,fragment", [
    ("invoices, purchase_orders, tolerance=1", "default values"),
    ("invoices, purchase_orders, *, tolerance=1", "default values"),
    ("invoices, purchase_orders, tolerance, *rest", "*rest"),
    ("invoices, purchase_orders, tolerance, **kw", "**kw"),
    ("invoices, purchase_orders, /, tolerance", "positional-only"),
])
def test_unsupported_signatures(tmp_path, sig, fragment):
    files = {"steps/match.py": f"def match({sig}):\n    return 1\n", "steps/bills.py": BILLS_PY}
    m = write_workflow(tmp_path, files=files)
    p = one(check_workflow(m), "SM206")
    assert fragment in p.message
    assert at(p) == pos(BASE, "match\n", 2)  # the function part of `code:`


def test_keyword_only_parameters_are_fine(tmp_path):
    files = {"steps/match.py": "def match(*, invoices, purchase_orders, tolerance):\n    return 1\n",
             "steps/bills.py": "def draft(effects, matches, connections):\n    return 1\n"}
    assert check_workflow(write_workflow(tmp_path, files=files)).ok


def test_connections_parameter_without_declared_connections(tmp_path):
    files = {"steps/match.py": "def match(invoices, purchase_orders, tolerance, connections):\n    return 1\n",
             "steps/bills.py": BILLS_PY}
    m = write_workflow(tmp_path, files=files)
    p = one(check_workflow(m), "SM207")
    assert "declares no connections" in p.message
    assert at(p) == pos(BASE, "match\n", 2)  # the function part of `code:`


def test_declared_connections_without_parameter_is_allowed(tmp_path):
    # ARCHITECTURE: the `connections` parameter is optional
    files = {"steps/match.py": MATCH_PY, "steps/bills.py": "def draft(matches, effects):\n    return 1\n"}
    assert check_workflow(write_workflow(tmp_path, files=files)).ok


def test_declared_effects_need_the_effects_parameter(tmp_path):
    files = {"steps/match.py": MATCH_PY, "steps/bills.py": "def draft(matches, connections):\n    return 1\n"}
    text = BASE
    p = one(check_workflow(write_workflow(tmp_path, text, files)), "SM208")
    assert at(p) == pos(text, "effects: [draft_bill]")


def test_effects_parameter_without_declared_effects(tmp_path):
    files = {"steps/match.py": "def match(invoices, purchase_orders, tolerance, effects):\n    return 1\n",
             "steps/bills.py": BILLS_PY}
    assert "declares no effects" in one(check_workflow(write_workflow(tmp_path, files=files)), "SM208").message


def test_step_file_with_syntax_error_reported_by_validator_only(tmp_path):
    files = {"steps/match.py": "def match(invoices, purchase_orders, tolerance)\n    return 1\n",
             "steps/bills.py": BILLS_PY}
    m = write_workflow(tmp_path, files=files)
    wc = check_workflow(m)
    assert manifest_problems(wc) == []
    (p,) = wc.problems[m.parent / "steps/match.py"]
    assert p.code == "SS001"
    assert p.path == str(m.parent / "steps/match.py")


def test_validator_problems_keyed_by_step_file_with_uses(tmp_path):
    rates = textwrap.dedent("""\
        import urllib.request


        def rates(base):
            return base
        """)
    text = BASE + (
        "  - id: rates\n"
        "    explanation: Fetch rates.\n"
        "    code: steps/rates.py:rates\n"
        "    inputs: {base: GBP}\n"
        "    network: public_egress\n"
    )
    m = write_workflow(tmp_path, text, {"steps/match.py": MATCH_PY, "steps/bills.py": BILLS_PY,
                                        "steps/rates.py": rates})
    wc = check_workflow(m)
    assert wc.ok  # urllib allowed: the only use of the file is public_egress
    assert [u.network for u in wc.step_files[m.parent / "steps/rates.py"]] == ["public_egress"]
    # the same file also used by a `none` step: urllib is refused, in the step file
    text2 = text + (
        "  - id: rates_offline\n"
        "    explanation: Same function without network.\n"
        "    code: steps/rates.py:rates\n"
        "    inputs: {base: EUR}\n"
    )
    m.write_text(text2)
    wc2 = check_workflow(m)
    probs = wc2.problems[m.parent / "steps/rates.py"]
    assert [p.code for p in probs] == ["SS105"]
    assert (probs[0].span.line, probs[0].span.column) == (1, 7)
    assert {u.step_id for u in wc2.step_files[m.parent / "steps/rates.py"]} == {"rates", "rates_offline"}


def test_read_text_supplies_unsaved_buffers(tmp_path):
    m = write_workflow(tmp_path)
    buffers = {
        m.parent / "steps/bills.py": "import os\n\ndef draft(matches, connections, effects):\n    return 1\n",
        m: BASE.replace("effects: [draft_bill]", "effects: [nope]"),
    }
    wc = check_workflow(m, read_text=buffers.get)
    assert [p.code for p in wc.problems[m]] == ["SM103"]
    assert [p.code for p in wc.problems[m.parent / "steps/bills.py"]] == ["SS101"]
    # files without a buffer come from disk
    assert wc.problems[m.parent / "steps/match.py"] == []


def test_undecodable_step_file(tmp_path):
    files = {"steps/match.py": MATCH_PY, "steps/bills.py": b"def draft(matches):\n    x = '\xff'\n"}
    m = write_workflow(tmp_path, files=files)
    wc = check_workflow(m)
    (p,) = wc.problems[m.parent / "steps/bills.py"]
    assert p.code == "SS004"
    assert not any(p.code == "SM201" for p in wc.problems[m])


def test_undecodable_manifest(tmp_path):
    m = tmp_path / "workflow.yaml"
    m.write_bytes(b"workflow: x\nversion: 1\n# caf\xe9\n")
    wc = check_workflow(m)
    (p,) = wc.problems[m]
    assert p.code == "SM008"
    assert (p.span.line, p.span.column) == (3, 5)


def test_cache_reuses_parsed_step_files(tmp_path):
    from stepsmith.runner.manifest import stepfiles

    stepfiles.clear_caches()
    m = write_workflow(tmp_path)
    check_workflow(m)
    n = len(stepfiles._PARSE_CACHE)
    check_workflow(m)
    assert len(stepfiles._PARSE_CACHE) == n == 2


def test_find_manifests_skips_hidden_and_state_folders(tmp_path):
    for rel in ["a/workflow.yaml", "b/billing.workflow.yaml", "b/notes.yaml", ".hidden/workflow.yaml",
                "c/.stepsmith/workflow.yaml", "node_modules/x/workflow.yaml", "d/e/workflow.yaml",
                "f/.workflow.yaml"]:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x: 1\n")
    found = [p.relative_to(tmp_path).as_posix() for p in find_manifests([tmp_path])]
    assert found == ["a/workflow.yaml", "b/billing.workflow.yaml", "d/e/workflow.yaml"]
    # a manifest passed directly, and duplicates removed
    assert find_manifests([tmp_path / "a/workflow.yaml", tmp_path / "a"]) == [tmp_path / "a/workflow.yaml"]
