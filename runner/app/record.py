"""Record a fixture: run one step once and save the run as ``fixtures/<step>/<CASE>.json``.

Refused before anything runs (UsageError): an existing fixture without `force`, a case name
that is not a case name, a public_egress step without `live`. Refused after the run (Refused, or
SandboxUnavailable for an unavailable step; the result travels on the error to be shown): a
step that was refused / too large, undeclared or duplicate effects, a document in which a
granted credential appears (belt and braces on top of the sandbox's redaction), a failed live
run of a public_egress step unless `record_failure` (its outcome at the other end is unknown: the
request may have completed there, so the failure is no expectation). Atomic write.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from stepsmith.runner.app import pending
from stepsmith.runner.app.step import (
    PreparedStep,
    StepRequest,
    ensure_sandbox,
    execute,
    prepare,
)
from stepsmith.runner.app.workflow import known_credentials, load_granted, secrets_in
from stepsmith.runner.display import display_path
from stepsmith.runner.errors import InvokeError, Refused, SandboxUnavailable, UsageError
from stepsmith.runner.fixtures.command_inputs import read_inputs
from stepsmith.runner.fixtures.effects import check_effects
from stepsmith.runner.fixtures.load import forbidden_fields
from stepsmith.runner.model.grammar import CASE_RE, CASE_RULE
from stepsmith.runner.safeio import FIXTURE_CAP, read_if_exists, write_atomic

if TYPE_CHECKING:
    from stepsmith.runner.app.workflow import LoadedWorkflow

CASE_NAME = CASE_RE  # the one case-name grammar (runner/model/grammar)
NOT_RECORDABLE = ("refused", "input_too_large", "unavailable")


@dataclass(frozen=True)
class RecordRequest:
    step: StepRequest
    name: str  # the case name
    force: bool = False
    # a failed live run of a public_egress step is recorded only when asked for explicitly
    record_failure: bool = False
    # a public_egress step recorded offline: this file's JSON is the output (nothing runs)
    response: str | None = None


@dataclass(frozen=True)
class Recorded:
    target: Path
    status: str | None  # the result's, as the fixture expects it
    result: dict


@dataclass(frozen=True)
class Draft:
    """A checked recording, not yet written: the fixture's path and document, the result,
    and the step file that computed it (relative to the workflow folder, its bytes)."""

    workflow: LoadedWorkflow
    target: Path
    document: dict
    result: dict
    code: tuple[str, bytes]


def fixture_document(given: dict, at: str | None, seed: int | None, res: dict) -> dict:
    doc: dict = {"inputs": given, "evaluation_time": at}
    if seed is not None:
        doc["seed"] = seed
    status = res.get("status")
    if status == "ok":
        doc["expected"] = {"output": res.get("output"), "effects": res.get("effects") or []}
    elif status == "error":
        err = res.get("error") or {}
        doc["expected"] = {"error": {"type": err.get("type", ""),
                                     "message": err.get("message", "")}}
    else:
        doc["expected"] = {"status": status}
    return doc


def record_fixture(req: RecordRequest) -> Recorded:
    d = recorded_document(req)
    lw, target, res = d.workflow, d.target, d.result
    text = json.dumps(d.document, indent=2, ensure_ascii=False) + "\n"
    try:
        write_atomic(target, text, overwrite=req.force, root=lw.dir)
    except FileExistsError:  # appeared while the step ran: never clobber it
        raise UsageError(f"{display_path(target)} was created meanwhile; not overwritten "
                         "(--force overwrites it)") from None
    except OSError as exc:
        raise UsageError(f"cannot write {display_path(target)}: {exc.strerror or exc}") from exc
    return Recorded(target, res.get("status"), res)


def propose(req: RecordRequest, source: str = "agent"):
    """Run the step and write its result as a PENDING new (or replacing) fixture: what an
    assistant may do (a person accepts it with `stepsmith review`). The change carries the
    step file that computed it, as `stepsmith test`'s do, so `review` accepts it while that
    code is unchanged. Returns (the PendingChange, the Draft)."""

    d = recorded_document(req, overwriting_allowed=True)
    current = read_if_exists(d.target, root=d.workflow.dir, cap=FIXTURE_CAP)
    change = pending.write(d.workflow.dir, d.target.parent.name, req.name, d.document,
                           pending.sha256(current) if current is not None else None,
                           source=source, code=d.code)
    return change, d


def recorded_document(req: RecordRequest, *, overwriting_allowed: bool | None = None) -> Draft:
    """Run the step for a recording and check what would be written (a Draft). Refused /
    UsageError as `record` says them.
    `overwriting_allowed` (default `req.force`): whether an existing fixture may be replaced
    (a pending change proposes a replacement without writing the fixture)."""

    if not CASE_NAME.fullmatch(req.name):
        raise UsageError(f"case name {req.name!r} is not a case name ({CASE_RULE})")
    p = prepare(req.step)
    lw, step = p.workflow, p.step
    target = lw.dir / "fixtures" / step.id / f"{req.name}.json"
    allowed = req.force if overwriting_allowed is None else overwriting_allowed
    if target.exists() and not allowed:
        raise UsageError(f"{display_path(target)} exists; --force overwrites it (or choose "
                         "another --name)")
    code = (p.code.rel, p.code.raw)  # the bytes that run: a pending change's identity
    if req.response is not None:
        return Draft(lw, target, *_from_response(req, p, req.response), code)
    if step.network == "public_egress" and not req.step.live:
        raise UsageError(f"{step.id} is a public_egress step: recording it needs --live (the "
                         "fixture then serves this recording in tests), or --response FILE "
                         "with the output to record, offline")
    ensure_sandbox()
    granted = load_granted(lw, step, live=req.step.live)
    res = execute(p, seed=req.step.seed, live=req.step.live, connections=granted)
    status = res.get("status")
    if status in NOT_RECORDABLE:
        kind = SandboxUnavailable if status == "unavailable" else Refused
        raise kind(f"not recorded: the step was {status}", result=res)
    if (res.get("error") or {}).get("type") == "InputError":  # the inputs cannot cross
        raise Refused(f"not recorded: {res['error']['message']}", result=res)
    if (req.step.live and step.network == "public_egress" and status != "ok"
            and not req.record_failure):
        raise Refused(f"not recorded: the live run ended in {_failure(res)}; the call's outcome "
                      "at the other end is unknown, so it is no expectation. Run it again when "
                      "the service answers, or pass --record-failure to record this failure as "
                      "the expected result", result=res)
    bad = check_effects(lw.workflow, step, res.get("effects") or [])
    if bad:
        raise Refused("not recorded: " + "; ".join(map(str, bad)), result=res)
    doc = fixture_document(p.given, p.at, req.step.seed, res)
    leaked = secrets_in(doc, {**granted, **known_credentials(lw, step)})
    if leaked:
        raise Refused("not recorded: the fixture would contain the credential of "
                      f"connection(s) {', '.join(leaked)}")
    return Draft(lw, target, doc, res, code)


def _from_response(req: RecordRequest, p: PreparedStep, response: str) -> tuple[dict, dict]:
    """The fixture of a public_egress step whose output is the --response file's JSON: what
    `stepsmith test` serves for it offline, recorded without a live call."""

    if p.step.network != "public_egress":
        raise UsageError(f"--response is for public_egress steps (served from their recording "
                         f"in tests); {p.step.id} runs offline: record it by running it")
    if req.step.live:
        raise UsageError("--response records without a live call; leave out --live")
    try:
        output = read_inputs(response)  # a JSON object, read like --inputs
    except InvokeError as exc:
        raise UsageError(str(exc).replace("inputs", "response")) from exc
    bad = forbidden_fields(output)
    if bad:
        raise Refused("not recorded: the response carries forbidden field names at "
                      + ", ".join(bad) + " (secret, credentials, api_key and token are never "
                      "stored)")
    res = {"status": "ok", "output": output, "effects": [], "served_from": "response"}
    return fixture_document(p.given, p.at, req.step.seed, res), res


def _failure(res: dict) -> str:
    """`error (URLError)` / `wall_limit`: what the failed run ended in, one short phrase."""
    status = str(res.get("status"))
    err = res.get("error") or {}
    return f"{status} ({err['type']})" if status == "error" and err.get("type") else status
