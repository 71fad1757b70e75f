"""The `stepsmith` settings section (see PROTOCOL.md)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

_ALIASES = {"run_on_save": "runOnSave", "run_on_type": "runOnType"}


@dataclass(frozen=True)
class Settings:
    runOnSave: bool = True
    # run as the author types (the unsaved buffer), in a trusted workspace (issue 12)
    runOnType: bool = True
    runOnTypeDelayMs: int = 300
    # informational "no fixture takes this branch" diagnostics from the last traced runs
    coverageDiagnostics: bool = True
    maxFileSize: int = 2_000_000
    inlayHints: bool = True  # manifests: the cron schedule in words, the function of a step output
    interpreter: Any = None
    # where the rule pages are published (https only): diagnostics link there; unset, none do
    ruleDocsUrl: Any = None
    # The client says whether the workspace is trusted. Untrusted: diagnostics only, nothing
    # executes — the server refuses run/record commands and never runs on save or type, as a
    # second line behind the client's own gate.
    trusted: bool = True

    def merged(self, raw: Any) -> Settings:
        """Return a copy updated from a client's settings object (unknown keys ignored,
        wrongly-typed values ignored)."""
        if not isinstance(raw, dict):
            return self
        if isinstance(raw.get("stepsmith"), dict):
            raw = raw["stepsmith"]
        elif isinstance(raw.get("settings"), dict):
            return self.merged(raw["settings"])
        changes: dict[str, Any] = {}
        for f in fields(self):
            if f.name not in raw:
                continue
            value = raw[f.name]
            default = getattr(Settings, f.name)
            if isinstance(default, bool):
                if isinstance(value, bool):
                    changes[f.name] = value
            elif isinstance(default, int):
                if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                    changes[f.name] = value
            else:
                changes[f.name] = value
        merged = replace(self, **changes) if changes else self
        if not merged.trusted and (merged.runOnSave or merged.runOnType):
            merged = replace(merged, runOnSave=False, runOnType=False)
        return merged
