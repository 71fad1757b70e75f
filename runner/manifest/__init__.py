"""Workflow manifests: YAML-with-positions loader, pydantic model, cross references,
discovery and the whole-workflow check. See docs/ARCHITECTURE.md ("Manifest")."""

from stepsmith.runner.model.grammar import is_manifest_name

from .check import WorkflowCheck, check_workflow, find_manifests, read_manifest_text
from .forbidden import find_forbidden_fields, is_forbidden_field
from .model import (
    Connection,
    Effect,
    Event,
    Manual,
    Schedule,
    Source,
    Step,
    Trigger,
    Workflow,
)
from .parse import ManifestDoc, parse_manifest
from .stepfiles import clear_caches, parse_step_file
from .yamlpos import MAX_DEPTH, MAX_MANIFEST_CHARS, YMap, YNode, YPair, YScalar, YSeq

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
    "find_manifests",
    "is_forbidden_field",
    "is_manifest_name",
    "parse_manifest",
    "parse_step_file",
    "read_manifest_text",
]
