"""Workflow manifests: YAML-with-positions loader, pydantic model, cross references and the
whole-workflow check. See docs/ARCHITECTURE.md ("Manifest")."""

from importlib import import_module

# name -> the submodule holding it, imported on first use (PEP 562): importing one submodule
# (yamlpos for a raw load, discovery) must not import the pydantic model and the whole check.
_HOME = {
    "WorkflowCheck": "workflow_checks", "check_workflow": "workflow_checks",
    "read_manifest_text": "workflow_checks",
    "clear_caches": "stepfiles", "parse_step_file": "stepfiles",
    "find_forbidden_fields": "forbidden", "is_forbidden_field": "forbidden",
    "Connection": "model", "Effect": "model", "Event": "model", "Manual": "model",
    "Schedule": "model", "Source": "model", "Step": "model", "Trigger": "model",
    "Workflow": "model",
    "ManifestDoc": "parse", "parse_manifest": "parse",
    "MAX_DEPTH": "yamlpos", "MAX_MANIFEST_CHARS": "yamlpos", "YMap": "yamlpos",
    "YNode": "yamlpos", "YPair": "yamlpos", "YScalar": "yamlpos", "YSeq": "yamlpos",
    "is_manifest_name": "stepsmith.runner.model.grammar",
}


def __getattr__(name: str):
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    mod = import_module(home if "." in home else f"{__name__}.{home}")
    value = getattr(mod, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOME))


__all__ = [
    "MAX_DEPTH",
    "MAX_MANIFEST_CHARS",
    "Connection",
    "Effect",
    "Event",
    "ManifestDoc",
    "Manual",
    "Schedule",
    "Source",
    "Step",
    "Trigger",
    "Workflow",
    "WorkflowCheck",
    "YMap",
    "YNode",
    "YPair",
    "YScalar",
    "YSeq",
    "check_workflow",
    "clear_caches",
    "find_forbidden_fields",
    "is_forbidden_field",
    "is_manifest_name",
    "parse_manifest",
    "parse_step_file",
    "read_manifest_text",
]
