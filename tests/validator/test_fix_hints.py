"""SS405 (a top-level statement) and SM004 (a missing key) say how to fix
it, as the other findings do."""

from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.validator import validate

BASE = """workflow: w
version: 1
python: "3.11"
trigger: {manual: {}}
steps:
  - id: s
    explanation: Do it.
    code: steps/s.py:s
"""


def test_ss405_says_where_a_top_level_statement_goes():
    (p,) = validate("RATE = 3\n\n\ndef s(x):\n    return x * RATE\n")
    assert p.code == "SS405"
    assert "move it into the function that uses it" in p.message
    assert "literal input" in p.message  # a setting belongs in the manifest
    (p,) = validate("print('hi')\n\n\ndef s(x):\n    return x\n")
    assert p.code == "SS405" and "move it into a function" in p.message


def test_sm004_shows_the_key_to_add():
    msgs = {p.code: p.message for p in parse_manifest(
        BASE.replace("    explanation: Do it.\n", ""), "workflow.yaml").problems}
    assert "add `explanation: <what this step does, in plain language>`" in msgs["SM004"]
    msgs = {p.code: p.message for p in parse_manifest(
        BASE.replace('python: "3.11"\n', ""), "workflow.yaml").problems}
    assert 'add `python: "3.11"`' in msgs["SM004"]
