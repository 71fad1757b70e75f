"""Record a fixture: run one step once and save the run as ``fixtures/<step>/<CASE>.json``.

Refused before anything runs (UsageError): an existing fixture without `force`, a case name
that is not a case name, a public_egress step without `live`. Refused after the run (Refused, or
SandboxUnavailable for an unavailable step; the result travels on the error to be shown): a
step that was refused / too large, undeclared or duplicate effects, a document in which a
granted credential appears (belt and braces on top of the sandbox's redaction). Atomic write.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stepsmith.runner.app.errors import Refused, SandboxUnavailable, UsageError
from stepsmith.runner.app.step import StepRequest, ensure_sandbox, execute, prepare
from stepsmith.runner.model.grammar import CASE_RE, CASE_RULE

CASE_NAME = CASE_RE  # the one case-name grammar (runner/model/grammar)
NOT_RECORDABLE = ("refused", "input_too_large", "unavailable")


@dataclass(frozen=True)
class RecordRequest:
    step: StepRequest
    name: str  # the case name
    force: bool = False


@dataclass(frozen=True)
class Recorded:
    target: Path
    status: str
    result: dict


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
    import json

    from stepsmith.runner.fixtures.invoke import display_path
    from stepsmith.runner.safeio import write_atomic

    lw, target, doc, res = recorded_document(req)
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    try:
        write_atomic(target, text, overwrite=req.force, root=lw.dir)
    except FileExistsError:  # appeared while the step ran: never clobber it
        raise UsageError(f"{display_path(target)} was created meanwhile; not overwritten "
                         "(--force overwrites it)") from None
    except OSError as exc:
        raise UsageError(f"cannot write {display_path(target)}: {exc.strerror or exc}") from exc
    return Recorded(target, res.get("status"), res)


def recorded_document(req: RecordRequest, *, overwriting_allowed: bool | None = None):
    """Run the step for a recording and check what would be written: (LoadedWorkflow, the
    fixture's path, its document, the result). Refused / UsageError as `record` says them.
    `overwriting_allowed` (default `req.force`): whether an existing fixture may be replaced
    (a pending change proposes a replacement without writing the fixture)."""
    from stepsmith.runner.fixtures.effects import check_effects
    from stepsmith.runner.fixtures.invoke import (
        InvokeError,
        display_path,
        known_credentials,
        load_granted,
        secrets_in,
    )

    if not CASE_NAME.fullmatch(req.name):
        raise UsageError(f"case name {req.name!r} is not a case name ({CASE_RULE})")
    p = prepare(req.step)
    lw, step = p.workflow, p.step
    target = lw.dir / "fixtures" / step.id / f"{req.name}.json"
    allowed = req.force if overwriting_allowed is None else overwriting_allowed
    if target.exists() and not allowed:
        raise UsageError(f"{display_path(target)} exists; --force overwrites it (or choose "
                         "another --name)")
    if step.network == "public_egress" and not req.step.live:
        raise UsageError(f"{step.id} is a public_egress step: recording it needs --live (the "
                         "fixture then serves this recording in tests)")
    ensure_sandbox()
    try:
        granted = load_granted(lw, step, live=req.step.live)
    except InvokeError as exc:
        raise UsageError(str(exc)) from exc
    res = execute(p, seed=req.step.seed, live=req.step.live, connections=granted)
    status = res.get("status")
    if status in NOT_RECORDABLE:
        kind = SandboxUnavailable if status == "unavailable" else Refused
        raise kind(f"not recorded: the step was {status}", result=res)
    if (res.get("error") or {}).get("type") == "InputError":  # the inputs cannot cross
        raise Refused(f"not recorded: {res['error']['message']}", result=res)
    bad = check_effects(lw.workflow, step, res.get("effects") or [])
    if bad:
        raise Refused("not recorded: " + "; ".join(map(str, bad)), result=res)
    doc = fixture_document(p.given, p.at, req.step.seed, res)
    leaked = secrets_in(doc, {**granted, **known_credentials(lw, step)})
    if leaked:
        raise Refused("not recorded: the fixture would contain the credential of "
                      f"connection(s) {', '.join(leaked)}")
    return lw, target, doc, res
