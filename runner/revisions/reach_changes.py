"""What a change widens: each step's reach before and after, compared from the manifests alone.

Pure: takes two validated workflows (or None for "absent") and returns typed changes. Steps are
matched by id, then (for ids that disappeared on one side and appeared on the other) by the code
reference they run, so renaming a step reads as a rename and not as a removal plus an addition.

A change *widens* when the step can reach something it could not before: network turned on, a
connection granted, a source read (or a source it reads now comes from somewhere else), an effect
added, or a new step that reaches anything. Narrowing and wording changes are shown, never gate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stepsmith.runner.reach import StepReach, reach_rows

# change kinds, in the order a reviewer reads them
STEP_ADDED = "step-added"
STEP_REMOVED = "step-removed"
STEP_RENAMED = "step-renamed"
NETWORK = "network"
CONNECTION_GRANTED = "connection-granted"
CONNECTION_REVOKED = "connection-revoked"
SOURCE_ADDED = "source-added"
SOURCE_REMOVED = "source-removed"
SOURCE_ORIGIN = "source-origin"
EFFECT_ADDED = "effect-added"
EFFECT_REMOVED = "effect-removed"
EFFECT_ORIGIN = "effect-origin"
EXPLANATION = "explanation"
CODE = "code"


@dataclass(frozen=True)
class ReachChange:
    kind: str
    step: str  # the step id on the working-tree side (the old id for a removed step)
    before: str | None = None
    after: str | None = None
    widens: bool = False

    def describe(self) -> str:
        """One plain sentence, e.g. "network: none → public egress"."""
        b, a = self.before, self.after
        return {
            STEP_ADDED: f"new step, reaching {a}",
            STEP_REMOVED: f"step removed (it reached {b})",
            STEP_RENAMED: f"step renamed from {b} (same code {a})",
            NETWORK: f"network: {_net(b)} → {_net(a)}",
            CONNECTION_GRANTED: f"connection granted: {a}",
            CONNECTION_REVOKED: f"connection revoked: {b}",
            SOURCE_ADDED: f"reads source: {a}",
            SOURCE_REMOVED: f"no longer reads source: {b}",
            SOURCE_ORIGIN: f"source now comes from elsewhere: {b} → {a}",
            EFFECT_ADDED: f"effect added: {a}",
            EFFECT_REMOVED: f"effect removed: {b}",
            EFFECT_ORIGIN: f"effect now does something else: {b} → {a}",
            EXPLANATION: "explanation changed",
            CODE: f"code: {b} → {a}",
        }[self.kind]

    def to_json(self) -> dict:
        return {"kind": self.kind, "step": self.step, "before": self.before,
                "after": self.after, "widens": self.widens, "description": self.describe()}


@dataclass(frozen=True)
class WorkflowReachDiff:
    """One workflow's comparison. `status`: added | removed | changed | unchanged |
    unreadable (one side could not be read as a workflow: `error` says which and why)."""

    workflow: str
    path: str  # the manifest in the working tree (or at REV when removed)
    before_path: str | None
    status: str
    changes: tuple[ReachChange, ...] = ()
    error: str | None = None
    version_before: int | None = None
    version_after: int | None = None

    @property
    def widens(self) -> bool:
        return any(c.widens for c in self.changes)

    def to_json(self) -> dict:
        return {"workflow": self.workflow, "path": self.path, "before_path": self.before_path,
                "status": self.status, "widens": self.widens, "error": self.error,
                "version_before": self.version_before, "version_after": self.version_after,
                "changes": [c.to_json() for c in self.changes]}


@dataclass(frozen=True)
class ReachDiff:
    rev: str
    workflows: tuple[WorkflowReachDiff, ...] = field(default=())
    top: str = ""  # the repository's top folder: paths above are relative to it

    @property
    def widens(self) -> bool:
        return any(w.widens for w in self.workflows)

    @property
    def undecided(self) -> tuple[WorkflowReachDiff, ...]:
        """Workflows whose reach in the work tree could not be read: nothing can be said about
        what they widen, so a gate must not pass them."""
        return tuple(w for w in self.workflows if w.status == "unreadable"
                     and w.error and "in the work tree" in w.error)

    @property
    def changed(self) -> tuple[WorkflowReachDiff, ...]:
        return tuple(w for w in self.workflows if w.status != "unchanged")

    def to_json(self) -> dict:
        return {"rev": self.rev, "widens": self.widens,
                "workflows": [w.to_json() for w in self.workflows]}


def _net(value: str | None) -> str:
    return "public egress" if value == "public_egress" else (value or "none")


def reach_summary(row: StepReach) -> str:
    """What a step reaches, in a few words, for added and removed steps."""
    if row.reaches_nothing:
        return "nothing"
    parts = []
    if row.network != "none":
        parts.append(_net(row.network))
    parts += [f"connection {c}" for c in row.connections]
    parts += [f"source {s}" for s in row.sources]
    parts += [f"effect {row.effect_text(e)}" for e in row.effects]
    return ", ".join(parts)


def _match(before: list[StepReach], after: list[StepReach]):
    """Pairs (before_row | None, after_row | None): by id, then by code reference."""
    old = {r.step_id: r for r in before}
    new = {r.step_id: r for r in after}
    pairs = [(old.get(r.step_id), r) for r in after if r.step_id in old]
    gone = [r for r in before if r.step_id not in new]
    came = [r for r in after if r.step_id not in old]
    by_code: dict[str, list[StepReach]] = {}
    for r in gone:
        by_code.setdefault(r.code, []).append(r)
    unmatched_new = []
    for r in came:
        candidates = by_code.get(r.code)
        if candidates:
            pairs.append((candidates.pop(0), r))
        else:
            unmatched_new.append(r)
    renamed_from = {b.step_id for b, _a in pairs}
    pairs += [(None, r) for r in unmatched_new]
    pairs += [(r, None) for r in gone if r.step_id not in renamed_from]
    return pairs


def compare_steps(b: StepReach | None, a: StepReach | None) -> list[ReachChange]:
    """The changes of one matched pair of step records (either side may be absent): where a
    source comes from and what an effect does are read from each side's own record."""
    if b is None and a is not None:
        return [ReachChange(STEP_ADDED, a.step_id, None, reach_summary(a),
                            widens=not a.reaches_nothing)]
    if a is None and b is not None:
        return [ReachChange(STEP_REMOVED, b.step_id, reach_summary(b), None)]
    assert a is not None and b is not None
    out: list[ReachChange] = []
    sid = a.step_id
    if b.step_id != a.step_id:
        out.append(ReachChange(STEP_RENAMED, sid, b.step_id, a.code))
    if b.network != a.network:
        out.append(ReachChange(NETWORK, sid, b.network, a.network,
                               widens=a.network != "none"))
    out += [ReachChange(CONNECTION_GRANTED, sid, None, c, widens=True)
            for c in a.connections if c not in b.connections]
    out += [ReachChange(CONNECTION_REVOKED, sid, c, None)
            for c in b.connections if c not in a.connections]
    out += [ReachChange(SOURCE_ADDED, sid, None, a.source_text(s), widens=True)
            for s in a.sources if s not in b.sources]
    out += [ReachChange(SOURCE_REMOVED, sid, b.source_text(s), None)
            for s in b.sources if s not in a.sources]
    origins_b, origins_a = dict(b.source_origins), dict(a.source_origins)
    out += [ReachChange(SOURCE_ORIGIN, sid, b.source_text(s), a.source_text(s), widens=True)
            for s in a.sources if s in b.sources and origins_a.get(s) != origins_b.get(s)]
    out += [ReachChange(EFFECT_ADDED, sid, None, a.effect_text(e), widens=True)
            for e in a.effects if e not in b.effects]
    out += [ReachChange(EFFECT_REMOVED, sid, b.effect_text(e), None)
            for e in b.effects if e not in a.effects]
    if b.code != a.code and b.step_id == a.step_id:
        out.append(ReachChange(CODE, sid, b.code, a.code))
    if b.explanation != a.explanation:
        out.append(ReachChange(EXPLANATION, sid, b.explanation, a.explanation))
    return out


def _effect_origins(b: StepReach, a: StepReach) -> list[ReachChange]:
    """An effect both sides emit whose own declaration changed (kind, connection or channel):
    it now does something else, which widens."""
    targets_b, targets_a = dict(b.effect_targets), dict(a.effect_targets)
    return [ReachChange(EFFECT_ORIGIN, a.step_id, b.effect_text(e), a.effect_text(e),
                        widens=True)
            for e in a.effects if e in b.effects and e in targets_b and e in targets_a
            and targets_a[e] != targets_b[e]]


def compare_records(before: list[StepReach], after: list[StepReach]) -> list[ReachChange]:
    """Every change between two workflows' step records (`reach_rows`; [] for an absent
    workflow)."""
    pairs = _match(before, after)
    changes: list[ReachChange] = []
    for b, a in pairs:
        changes += compare_steps(b, a)
    for b, a in pairs:  # after every step's own changes, as a reviewer reads them
        if b is not None and a is not None:
            changes += _effect_origins(b, a)
    return changes


def compare_workflows(before, after) -> list[ReachChange]:
    """Every change between two validated `Workflow`s (either may be None: absent)."""
    return compare_records(reach_rows(before) if before is not None else [],
                           reach_rows(after) if after is not None else [])
