"""`stepsmith record PATH --step S --inputs FILE|- --at TIME --name CASE`: run one step once
and save the run as the fixture ``fixtures/<step>/<CASE>.json``.

Refuses (exit 2, nothing written): an existing fixture without --force, a case name that is
not a slug (no folders, no '..'). Refuses (exit 1): inputs with forbidden field names, a
refused step (fix the code first), and — belt and braces on top of the sandbox's redaction —
any document in which a granted credential appears. Writes atomically.
"""

from __future__ import annotations

import argparse
import re

CASE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,99}$")
NOT_RECORDABLE = ("refused", "input_too_large", "unavailable")


def register(sub) -> None:
    from stepsmith.runner.cli.run import add_step_arguments

    p = sub.add_parser("record", help="run one step and save the run as a fixture",
                       description="Run one step once in a fresh sandbox and save inputs, "
                       "evaluation time, seed and the result as fixtures/<step>/<CASE>.json.")
    add_step_arguments(p, at_required=True, required=False)
    p.add_argument("--name", metavar="CASE",
                   help="case name (lowercase slug: a-z, 0-9, '-', '_'); with --case, the "
                   "fixtures' name (default: the case name)")
    p.add_argument("--force", action="store_true", help="overwrite an existing fixture")
    p.add_argument("--case", metavar="CASE",
                   help="record one fixture per step from the workflow case "
                   "fixtures/_workflow/<CASE>.json (existing fixtures become pending changes)")
    p.set_defaults(func=run)


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


def write_atomic(path, text: str, *, overwrite: bool = True, root=None) -> None:
    """Write `text` to `path` all at once or not at all (a temporary file in the same folder,
    fsynced, then renamed; removed on any failure or Ctrl-C). Without `overwrite`, an existing
    `path` raises FileExistsError and is left alone, even if it appears meanwhile (hard link:
    no check-then-replace race). `root`: the workflow folder `path` lies in; every folder
    between must be a real directory, and `path` itself not a symlink (safeio.UnsafePath)."""
    import os
    import tempfile

    from stepsmith.runner import safeio

    if root is not None:  # inside a workflow folder: no symlinked folder or file on the way
        safeio.safe_dir(root, os.path.relpath(path.parent, root))
        safeio.refuse_symlink(path)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # FileExistsError when it exists
            except FileExistsError:
                raise
            except OSError:  # a filesystem without hard links
                if os.path.lexists(path):
                    raise FileExistsError(path) from None
                os.replace(tmp, path)
            else:
                os.unlink(tmp)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def run(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console
    from stepsmith.runner.cli.run import Usage, prepare, print_result
    from stepsmith.runner.fixtures.invoke import (
        InvokeError,
        display_path,
        invoke,
        known_credentials,
        load_granted,
        result_dict,
        sandbox_status,
        secrets_in,
    )

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if args.case is not None:
        from stepsmith.runner.cli.record_case import run as run_case

        return run_case(args)
    missing = [f for f, v in (("--step", args.step), ("--inputs", args.inputs),
                              ("--at", args.at), ("--name", args.name)) if v is None]
    if missing:
        err.print(f"stepsmith record: the following arguments are required: "
                  f"{', '.join(missing)} (or --case CASE to record a whole workflow case)",
                  markup=False)
        return 2
    if not CASE_NAME.match(args.name):
        err.print(f"stepsmith record: case name {args.name!r} is not a slug "
                  "(lowercase letters, digits, '-' and '_'; at most 100)", markup=False)
        return 2
    try:
        lw, step, code, given, inputs, at = prepare(args)
    except Usage as exc:
        err.print(f"stepsmith record: {exc}", markup=False)
        return exc.code
    target = lw.dir / "fixtures" / step.id / f"{args.name}.json"
    if target.exists() and not args.force:
        err.print(f"stepsmith record: {display_path(target)} exists; --force overwrites it "
                  "(or choose another --name)", markup=False)
        return 2
    if step.network == "public_egress" and not args.live:
        err.print(f"stepsmith record: {step.id} is a public_egress step: recording it needs "
                  "--live (the fixture then serves this recording in tests)", markup=False)
        return 2
    ok, why = sandbox_status()
    if not ok:
        err.print(f"stepsmith record: the sandbox is unavailable: {why}", markup=False)
        return 2
    try:
        granted = load_granted(lw, step, live=args.live)
    except InvokeError as exc:
        err.print(f"stepsmith record: {exc}", markup=False)
        return 2
    res = result_dict(invoke(lw, code, inputs, evaluation_time=at, seed=args.seed,
                             live=args.live, connections=granted))
    status = res.get("status")
    if status in NOT_RECORDABLE:
        print_result(err, res, step.id)
        err.print(f"stepsmith record: not recorded: the step was {status}", markup=False)
        return 2 if status == "unavailable" else 1
    from stepsmith.runner.fixtures.invoke import check_effects

    bad = check_effects(lw.workflow, step, res.get("effects") or [])
    if bad:
        print_result(err, res, step.id)
        err.print("stepsmith record: not recorded: " + "; ".join(map(str, bad)), markup=False)
        return 1
    doc = fixture_document(given, at, args.seed, res)
    leaked = secrets_in(doc, {**granted, **known_credentials(lw, step)})
    if leaked:
        err.print("stepsmith record: not recorded: the fixture would contain the credential of "
                  f"connection(s) {', '.join(leaked)}", markup=False)
        return 1
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    try:
        write_atomic(target, text, overwrite=args.force, root=lw.dir)
    except FileExistsError:  # appeared while the step ran: never clobber it
        err.print(f"stepsmith record: {display_path(target)} was created meanwhile; not "
                  "overwritten (--force overwrites it)", markup=False)
        return 2
    except OSError as exc:
        err.print(f"stepsmith record: cannot write {display_path(target)}: "
                  f"{exc.strerror or exc}", markup=False)
        return 2
    out = Console(highlight=False, soft_wrap=True)
    print_result(out, res, step.id)
    out.print(f"recorded {display_path(target)} (expected status {status})", markup=False)
    return 0

