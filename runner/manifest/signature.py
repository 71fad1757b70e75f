"""A step function's signature against its manifest entry (SM204-SM208): the problems, their
quick fixes, and the echo on the function's `def` line."""

from __future__ import annotations

from pathlib import Path

from stepsmith.runner.fixes import fix_data
from stepsmith.runner.problems import Problem, Severity, Span
from stepsmith.runner.rules.manifest_rules import rationale

from . import fixedits
from .crossref import RESERVED_INPUTS, closest, did_you_mean
from .stepfiles import FunctionSig
from .yamlpos import YMap, YScalar, YSeq


def _def_reporter(sink: dict, fpath: Path, text: str, sig: FunctionSig, sid: str | None,
                  manifest_path: Path):
    """A callback putting a signature mismatch on the function's `def` line in the step file
    (the manifest keeps its own problem at the input), pointing back at the manifest."""

    def def_span() -> Span:  # only when a problem is reported: most steps have none
        line = text.splitlines()[sig.line - 1] if 0 < sig.line <= text.count("\n") + 1 else ""
        col = line.find(sig.name, line.find("def") + 3) if "def" in line else -1
        return Span(sig.line, col, sig.line, col + len(sig.name)) if col >= 0 \
            else Span(sig.line, 0, sig.line, len(line))

    def report(code: str, manifest_span: Span, message: str, name: str) -> None:
        span = def_span()
        where = f"{manifest_path.name}:{manifest_span.line}"
        step = f"step `{sid}`" if sid else "a step"
        sink.setdefault(fpath, []).append(Problem(
            code=code, message=f"{step} ({where}): {message}", span=span, step=sig.name,
            rationale=rationale(code),
            data={"manifest": str(manifest_path), "manifest_line": manifest_span.line,
                  "name": name}))

    return report


def _renamed(step: YMap, sig: FunctionSig, input_pairs, input_names, where: str,
             sid: str | None, add, on_def) -> bool:
    """Inputs without a parameter and as many parameters without an input, nothing else
    wrong: the parameters were renamed (in order). One finding with the fix renaming the
    inputs (and one echo on the `def` line) instead of an SM204 and an SM205 per name, twice."""

    unused = [p for p in input_pairs if p.name not in sig.params
              and p.name not in ("connections", "effects")]
    missing = [n for n in sig.params if n not in RESERVED_INPUTS and n not in input_names]
    if len(unused) < 2 or len(unused) != len(missing) or sig.problems:
        return False
    pairs = ", ".join(f"'{p.name}' -> '{n}'" for p, n in zip(unused, missing))
    fix = fix_data("rename-inputs", "Rename the inputs: " + pairs,
                   [(p.key.span, n) for p, n in zip(unused, missing)])
    add("SM204", f"inputs {', '.join(repr(p.name) for p in unused)} have no parameter in "
        f"{sig.name}() ({where}), which takes {', '.join(repr(n) for n in missing)} instead: "
        f"renamed? rename the inputs {pairs} (or the parameters back)", unused[0].key.span,
        sid, fix)
    if on_def is not None:
        on_def("SM204", unused[0].key.span, f"{sig.name}()'s parameters do not match the "
               f"manifest's inputs; renamed? {pairs}", unused[0].name)
    return True


