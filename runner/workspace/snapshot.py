"""WorkspaceSnapshot: open buffers over the disk, the folders and the index, frozen in time.

The ONLY place that answers cross-file questions (which steps a step file implements, where a
step's code is, what a workflow reaches, which fixtures exist). Pure reads: buffers win over
disk, disk reads go through runner/safeio (contained in the workflow folder, capped), and
positions are runner coordinates (1-based lines, code-point columns) on the text of the file
they name. The language server takes one per request on its event loop and answers from it on a
worker thread; the CLI can build one from the disk alone.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from stepsmith.runner.lines import FunctionSpan, function_spans, split_lines
from stepsmith.runner.model.refs import CodeRef
from stepsmith.runner.problems import Span

from .index import ManifestEntry, WorkspaceIndex, code_target, norm

DEFAULT_MAX_FILE_SIZE = 2_000_000


@dataclass(frozen=True)
class Buffer:
    """An open document's text at one version."""

    text: str
    version: int | None
    lines: tuple[str, ...]
    language_id: str = ""


@dataclass(frozen=True)
class Location:
    path: str
    span: Span


@dataclass(frozen=True)
class StepEntry:
    """One step of a parsed manifest, with its positions in the manifest."""

    manifest: str
    index: int
    id: str | None
    code: CodeRef | None
    target: str | None  # normalised path of the code file
    span: Span  # the step's mapping
    id_span: Span | None
    code_span: Span | None


class ParseCache:
    """Parsed manifests of open buffers, one per path (the latest text), evicted on close."""

    def __init__(self, size: int = 64) -> None:
        self._lock = threading.Lock()
        self._docs: OrderedDict[str, tuple[tuple, Any]] = OrderedDict()
        self._size = size

    def get(self, path: str, buf: Buffer):
        key = (buf.version, len(buf.text), hash(buf.text))
        with self._lock:
            hit = self._docs.get(path)
            if hit is not None and hit[0] == key:
                return hit[1]
        from stepsmith.runner.manifest import parse_manifest

        doc = parse_manifest(buf.text, path)
        with self._lock:
            self._docs[path] = (key, doc)
            self._docs.move_to_end(path)
            while len(self._docs) > self._size:
                self._docs.popitem(last=False)
        return doc

    def forget(self, path: str) -> None:
        with self._lock:
            self._docs.pop(path, None)

    def __len__(self) -> int:
        return len(self._docs)


@dataclass(frozen=True)
class WorkspaceSnapshot:
    index: WorkspaceIndex = field(default_factory=WorkspaceIndex)
    buffers: Mapping[str, Buffer] = field(default_factory=lambda: MappingProxyType({}))
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    parses: ParseCache = field(default_factory=ParseCache, compare=False)

    @classmethod
    def of(cls, index: WorkspaceIndex, buffers: Mapping[str, Buffer], **kw) -> WorkspaceSnapshot:
        return cls(index, MappingProxyType(dict(buffers)), **kw)

    # ------------------------------------------------------------------ text
    @property
    def folders(self) -> tuple[str, ...]:
        return self.index.folders

    def buffer(self, path: str | None) -> Buffer | None:
        return self.buffers.get(path) if path else None

    def buffer_text(self, path: str | os.PathLike) -> str | None:
        buf = self.buffers.get(norm(path))
        return buf.text if buf is not None else None

    def read_text(self, path: str) -> str | None:
        buf = self.buffers.get(path)
        if buf is not None:
            return buf.text
        # a regular file inside its workflow folder, capped (`ln -s /dev/zero x.py`)
        from stepsmith.runner.safeio import read_workspace_text

        return read_workspace_text(path)

    def lines(self, path: str) -> tuple[str, ...] | list[str] | None:
        buf = self.buffers.get(path)
        if buf is not None:
            return buf.lines
        text = self.read_text(path)
        return split_lines(text) if text is not None else None

    def functions(self, path: str) -> list[FunctionSpan]:
        buf = self.buffers.get(path)
        if buf is not None:
            return function_spans(buf.text, buf.lines)
        text = self.read_text(path)
        return function_spans(text) if text is not None else []

    # ------------------------------------------------------------------ manifests
    def manifest_doc(self, path: str):
        """The parsed manifest: of its buffer, else of its last check, else of the disk."""
        buf = self.buffers.get(path)
        if buf is not None:
            return self.parses.get(path, buf)
        entry = self.index.get(path)
        if entry is not None and entry.doc is not None:
            return entry.doc
        text = self.read_text(path)
        if text is None:
            return None
        from stepsmith.runner.manifest import parse_manifest

        return parse_manifest(text, path)

    def manifest_lines(self, path: str, doc=None):
        buf = self.buffers.get(path)
        if buf is not None:
            return buf.lines
        doc = doc if doc is not None else self.manifest_doc(path)
        return split_lines(getattr(doc, "text", "") or "")

    def steps_of(self, manifest_path: str, doc=None) -> list[StepEntry]:
        from stepsmith.runner.manifest.yamlpos.nodes import step_items

        doc = doc if doc is not None else self.manifest_doc(manifest_path)
        if doc is None:
            return []
        out = []
        for i, item in step_items(doc):
            idn, code = item.get("id"), item.get("code")
            sid = idn.data if idn is not None and isinstance(getattr(idn, "data", None), str) else None
            ref = CodeRef.parse(getattr(code, "data", None))
            out.append(StepEntry(manifest_path, i, sid, ref,
                                 code_target(manifest_path, ref) if ref else None, item.span,
                                 idn.span if idn is not None else None,
                                 code.span if code is not None else None))
        return out

    def steps_using(self, step_path: str, function: str | None = None) -> list[StepEntry]:
        """The steps (of every manifest naming `step_path`) whose code is in that file."""
        out = []
        for m in self.index.manifests_using(step_path):
            for s in self.steps_of(m.path):
                if s.target == step_path and (function is None or (
                        s.code is not None and s.code.function == function)):
                    out.append(s)
        return out

    def manifests_using(self, step_path: str) -> list[ManifestEntry]:
        return self.index.manifests_using(step_path)

    def step_context(self, step_path: str | None) -> tuple[str, tuple]:
        return self.index.step_context(step_path)

    # ------------------------------------------------------------------ code
    def function_location(self, path: str, function: str) -> Location | None:
        """The name in `def <function>` of a step file; the file's start when there is no
        such function; None when the file cannot be read."""
        if self.read_text(path) is None:
            return None
        for f in self.functions(path):
            if f.name == function:
                return Location(path, Span(f.line, f.column, f.line, f.column + len(f.name)))
        return Location(path, Span(1, 0, 1, 0))

    def resolve_code(self, manifest_path: str, step_id: str) -> Location | None:
        """Where the function of step `step_id` is (see `function_location`)."""
        for s in self.steps_of(manifest_path):
            if s.id == step_id and s.code is not None and s.target is not None:
                return self.function_location(s.target, s.code.function)
        return None

    def step_location(self, manifest_path: str, step_id: str, whole: bool = False) -> Location:
        """The step's id (or its whole mapping) in the manifest."""
        for s in self.steps_of(manifest_path):
            if s.id == step_id:
                return Location(manifest_path, s.span if whole else (s.id_span or s.span))
        return Location(manifest_path, Span(1, 0, 1, 0))
