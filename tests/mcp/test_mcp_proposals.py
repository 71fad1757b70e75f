"""A proposed fixture crosses from the assistant to the person: `propose_fixture` over MCP (the
SDK's client, stdio), then the real `stepsmith review --accept`, then `stepsmith test` runs it.
A proposal carries the identity of the code that computed it, like `stepsmith test`'s pending
changes, and is refused as stale only when that code changed since, with advice that works for
a case that has no fixture yet. Real sandbox."""

from __future__ import annotations

import json

import agent_kit as ak
import pytest

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.usefixtures("sandbox")]

THREE = {"invoices": [{"id": "A", "amount": "1.10"}, {"id": "B", "amount": "2.20"},
                      {"id": "C", "amount": "3.30"}]}


@pytest.fixture
def ws(tmp_path):
    return ak.fresh_workspace(tmp_path)


async def test_a_proposed_case_is_accepted_by_review_and_then_passes_test(ws):
    async with ak.assistant(ws) as a:
        out = await a.ok("propose_fixture", {"workflow": "wf", "step": "total",
                                             "name": "three", "inputs": THREE})
    assert out["pending"] == "wf/.stepsmith/pending/total/three.json"
    saved = json.loads((ws / out["pending"]).read_text())
    assert saved["code"] == "steps/total.py" and len(saved["code_sha256"]) == 64
    person = ak.Person(ws)
    accepted = person.accept_all("wf")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "accepted 1," in accepted.stdout
    fixture = json.loads((ws / "wf" / "fixtures" / "total" / "three.json").read_text())
    assert fixture["expected"]["output"] == {"count": 3, "total": "6.60"}
    rc, doc = person.test_json("wf")
    outcomes = {r["id"]: r["outcome"] for r in doc["results"]}
    assert rc == 0 and outcomes == {"wf::total::example": "passed", "wf::total::three": "passed"}


async def test_a_proposal_whose_code_changed_since_is_refused_with_advice_for_a_new_case(ws):
    async with ak.assistant(ws) as a:
        await a.ok("propose_fixture", {"workflow": "wf", "step": "total", "name": "three",
                                       "inputs": THREE})
    step = ws / "wf" / "steps" / "total.py"
    step.write_text(step.read_text().replace('"count"', '"n"'))
    refused = ak.Person(ws).accept_all("wf")
    assert refused.returncode == 1
    why = refused.stderr
    assert "steps/total.py changed since it was computed" in why, why
    # `stepsmith test` would not recompute a case that has no fixture yet: say what does
    assert "stepsmith test" not in why, why
    assert "propose" in why and "stepsmith record wf --step total --name three" in why, why
    assert not (ws / "wf" / "fixtures" / "total" / "three.json").exists()
    assert (ws / "wf" / ".stepsmith" / "pending" / "total" / "three.json").exists()


async def test_review_list_shows_a_proposed_case_as_the_document_it_creates(ws):
    async with ak.assistant(ws) as a:
        out = await a.ok("propose_fixture", {"workflow": "wf", "step": "total", "name": "three",
                                             "inputs": THREE})
    listed = ak.Person(ws).run("review", "--list", "wf")
    assert listed.returncode == 0
    text = listed.stdout
    assert "new fixture wf::total::three" in text
    assert "expected null" not in text and "(null)" not in text, text  # no diff against null
    document = text[text.index("{"):text.rindex("}") + 1]
    assert json.loads(document) == out["document"]
    assert json.loads(document)["expected"]["output"] == {"count": 3, "total": "6.60"}
