"""The rules catalogue: every stable code the validator and the manifest checks report.

`Rule(code, name, summary, rationale, security=True)` is the contract (docs/ARCHITECTURE.md);
`example` (a snippet the rule refuses) and `fix` (a close snippet it accepts) are optional
extras shown by `stepsmith rule CODE` and reused by the table-driven tests.

Rules are collected lazily, on the first `get()`/`all_rules()`, from
`step_rules.RULES` (SS codes), `manifest_rules.RULES` (SM codes) and `fixture_rules.RULES`.
Collecting lazily keeps `import stepsmith.runner.rules` cheap and lets either module import
`Rule` from here while this package is still being initialised.
"""

from __future__ import annotations

from stepsmith.runner.problems import FrozenRecord, dataclass_compatible

__all__ = ["Rule", "UnknownRule", "all_rules", "get", "suggest"]


class Rule(FrozenRecord):
    """One rule. Behaves as `@dataclass(frozen=True)` with the fields below (constructor,
    repr, eq, hash, immutability, `dataclasses` functions); written by hand because the
    catalogue is imported inside every sandbox (the validator reads rationales), where
    `dataclasses` would cost most of a step's start-up."""

    # the literal, so type checkers read `case Rule(code, name)` patterns
    __slots__ = __match_args__ = ("code", "name", "summary", "rationale", "security",
                                  "example", "fix")
    code: str  # the fields, for type checkers (__init__ sets them: the record is frozen)
    name: str
    summary: str
    rationale: str
    security: bool
    example: str
    fix: str

    def __init__(self, code: str, name: str, summary: str, rationale: str,
                 security: bool = True, example: str = "", fix: str = "") -> None:
        _set = object.__setattr__
        _set(self, "code", code)  # stable forever: SS0xx..SS6xx step code, SM0xx..SM3xx manifest
        _set(self, "name", name)  # kebab-case, also stable
        _set(self, "summary", summary)  # one line: what the rule refuses
        _set(self, "rationale", rationale)  # one line: why
        _set(self, "security", security)  # False only for rules a fix-it could suppress
        _set(self, "example", example)  # a snippet the rule refuses
        _set(self, "fix", fix)  # a close snippet the rule accepts

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "summary": self.summary,
            "rationale": self.rationale,
            "security": self.security,
            "example": self.example,
            "fix": self.fix,
        }


def _declaration() -> type:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Rule:
        code: str
        name: str
        summary: str
        rationale: str
        security: bool = True
        example: str = ""
        fix: str = ""

    return Rule


dataclass_compatible(Rule, _declaration)


class UnknownRule(KeyError):
    """`get()` was asked for a code no rule has; `suggestions` holds close codes."""

    def __init__(self, code: str, suggestions: list[str]):
        super().__init__(code)
        self.code = code
        self.suggestions = suggestions

    def __str__(self) -> str:
        hint = f"; did you mean {' or '.join(self.suggestions)}?" if self.suggestions else ""
        return f"unknown rule {self.code!r}{hint}"


_SOURCES = ("step_rules", "manifest_rules", "fixture_rules")
_by_code: dict[str, Rule] | None = None


def _collect() -> dict[str, Rule]:
    global _by_code
    if _by_code is None:
        import importlib

        found: dict[str, Rule] = {}
        for name in _SOURCES:  # every part exists: a failing import is loud
            module = importlib.import_module(f"{__name__}.{name}")
            for rule in module.RULES:
                if rule.code in found:
                    raise RuntimeError(f"rule code {rule.code} defined twice")
                found[rule.code] = rule
        _by_code = dict(sorted(found.items()))
    return _by_code


def all_rules() -> list[Rule]:
    """Every rule, sorted by code."""
    return list(_collect().values())


def suggest(text: str, limit: int = 3) -> list[str]:
    """Codes close to `text` (a mistyped code or rule name), best first."""
    import difflib

    rules = _collect()
    key = text.strip()
    by_name = {r.name: r.code for r in rules.values()}
    codes = difflib.get_close_matches(key.upper(), list(rules), n=limit, cutoff=0.6)
    names = difflib.get_close_matches(key.lower(), list(by_name), n=limit, cutoff=0.6)
    out: list[str] = []
    for code in codes + [by_name[n] for n in names]:
        if code not in out:
            out.append(code)
    return out[:limit]


def get(code: str) -> Rule:
    """The rule with this code (case-insensitive; a rule's name works too).

    Raises `UnknownRule` (a KeyError) with did-you-mean suggestions otherwise.
    """
    rules = _collect()
    key = code.strip()
    rule = rules.get(key.upper())
    if rule is not None:
        return rule
    for rule in rules.values():
        if rule.name == key.lower():
            return rule
    raise UnknownRule(code, suggest(code))


# Every finding links to its rule's page: generated from this catalogue into docs/rules/
# (rules/pages.py, drift-tested) and shipped in the package.
def rule_url(code: str) -> str | None:
    """The `file://` URI of a rule's page ("" code: the index of every rule); None only when
    the pages are not installed."""
    from stepsmith.runner.rules import pages

    return pages.rule_url(code or "index")