def _check_signature(step: YMap, sig: FunctionSig, file_part: str, func_span: Span, cpair,
                     sid: str | None, add, on_def=None, fix_context=None) -> None:
    where = f"{file_part}:{sig.line}"
    lines = fixedits.lines_of(fix_context[0]) if fix_context else []
    if sig.problems:
        add("SM206", f"step function {sig.name}() ({where}) uses {', '.join(sig.problems)}; "
            "parameters must be plain names matching `inputs` exactly", func_span, sid)
    params = set(sig.params)
    inputs = step.get("inputs")
    input_pairs = inputs.pairs if isinstance(inputs, YMap) else []
    input_names = {p.name for p in input_pairs}
    # a rename: said once; the SM204/SM205 per name below would repeat it
    renamed = _renamed(step, sig, input_pairs, input_names, where, sid, add, on_def)
    for pair in input_pairs if not renamed else ():
        if pair.name in ("connections", "effects"):
            continue  # SM108 already
        if pair.name not in params:
            free = [p for p in sig.params if p not in input_names and p not in RESERVED_INPUTS]
            add("SM204", f"input '{pair.name}' has no parameter in {sig.name}() ({where})"
                + did_you_mean(pair.name, free), pair.key.span, sid,
                fixedits.remove_input(lines, step, pair, closest(pair.name, free))
                if fix_context else None)
            if on_def is not None:
                on_def("SM204", pair.key.span, f"the manifest gives this step input "
                       f"'{pair.name}', which {sig.name}() has no parameter for", pair.name)
    ipair = step.pair("inputs")
    missing_at = ipair.key.span if ipair is not None else func_span
    missing = [n for n in sig.params if n not in RESERVED_INPUTS and n not in input_names
               and not renamed]
    add_fix = None
    if missing and fix_context:  # one fix adding every missing input, on each problem
        sources, readable = fixedits.sources_and_steps(fix_context[1], sid)
        add_fix = fixedits.add_inputs(lines, step, missing, sources, readable)
    for name in missing:
        add("SM205", f"parameter '{name}' of {sig.name}() ({where}) has no input; add it under "
            "`inputs`", missing_at, sid, add_fix)
        if on_def is not None:
            on_def("SM205", missing_at, f"parameter '{name}' of {sig.name}() has no input under "
                   "the step's `inputs` in the manifest", name)
    # `connections` is optional even when connections are declared (ARCHITECTURE: "plus
    # optionally connections"); taking it without declaring any can never receive anything.
    # A step with declared effects must take `effects` (that is the only way to emit them),
    # and taking `effects` without declaring any is refused likewise.
    for reserved, code, noun in (("connections", "SM207", "connections"), ("effects", "SM208", "effects")):
        lst = step.get(reserved)
        declared = isinstance(lst, YSeq) and len(lst.items) > 0
        takes = reserved in params
        lpair = step.pair(reserved)
        if reserved == "effects" and declared and not takes:
            add(code, f"the step declares effects but {sig.name}() ({where}) has no `effects` "
                "parameter, so it could never emit them; add the parameter or remove the effects",
                lpair.key.span if lpair else func_span, sid)
        elif takes and not declared:
            add(code, f"{sig.name}() ({where}) takes `{reserved}` but the step declares no "
                f"{noun}; declare them under the step's `{reserved}` or remove the parameter",
                func_span, sid)
    if "connections" not in params:
        _unused_grants(step, sig, where, fix_context, sid, add)


def _unused_grants(step: YMap, sig: FunctionSig, where: str, fix_context, sid, add) -> None:
    """SM209 (a warning): a granted connection the function cannot receive (it takes no
    `connections`) and no effect of the step goes through. Removing the grant is a safe fix:
    the credential could never reach the code, so nothing it computes changes."""
    lst = step.get("connections")
    if not isinstance(lst, YSeq) or not lst.items:
        return
    text, root = fix_context if fix_context else ("", None)
    lines = fixedits.lines_of(text) if fix_context else ()
    via, effects = _effect_connections(root)
    listed = [e.data for e in getattr(step.get("effects"), "items", ())
              if isinstance(e, YScalar)]
    if any(e not in effects for e in listed):
        return  # an effect undeclared (SM103) or without a target may go through the grant
    used = {via.get(e) for e in listed}
    conns = root.get("connections") if isinstance(root, YMap) else None
    declared = set(conns.index) if isinstance(conns, YMap) else set()
    for item in lst.items:
        if not isinstance(item, YScalar) or not isinstance(item.data, str) or item.data in used:
            continue
        if item.data not in declared:
            continue  # SM101: most likely a misspelt name, whose did-you-mean comes first
        add("SM209", f"connection '{item.data}' is granted, but {sig.name}() ({where}) takes no "
            "`connections` and no effect of the step goes through it: the step can never use "
            "the credential; remove the grant (or take `connections` where it is used)",
            item.span, sid, fixedits.remove_grant(lines, step, item) if fix_context else None,
            severity=Severity.WARNING)


def _effect_connections(root) -> tuple[dict, set]:
    """({effect name: the connection it is performed through}, the effects whose target is
    known) of the workflow's `effects`."""
    effects = root.get("effects") if isinstance(root, YMap) else None
    out, known = {}, set()
    for pair in effects.pairs if isinstance(effects, YMap) else ():
        value = pair.value if isinstance(pair.value, YMap) else None
        conn, channel = (value.get("connection"), value.get("channel")) if value else (None, None)
        if isinstance(conn, YScalar) and isinstance(conn.data, str):
            out[pair.name] = conn.data
            known.add(pair.name)
        elif isinstance(channel, YScalar) and isinstance(channel.data, str):
            known.add(pair.name)  # on a channel: no connection
    return out, known
