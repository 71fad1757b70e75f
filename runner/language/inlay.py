"""Inlay hints in manifests (the server's `stepsmith.inlayHints` setting turns them off):
after `cron:` the schedule in words with its timezone ("07:00 on weekdays, Europe/London",
as actions/languageservices explains a cron expression), and after `steps.<id>.output` the
function that step runs. Read from the positioned tree, so a manifest whose schema fails
elsewhere still gets them; a cron expression that does not parse gets none (SM005 says why).
"""

from __future__ import annotations

from dataclasses import dataclass

from stepsmith.runner.manifest.yamlpos import YMap, YScalar, YSeq
from stepsmith.runner.model.refs import CodeRef, StepOutputRef, parse_input_ref

from .cron import describe


@dataclass(frozen=True)
class InlayHint:
    line: int  # 1-based
    column: int  # code points; the hint shows before this position
    label: str
    tooltip: str = ""


def _cron_hints(root: YMap) -> list[InlayHint]:
    trigger = root.get("trigger")
    schedule = trigger.get("schedule") if isinstance(trigger, YMap) else None
    if not isinstance(schedule, YMap):
        return []
    cron, zone = schedule.get("cron"), schedule.get("timezone")
    if not isinstance(cron, YScalar) or not isinstance(cron.data, str):
        return []
    words = describe(cron.data, zone.data if isinstance(zone, YScalar) else None)
    if words is None:
        return []
    sp = cron.span
    return [InlayHint(sp.end_line, sp.end_column, words, f"cron `{cron.data}`")]


def _output_hints(steps: YSeq) -> list[InlayHint]:
    functions: dict[str, CodeRef] = {}
    for item in steps.items:
        if isinstance(item, YMap):
            idn, code = item.get("id"), item.get("code")
            ref = CodeRef.parse(code.data) if isinstance(code, YScalar) else None
            if isinstance(idn, YScalar) and isinstance(idn.data, str) and ref is not None:
                functions.setdefault(idn.data, ref)
    out = []
    for item in steps.items:
        inputs = item.get("inputs") if isinstance(item, YMap) else None
        for pair in inputs.pairs if isinstance(inputs, YMap) else ():
            val = pair.value
            if not isinstance(val, YScalar) or not isinstance(val.data, str):
                continue
            ref = parse_input_ref(val.data)
            target = functions.get(ref.step) if isinstance(ref, StepOutputRef) else None
            if target is not None:
                sp = val.span
                out.append(InlayHint(sp.end_line, sp.end_column, f"{target.function}()",
                                     f"the return value of `{target.path}:{target.function}`"))
    return out


def inlay_hints(doc, first_line: int = 1, last_line: int | None = None) -> list[InlayHint]:
    """The hints of manifest `doc` (a ManifestDoc) between lines `first_line`..`last_line`."""
    root = getattr(doc, "root", None)
    if not isinstance(root, YMap):
        return []
    hints = _cron_hints(root)
    steps = root.get("steps")
    if isinstance(steps, YSeq):
        hints += _output_hints(steps)
    last = last_line if last_line is not None else float("inf")
    return sorted((h for h in hints if first_line <= h.line <= last),
                  key=lambda h: (h.line, h.column))


def manifest_inlay_hints(snapshot, path: str, first_line: int = 1,
                         last_line: int | None = None) -> list[InlayHint]:
    doc = snapshot.manifest_doc(path)
    return inlay_hints(doc, first_line, last_line) if doc is not None else []
