"""Accepted-results store (SQLite under ``<workflow>/.stepsmith/``), runtime identity,
whole-workflow runs and replay. See ``db.py`` for the guarantees."""

from stepsmith.runner.store.canonical import (
    build_request,
    canonical_json,
    code_hash,
    request_sha256,
)
from stepsmith.runner.store.db import (
    Accepted,
    IdentityMismatch,
    RequestMismatch,
    ResultStore,
    StoreError,
    store_path,
)
from stepsmith.runner.store.identity import RuntimeIdentity, runtime_identity

__all__ = [
    "Accepted",
    "IdentityMismatch",
    "RequestMismatch",
    "ResultStore",
    "RuntimeIdentity",
    "StoreError",
    "build_request",
    "canonical_json",
    "code_hash",
    "request_sha256",
    "runtime_identity",
    "store_path",
]
