"""The resources and the prompt of `stepsmith mcp`: the dialect, the rules (the catalogue, and
each rule's page), the exact JSON Schema of workflow.yaml, the time zone names it accepts, and
the `draft_workflow_step` prompt. Each has a title."""

from __future__ import annotations

import json
from typing import Annotated

from pydantic import Field
from stepsmith.runner import rules
from stepsmith.runner.agent import tools
from stepsmith.runner.agent.schema_view import zone_names

from .prompt import draft_step_prompt


def register(server) -> None:
    @server.resource("stepsmith://dialect", title="The step dialect",
                     mime_type="application/json",
                     description="the modules a step may import and the public names of each")
    def dialect_resource() -> str:
        return json.dumps(tools.dialect(), separators=(",", ":"))

    @server.resource("stepsmith://rules", title="Every rule", mime_type="application/json",
                     description="every rule: code, summary, rationale, example, fix, page")
    def rules_resource() -> str:
        return json.dumps([tools.explain_rule(r.code).model_dump() for r in rules.all_rules()],
                          separators=(",", ":"))

    @server.resource("stepsmith://rules/{code}", title="A rule's page",
                     mime_type="text/markdown",
                     description="one rule's documentation page (e.g. stepsmith://rules/SS101)")
    def rule_page(code: str) -> str:
        return tools.explain_rule(code).page

    @server.resource("stepsmith://schema", title="workflow.yaml JSON Schema (exact)",
                     mime_type="application/schema+json",
                     description="the exact JSON Schema of workflow.yaml (the `schema` tool "
                     "gives the authoring view)")
    def schema_resource() -> str:
        return json.dumps(tools.full_schema(), separators=(",", ":"))

    @server.resource("stepsmith://timezones", title="Time zone names",
                     mime_type="application/json",
                     description="the IANA time zone names a manifest's timezone may take")
    def zones_resource() -> str:
        return json.dumps(zone_names(tools.full_schema()))

    @server.prompt(name="draft_workflow_step", title="Draft a workflow step",
                   description="Draft one step function and its manifest entry in the dialect")
    def draft_workflow_step(task: Annotated[str, Field(
            description="what the step should do, in plain words (e.g. 'match each invoice "
            "to an open purchase order of the same supplier within a penny')")]) -> str:
        return draft_step_prompt(task)
