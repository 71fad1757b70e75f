"""YAML syntax errors in the author's terms at the right line, as the tab
message already is, instead of PyYAML's parser words ("did not find expected '-' indicator
(while parsing a block collection ...)")."""

import pytest
from stepsmith.runner.manifest import parse_manifest

CASES = [
    # a step's key indented less than the step's other keys
    ("workflow: w\nsteps:\n  - id: a\n    explanation: x\n  code: y\n", 5,
     ["indent", "line 5", "column 5", "line 3", "'- '"]),
    ("workflow: w\nsteps:\n  - id: a\n   explanation: x\n", 4, ["indent", "column 5"]),
    ("a: [1, 2\nb: 3\n", 2, ["`[` opened at line 1, column 4", "`]`", "comma"]),
    ("a: {b: 1\n", 2, ["`{` opened at line 1, column 4", "`}`"]),
    ("workflow: w\n  version: 1\n", 2, ["already has a value", "line 1"]),
    ("workflow: w\nsteps:\n  - id: a\n    explanation: Note: check it\n", 4,
     ["contains ': '", "quote"]),
    # a key between a list item's keys (column 5) and the keys of its `inputs` (column 7)
    ("workflow: w\nsteps:\n  - id: a\n    inputs:\n      x: 1\n     other: 1\n", 6,
     ["line 6 is indented to column 6", "list item starting at line 3", "column 5",
      "column 7", "line 4", "line it up"]),
    ("workflow: w\nsteps:\n  - id: a\n    code: x\n    inputs:\n      x: 1\n      y: 2\n"
     "     other: 1\n", 8, ["line 8 is indented to column 6", "column 5", "column 7", "line 5"]),
    ("a:\n  b: 1\n  c:\n     d: 1\n    e: 2\n", 5,
     ["line 5 is indented to column 5", "mapping starting at line 2", "column 3", "column 6"]),
]


@pytest.mark.parametrize("text,line,needles", CASES, ids=range(len(CASES)))
def test_yaml_errors_in_the_authors_terms(text, line, needles):
    (p,) = [p for p in parse_manifest(text, "workflow.yaml").problems if p.code == "SM001"]
    assert p.span.line == line, p
    for n in needles:
        assert n in p.message, (n, p.message)
    for parser_words in ("did not find expected", "while parsing", "block collection",
                         "mapping values are not allowed"):
        assert parser_words not in p.message, p.message
