"""Inlay hints in manifests: the cron schedule in words with its timezone after `cron:`, the
step's function after `steps.<id>.output`; block and flow style; nothing for a bad cron."""

from __future__ import annotations

from fix_cases_kit import MANIFEST, snapshot
from stepsmith.runner.language.inlay import InlayHint, inlay_hints, manifest_inlay_hints
from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.workspace.index import norm

SCHEDULED = MANIFEST.replace("trigger: {manual: {}}",
                             'trigger:\n  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}')


def test_cron_in_words_and_the_function_of_a_step_output():
    text = SCHEDULED
    hints = inlay_hints(parse_manifest(text, "workflow.yaml"))
    lines = text.splitlines()
    cron_line = next(i for i, t in enumerate(lines, 1) if "cron:" in t)
    out_line = next(i for i, t in enumerate(lines, 1) if "steps.read.output" in t)
    assert hints == [
        InlayHint(cron_line, lines[cron_line - 1].index('", timezone') + 1,
                  "07:00 on weekdays, Europe/London", 'cron `0 7 * * 1-5`'),
        InlayHint(out_line, len(lines[out_line - 1]), "read()",
                  "the return value of `steps/read.py:read`"),
    ]


def test_block_style_and_a_line_range():
    text = SCHEDULED.replace('  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}',
                             "  schedule:\n    cron: 30 18 1 * *\n    timezone: UTC")
    doc = parse_manifest(text, "workflow.yaml")
    (cron,) = [h for h in inlay_hints(doc) if h.tooltip.startswith("cron")]
    assert cron.label.endswith(", UTC") and cron.line == 6 and cron.column == len("    cron: 30 18 1 * *")
    assert [h.label for h in inlay_hints(doc, 1, 10)] == [cron.label]


def test_no_hint_for_a_bad_cron_or_an_unknown_step():
    text = (SCHEDULED.replace("0 7 * * 1-5", "0 7 * *")
            .replace("rows: steps.read.output", "rows: steps.nope.output"))
    assert inlay_hints(parse_manifest(text, "workflow.yaml")) == []
    assert inlay_hints(parse_manifest("a: [", "workflow.yaml")) == []


def test_on_the_snapshot_buffer(tmp_path):
    snap = snapshot(tmp_path, {"workflow.yaml": SCHEDULED})
    labels = [h.label for h in manifest_inlay_hints(snap, norm(tmp_path / "workflow.yaml"))]
    assert labels == ["07:00 on weekdays, Europe/London", "read()"]
