"""Fixture rules (SF codes): findings about recorded fixtures, not code or manifest. Codes are
stable forever; never renumber, only add."""

from __future__ import annotations

from stepsmith.runner.rules import Rule

RULES = [
    Rule("SF001", "stale-wired-fixture",
         "A fixture recorded from a workflow case holds an input that its upstream step's "
         "fixture for that case no longer outputs.",
         "Wired fixtures must agree, or a downstream fixture keeps passing on data the "
         "upstream step no longer produces; refresh them with `stepsmith record --case`.",
         security=False),
]
