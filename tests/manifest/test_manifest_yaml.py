"""YAML loading: exact positions for syntax errors, duplicate keys and refused YAML features."""

import pytest
from manifest_kit import BASE, at, pos
from stepsmith.runner.manifest import parse_manifest


def codes(doc):
    return [p.code for p in doc.problems]


def only(doc, code):
    found = [p for p in doc.problems if p.code == code]
    assert found, f"no {code} in {[(p.code, p.message) for p in doc.problems]}"
    return found[0]


def test_valid_base_has_no_problems():
    doc = parse_manifest(BASE, "workflow.yaml")
    assert doc.problems == []
    assert doc.workflow is not None
    assert [s.id for s in doc.workflow.steps] == ["match", "draft"]


def test_duplicate_key_reported_at_the_second_key():
    text = BASE.replace("version: 3\n", "version: 3\nversion: 4\n")
    doc = parse_manifest(text)
    p = only(doc, "SM002")
    assert at(p) == (3, 0)
    assert (p.span.end_line, p.span.end_column) == (3, 7)
    assert "first defined at line 2" in p.message
    assert doc.workflow is None  # ambiguous: never hand out a model YAML would read differently
    assert doc.data["version"] == 3  # the first occurrence is kept, visibly


def test_duplicate_key_nested_in_flow_mapping():
    text = BASE.replace("{connection: xero, description: Supplier invoices}",
                        "{connection: xero, connection: xero}")
    p = only(parse_manifest(text), "SM002")
    assert at(p) == pos(text, "connection: xero}")


def test_duplicate_input_parameter():
    text = BASE.replace("      tolerance: \"0.50\"\n", "      tolerance: \"0.50\"\n      invoices: x\n")
    p = only(parse_manifest(text), "SM002")
    assert at(p) == (21, 6)
    assert p.message.startswith("duplicate key 'invoices'")


def test_tab_indentation_points_at_the_tab():
    text = BASE.replace("  xero: {description: Ledger}", "\txero: {description: Ledger}")
    p = only(parse_manifest(text), "SM001")
    assert at(p) == (7, 0)
    assert "tab" in p.message


def test_bad_indentation():
    text = BASE.replace("    explanation: Pair each", "   explanation: Pair each")
    doc = parse_manifest(text)
    p = only(doc, "SM001")
    assert p.span.line == 15
    assert doc.workflow is None


def test_unclosed_quote_that_closes_later_hints_at_the_opening_quote():
    text = BASE.replace('python: "3.11"', 'python: "3.11')
    p = only(parse_manifest(text), "SM001")
    # the string swallows lines 3-5; libyaml fails at line 5; the message names the culprit
    assert at(p) == (5, 20)
    assert "quote opened at line 3, column 9" in p.message


def test_unclosed_quote_at_end_points_at_the_opening_quote():
    text = BASE.replace("{description: Ledger}", "{description: 'Ledger}")
    p = only(parse_manifest(text), "SM001")
    assert at(p) == pos(text, "'Ledger")
    assert "unclosed single quote" in p.message


def test_unclosed_flow_mapping():
    text = BASE.replace("{description: Ledger}", "{description: Ledger")
    p = only(parse_manifest(text), "SM001")
    assert "line 7, column 9" in p.message  # where the '{' opened (1-based column)
    assert p.span.line == 8


def test_anchor_and_alias_refused_at_the_anchor():
    text = BASE.replace("xero: {description: Ledger}", "xero: &x {description: Ledger}")
    p = only(parse_manifest(text), "SM009")
    assert at(p) == pos(text, "&x")
    assert "anchor" in p.message


def test_alias_refused_billion_laughs():
    lol = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(9)
    )
    doc = parse_manifest(lol)
    assert codes(doc) == ["SM009"]
    assert at(doc.problems[0]) == (1, 3)


def test_alias_without_anchor_refused_at_alias():
    text = "workflow: x\nversion: *v\n"
    p = only(parse_manifest(text), "SM009")
    assert at(p) == (2, 9)


