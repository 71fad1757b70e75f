"""Arguments shared by the commands that run one step (`run`, `record`)."""

from __future__ import annotations


def add_step_arguments(p, *, at_required: bool = False, required: bool = True) -> None:
    """`required=False`: the caller checks --step/--inputs/--at itself (record --case)."""
    p.add_argument("path", metavar="PATH", help="workflow folder or manifest (`run`: or a "
                   "fixture file, whose step, inputs, time and seed are used)")
    p.add_argument("--step", required=required, help="step id")
    p.add_argument("--inputs", required=required, metavar="FILE|-",
                   help="JSON object {parameter: value}; '-' reads stdin. Literal inputs of "
                   "the manifest are filled in when missing (`record`: may be left out when "
                   "every input is such a literal)")
    p.add_argument("--at", required=at_required and required, metavar="TIME",
                   help="evaluation time, ISO 8601 (what now()/today() return inside the step)"
                   + ("" if at_required else "; without it, calling now() is an error"))
    p.add_argument("--seed", type=int, default=None, help="seed for sampling")
    p.add_argument("--live", action="store_true",
                   help="give a public_egress step the network (never retried)")
