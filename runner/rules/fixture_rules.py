"""Fixture rules (SF codes): findings about recorded fixtures, not code or manifest. Codes are
stable forever; never renumber, only add.

`example` / `fix` of SF002 on: the fixture file's path inside the workflow folder on the first
line, its text after it (the demo workflow of the tests: step `add(a, b)`, `a` from
`sources.numbers`, `b` a literal); tests/cli/test_check_fixture_findings.py checks that
`stepsmith check` gives the code for each example and nothing for each fix."""

from __future__ import annotations

from stepsmith.runner.rules import Rule

RULES = [
    Rule("SF001", "stale-wired-fixture",
         "A fixture recorded from a workflow case holds an input that its upstream step's "
         "fixture for that case no longer outputs.",
         "Wired fixtures must agree, or a downstream fixture keeps passing on data the "
         "upstream step no longer produces; refresh them with `stepsmith record --case`.",
         security=False),
    Rule("SF002", "fixture-not-json",
         "A fixture file is not valid JSON (or not UTF-8, too large or unreadable).",
         "A fixture that cannot be read cannot run: `stepsmith test` reports it as an error, "
         "so the check says so first, at the position the parser stopped.",
         security=False,
         example='fixtures/add/simple.json\n{"inputs": {"a": "1.00"},}\n',
         fix='fixtures/add/simple.json\n{"inputs": {"a": "1.00"}, "evaluation_time": null, '
             '"expected": {"output": {"sum": "1.50"}}}\n'),
    Rule("SF003", "fixture-format",
         "A fixture does not follow the fixture format: an unknown or missing key, or a "
         "value of the wrong type.",
         "The format is strict so a typo (`expect` for `expected`) fails loudly instead of "
         "silently checking less.",
         security=False,
         example='fixtures/add/simple.json\n{"inputs": {"a": "1.00"}, "evaluation_time": null, '
                 '"expect": {"output": {"sum": "1.50"}}}\n',
         fix='fixtures/add/simple.json\n{"inputs": {"a": "1.00"}, "evaluation_time": null, '
             '"expected": {"output": {"sum": "1.50"}}}\n'),
    Rule("SF004", "fixture-unknown-step",
         "A fixture lies in `fixtures/<step-id>/` for a step no manifest in the folder "
         "declares.",
         "Its step was renamed or removed: the fixture can never run, and nothing else would "
         "say that it tests nothing.",
         security=False,
         example='fixtures/ad/simple.json\n{"inputs": {"a": "1.00"}, "evaluation_time": null, '
                 '"expected": {"output": {"sum": "1.50"}}}\n',
         fix='fixtures/add/simple.json\n{"inputs": {"a": "1.00"}, "evaluation_time": null, '
             '"expected": {"output": {"sum": "1.50"}}}\n'),
    Rule("SF005", "fixture-unknown-input",
         "A fixture's inputs name a parameter the step does not have.",
         "The step is called with its manifest inputs only; an unknown key (a renamed "
         "parameter) makes the fixture fail to run.",
         security=False,
         example='fixtures/add/simple.json\n{"inputs": {"a": "1.00", "amount": "2"}, '
                 '"evaluation_time": null, "expected": {"output": {"sum": "1.50"}}}\n',
         fix='fixtures/add/simple.json\n{"inputs": {"a": "1.00"}, "evaluation_time": null, '
             '"expected": {"output": {"sum": "1.50"}}}\n'),
    Rule("SF006", "fixture-missing-input",
         "A fixture gives no value for a parameter the manifest wires to a source or an "
         "upstream step.",
         "Only literal inputs are filled in from the manifest; a recorded case must hold "
         "every value that comes from outside the step.",
         security=False,
         example='fixtures/add/simple.json\n{"inputs": {}, "evaluation_time": null, '
                 '"expected": {"output": {"sum": "1.50"}}}\n',
         fix='fixtures/add/simple.json\n{"inputs": {"a": "1.00"}, "evaluation_time": null, '
             '"expected": {"output": {"sum": "1.50"}}}\n'),
    Rule("SF007", "fixture-misplaced",
         "A JSON file lies directly in `fixtures/`, where no step's fixtures are.",
         "Fixtures live in `fixtures/<step-id>/<case>.json` and workflow cases in "
         "`fixtures/_workflow/`; a file elsewhere is never run.",
         security=False,
         example='fixtures/simple.json\n{"inputs": {"a": "1.00"}, "evaluation_time": null, '
                 '"expected": {"output": {"sum": "1.50"}}}\n',
         fix='fixtures/add/simple.json\n{"inputs": {"a": "1.00"}, "evaluation_time": null, '
             '"expected": {"output": {"sum": "1.50"}}}\n'),
    Rule("SF008", "case-unknown-source",
         "A workflow case (`fixtures/_workflow/`) gives a value for a source the manifest "
         "does not declare.",
         "`record --case` and `run-workflow` feed steps from declared sources only; a "
         "misspelt source leaves the real one without a value.",
         security=False,
         example='fixtures/_workflow/day1.json\n{"sources": {"numbrs": "1.00"}, '
                 '"evaluation_time": null}\n',
         fix='fixtures/_workflow/day1.json\n{"sources": {"numbers": "1.00"}, '
             '"evaluation_time": null}\n'),
    Rule("SF009", "fixture-bad-name",
         "A fixture file's name is not a valid case name (lowercase letters, digits, '.', '-' "
         "or '_'), so it is never listed or run.",
         "A case name becomes part of a node id that tests list and shells complete: a name "
         "like `$(id).json` must never reach a command line, so the file is left out.",
         security=False,
         example='fixtures/add/Simple Case.json\n{"inputs": {"a": "1.00"}, '
                 '"evaluation_time": null, "expected": {"output": {"sum": "1.50"}}}\n',
         fix='fixtures/add/simple-case.json\n{"inputs": {"a": "1.00"}, '
             '"evaluation_time": null, "expected": {"output": {"sum": "1.50"}}}\n'),
]