def test_merge_key_refused():
    text = BASE.replace("xero: {description: Ledger}", "xero: {<<: {description: Ledger}}")
    p = only(parse_manifest(text), "SM009")
    assert at(p) == pos(text, "<<")


@pytest.mark.parametrize("tag", ["!!python/object:os.system", "!custom", "!!binary"])
def test_custom_tags_refused(tag):
    text = BASE.replace("version: 3", f"version: {tag} 3")
    p = only(parse_manifest(text), "SM009")
    assert at(p) == (2, 9)


def test_core_tag_allowed():
    text = BASE.replace("tolerance: \"0.50\"", "tolerance: !!str 0.50")
    doc = parse_manifest(text)
    assert doc.problems == []
    assert doc.workflow.steps[0].inputs["tolerance"] == "0.50"


def test_multiple_documents_refused_at_separator():
    text = BASE + "---\nworkflow: other\n"
    p = only(parse_manifest(text), "SM009")
    assert at(p) == pos(text, "---")


def test_complex_key_refused():
    text = BASE.replace("connections:\n  xero:", "connections:\n  ? [a, b]\n  : 1\n  xero:")
    p = only(parse_manifest(text), "SM009")
    assert at(p) == pos(text, "[a, b]")


def test_yaml_12_scalars_yes_is_text_not_boolean():
    text = BASE.replace('tolerance: "0.50"', "tolerance: yes")
    doc = parse_manifest(text)
    assert doc.problems == []
    assert doc.workflow.steps[0].inputs["tolerance"] == "yes"


def test_yaml_core_scalars():
    text = BASE.replace('tolerance: "0.50"', "tolerance: [~, null, true, False, 0x1F, 0o17, -3, 1.5e3, .inf, text]")
    doc = parse_manifest(text)
    assert doc.problems == []
    assert doc.workflow.steps[0].inputs["tolerance"] == [
        None, None, True, False, 31, 15, -3, 1500.0, float("inf"), "text"
    ]


def test_non_ascii_columns_are_code_points():
    text = BASE.replace("xero: {description: Ledger}", "xero: {description: Grand livre – comptes fournisseurs}").replace(
        "version: 3", "vérsion: 3"
    )
    doc = parse_manifest(text)
    p = only(doc, "SM003")
    assert at(p) == (2, 0)
    assert (p.span.end_line, p.span.end_column) == (2, 7)  # 7 code points, 8 UTF-8 bytes
    text2 = BASE.replace("xero: {description: Ledger}", "xéro: {description: «Ledger»}, bad: 1}")
    p2 = only(parse_manifest(text2), "SM001")
    assert p2.span.line == 7


def test_unicode_line_separators_do_not_shift_lines():
    # libyaml treats NEL/LS/PS as line breaks; editors (LSP) do not
    for ch in ("\u2028", "\u2029", "\x85"):
        text = BASE.replace("{description: Ledger}", f"{{description: Led{ch}ger}}").replace(
            "version: 3", "version: x")
        p = only(parse_manifest(text), "SM005")
        assert at(p) == (2, 9)


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_an_error_at_the_end_of_a_text_without_final_newline_stays_on_its_last_line(eol):
    # libyaml puts the end of such a stream on a line after the last one (found by the fuzz
    # test with a lone \r): the editor would get a diagnostic past the document
    text = eol.join(["workflow: w", "steps:", "  - id: a", "    effects:", "0"])
    p = only(parse_manifest(text), "SM001")
    assert (p.span.line, p.span.column) == (5, 1), p
    assert (p.span.end_line, p.span.end_column) == (5, 1), p


def test_lone_cr_line_ends_position_errors_like_an_editor():
    text = BASE.replace("\n", "\r").replace("    explanation: Pair each", "   explanation: Pair each")
    p = only(parse_manifest(text), "SM001")
    assert p.span.line == 15
    tab = BASE.replace("\n", "\r").replace("  xero: {description: Ledger}", "\txero: {description: Ledger}")
    p = only(parse_manifest(tab), "SM001")
    assert at(p) == (7, 0) and "tab" in p.message
