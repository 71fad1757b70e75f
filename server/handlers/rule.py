"""stepsmith/rule: a rule of the catalogue as JSON (or null)."""

from __future__ import annotations

from stepsmith.server.handlers.common import param, safe


def register(ls) -> None:
    @ls.feature("stepsmith/rule")
    @safe
    def rule(ls, params):
        from stepsmith.runner.language.cards import rule_json

        code = param(params, "code")
        return rule_json(code) if code else None
