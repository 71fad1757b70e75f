"""What each step is permitted to reach: every step, including the ones that reach nothing.

Built from the manifest alone (declared permissions), never from reading the code: the honest
sentence says so wherever the table is shown. `StepReach` is the one record of a step's reach:
every front end renders it (runner/app/reach.py gathers the records of a workflow), and
`reach --diff` compares two workflows' records (runner/revisions/reach_changes.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from stepsmith.runner.model.refs import sources_read

REACH_SENTENCE = "This is what each step is permitted to reach, not a review of what its code does."

NETWORK_LABELS = {"none": "none", "public_egress": "public egress"}


@dataclass(frozen=True)
class StepReach:
    step_id: str
    function: str  # the step function's name
    code: str  # "steps/match.py:match" as written
    network: str  # "none" | "public_egress"
    connections: tuple[str, ...]  # granted connection aliases, in declared order
    sources: tuple[str, ...]  # sources read through inputs (`sources.<name>`), in input order
    effects: tuple[str, ...]  # effect names the step may emit
    explanation: str
    reaches_nothing: bool  # no network, no connections, no sources, no effects
    # what each source read is, by kind: {name: "connection xero" | "channel c" | "graph query q"}
    source_origins: tuple[tuple[str, str], ...] = ()
    # what each effect does where: {name: "create via xero" | "send to channel finance-requests"}
    effect_targets: tuple[tuple[str, str], ...] = ()

    @property
    def network_label(self) -> str:
        return NETWORK_LABELS.get(self.network, self.network)

    def to_json(self) -> dict:
        d = asdict(self)
        for k in ("connections", "sources", "effects"):
            d[k] = list(d[k])
        d["source_origins"] = dict(self.source_origins)
        d["effect_targets"] = dict(self.effect_targets)
        return d

    def effect_text(self, name: str) -> str:
        """"post_summary (send to channel finance-requests)", or the name alone."""
        target = dict(self.effect_targets).get(name)
        return f"{name} ({target})" if target else name

    def source_text(self, name: str) -> str:
        """"invoices (connection xero)", or the name alone."""
        origin = dict(self.source_origins).get(name)
        return f"{name} ({origin})" if origin else name


def reach_rows(workflow) -> list[StepReach]:
    """One row per step of a validated `Workflow`, in manifest order."""
    rows = []
    for step in workflow.steps:
        function = step.code_ref.function
        connections = tuple(dict.fromkeys(step.connections))
        effects = tuple(dict.fromkeys(step.effects))
        sources = sources_read(step.input_refs.values())
        nothing = step.network == "none" and not connections and not sources and not effects
        rows.append(
            StepReach(
                step_id=step.id,
                function=function,
                code=step.code,
                network=step.network,
                connections=connections,
                sources=sources,
                effects=effects,
                explanation=step.explanation,
                reaches_nothing=nothing,
                source_origins=tuple((n, source_origin(workflow, n)) for n in sources),
                effect_targets=tuple((e, effect_target(workflow, e)) for e in effects),
            )
        )
    return rows


def source_origin(workflow, name: str) -> str:
    """Where a source's data comes from, by kind: "connection xero", "channel alerts",
    "graph query account_owners" ("" when the source is not declared)."""
    src = (getattr(workflow, "sources", None) or {}).get(name)
    return "" if src is None else src.origin


def effect_target(workflow, name: str) -> str:
    """What an effect does where: "create via xero", "send to channel finance-requests" (""
    when the effect is not declared)."""
    eff = (getattr(workflow, "effects", None) or {}).get(name)
    return "" if eff is None else eff.reach
