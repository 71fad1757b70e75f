"""Helpers shared by the validator tests."""

from __future__ import annotations

import textwrap

from stepsmith.runner.validator import StepUse, validate

EGRESS = (StepUse("fetch", "fetch", "public_egress"),)
NONE_USE = (StepUse("match", "match", "none"),)
#: The SS6xx catalogue examples' use: step `draft` declares effect `draft_bill` keyed by
#: `invoice_id`.
EFFECTS = (StepUse("draft", "draft", "none", {"draft_bill": "invoice_id"}),)


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def codes(source, **kw) -> list[str]:
    return [p.code for p in validate(source, **kw)]

