"""Hostile and pathological manifests: a clear error (or success), never a traceback or a hang.

No timing assertions (shared machine); each case is bounded by design (size cap, depth cap,
lazy event parsing) and the suite's own runtime shows it.
"""

import pytest
from manifest_kit import big_manifest, big_step_file, write_workflow
from stepsmith.runner.manifest import MAX_DEPTH, check_workflow, parse_manifest


def single(doc):
    assert len(doc.problems) == 1, [(p.code, p.message) for p in doc.problems]
    assert doc.workflow is None
    return doc.problems[0]


def test_five_megabyte_manifest_refused_by_size():
    text = "workflow: x\n" + ("# padding " + "x" * 90 + "\n") * 52_000
    assert len(text) > 5_000_000
    p = single(parse_manifest(text))
    assert p.code == "SM007"
    assert "too large" in p.message and "MB" in p.message


def test_five_megabyte_file_refused_before_reading(tmp_path):
    m = tmp_path / "workflow.yaml"
    m.write_bytes(b"a: " + b"x" * 5_000_000 + b"\n")
    wc = check_workflow(m)
    (p,) = wc.problems[m]
    assert p.code == "SM007"


@pytest.mark.parametrize("opener", ["[", "{a: ", "- ", "a:\n  "])
def test_hundred_thousand_deep_nesting(opener):
    if opener == "a:\n  ":
        text = "".join("  " * i + f"k{i}:\n" for i in range(200))  # block depth costs size
    else:
        text = opener * 100_000
    p = single(parse_manifest(text))
    assert p.code == "SM007"
    assert f"more than {MAX_DEPTH} levels" in p.message
    # at the opener of the first level too many
    if opener == "[":
        assert (p.span.line, p.span.column) == (1, MAX_DEPTH)
    elif opener == "{a: ":
        assert (p.span.line, p.span.column) == (1, 4 * MAX_DEPTH)
    elif opener == "a:\n  ":
        assert (p.span.line, p.span.column) == (MAX_DEPTH + 1, 2 * MAX_DEPTH)


def test_deep_but_allowed_literal_input():
    from manifest_kit import BASE

    deep = "[" * 40 + "1" + "]" * 40
    doc = parse_manifest(BASE.replace('tolerance: "0.50"', f"tolerance: {deep}"))
    assert doc.problems == []


def test_invalid_utf8_manifest(tmp_path):
    m = tmp_path / "workflow.yaml"
    m.write_bytes(b"workflow: ok\nversion: \xc3\x28\n")
    (p,) = check_workflow(m).problems[m]
    assert p.code == "SM008"
    assert (p.span.line, p.span.column) == (2, 9)
    assert "0xc3" in p.message


def test_binary_manifest(tmp_path):
    m = tmp_path / "workflow.yaml"
    m.write_bytes(bytes(range(256)) * 20)
    (p,) = check_workflow(m).problems[m]
    assert p.code in ("SM008",)


def test_nul_byte_in_text():
    p = single(parse_manifest("workflow: x\nversion: 1\x00\n"))
    assert p.code == "SM008"
    assert (p.span.line, p.span.column) == (2, 10)


def test_lone_surrogate_from_an_editor_buffer():
    p = single(parse_manifest("workflow: \ud800\n"))
    assert p.code == "SM001"


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "---\n", "~\n"])
def test_empty_manifest(text):
    p = single(parse_manifest(text))
    assert p.code == "SM006"
    assert (p.span.line, p.span.column) == (1, 0)


def test_manifest_that_is_a_list():
    p = single(parse_manifest("\n- workflow: x\n- version: 1\n"))
    assert p.code == "SM006"
    assert "a list" in p.message
    assert (p.span.line, p.span.column) == (2, 0)


@pytest.mark.parametrize("text,kind", [("just text\n", "the text 'just text'"), ("42\n", "the number 42"),
                                       ('"quoted"\n', "the text 'quoted'")])
