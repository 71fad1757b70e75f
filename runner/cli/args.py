"""Arguments more than one command takes, defined once: the step a command runs (`run`,
`record`), `--format`, `--live`, `--watch`, `--strict`, and runs of on/off switches.

Only argparse here (no other import): every command's `register` calls these while
`stepsmith --help` is built, which must stay fast."""

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
    add_live(p, "give a public_egress step the network (never retried)")


def add_selection(p, step_help: str, k_help: str) -> None:
    """PATH..., `--step`, `-k` and `-j` as `stepsmith test` takes them (`mutants` too)."""
    p.add_argument("paths", nargs="*", default=None, metavar="PATH",
                   help="workflow folders or manifests, folders to search, a fixture file, a "
                   "step file, or a node id PATH::step[::case] (default: the configured "
                   "paths, else .)")
    p.add_argument("--step", action="append", default=[], metavar="STEP",
                   help=f"{step_help} (repeatable: any of them)")
    p.add_argument("-k", dest="keyword", action="append", default=[], metavar="EXPRESSION",
                   help=f"{k_help} (repeatable: any of them)")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="parallel sandboxes (default: twice the number of CPUs)")


def add_format(p, choices=("text", "json"), help: str | None = None) -> None:
    """`--format`, text by default (`check` has its own: ruff's --output-format names)."""
    p.add_argument("--format", choices=choices, default="text", help=help)


def add_live(p, help: str) -> None:
    p.add_argument("--live", action="store_true", help=help)


def add_watch(p, first: str, then: str) -> None:
    """`first` what the command does once, `then` what it does on every save."""
    p.add_argument("--watch", action="store_true", help=f"{first}, then {then} (Ctrl-C stops)")


def add_strict(p, fails: str) -> None:
    p.add_argument("--strict", action="store_true",
                   help=f"stale wired fixtures {fails}")


def add_switches(p, **switches: str) -> None:
    """On/off options, `name=help` each: `no_cache="..."` is `--no-cache` (dest `no_cache`,
    as argparse names it), in the order given."""
    for name, help in switches.items():
        p.add_argument("--" + name.replace("_", "-"), action="store_true", help=help)