def test_manifest_that_is_a_scalar(text, kind):
    p = single(parse_manifest(text))
    assert p.code == "SM006"
    assert kind in p.message


def test_two_thousand_step_manifest_succeeds(tmp_path):
    text = big_manifest(2000)
    doc = parse_manifest(text)
    assert doc.problems == []
    assert len(doc.workflow.steps) == 2000
    m = write_workflow(tmp_path, text, {"steps/chain.py": big_step_file(2000)})
    wc = check_workflow(m)
    assert wc.ok, [p for ps in wc.problems.values() for p in ps][:5]
    assert len(wc.step_files[m.parent / "steps/chain.py"]) == 2000


def test_many_errors_do_not_explode():
    text = big_manifest(2000).replace("threshold: 5", "threshold: 5\n      token: x")
    doc = parse_manifest(text)
    assert len(doc.problems) == 2000
    assert {p.code for p in doc.problems} == {"SM301"}


def test_huge_integer_literal():
    from manifest_kit import BASE

    text = BASE.replace("version: 3", "version: " + "9" * 5000)
    doc = parse_manifest(text)
    assert [p.code for p in doc.problems] == ["SM005"]  # a value error at the value
    line = text[:text.index("9" * 5000)].count("\n") + 1
    assert (doc.problems[0].span.line, doc.problems[0].span.column) == (line, len("version: "))


def test_very_long_single_line():
    text = "workflow: " + "a" * 1_000_000 + "\n"
    doc = parse_manifest(text)
    assert all(p.code in ("SM004",) for p in doc.problems)


def test_many_flow_items():
    text = "workflow: x\nitems: [" + ", ".join(["1"] * 200_000) + "]\n"
    doc = parse_manifest(text)
    assert "SM003" in {p.code for p in doc.problems}


def _missing_refs_manifest(steps: int) -> str:
    import yaml
    from wfkit import demo_manifest

    return yaml.safe_dump(demo_manifest(steps=[
        {"id": f"step-{s}", "explanation": f"Step {s}.", "code": f"steps/s.py:f{s}",
         "inputs": {"a": "sources.numbers", "b": f"steps.stap-{s}.output"}}
        for s in range(steps)]), sort_keys=False)


def _comparisons(monkeypatch, text: str) -> tuple[int, list]:
    """Name comparisons the did-you-mean made while parsing `text`, and the SM104 problems."""
    import stepsmith.runner.manifest.crossref as crossref

    count = [0]
    real = crossref.closest

    def counting(name, choices):
        count[0] += len(choices)
        return real(name, choices)

    monkeypatch.setattr(crossref, "closest", counting)
    doc = parse_manifest(text)
    return count[0], [p for p in doc.problems if p.code == "SM104"]


def test_every_step_referring_to_a_missing_step_costs_linear_work(monkeypatch):
    """Issue 21: N steps each referring to a missing step compared every name with every step
    id (N*N: 600 steps took 10 times as long as 200). The did-you-mean has a budget linear in
    the manifest's size; every problem is still reported, the first ones with a suggestion."""
    small, small_problems = _comparisons(monkeypatch, _missing_refs_manifest(200))
    big, big_problems = _comparisons(monkeypatch, _missing_refs_manifest(600))
    assert len(small_problems) == 200 and len(big_problems) == 600
    assert big <= 3.5 * small
    assert "did you mean 'step-0'?" in big_problems[0].message
    assert big_problems[0].data["replacement"] == "step-0"


def test_a_few_unknown_names_all_get_difflibs_suggestion(monkeypatch):
    """Within the budget the suggestion is difflib.get_close_matches's, for every name."""
    import difflib

    count, problems = _comparisons(monkeypatch, _missing_refs_manifest(40))
    ids = [f"step-{s}" for s in range(40)]
    for s, p in enumerate(problems):
        best = difflib.get_close_matches(f"stap-{s}", ids, n=1, cutoff=0.6)[0]
        assert f"did you mean '{best}'?" in p.message
