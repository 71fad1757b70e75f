"""LSP feature handlers: thin adapters from LSP to stepsmith.runner.language."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException
from stepsmith.runner.model.refs import CodeRef
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.workspace.index import code_target
from stepsmith.runner.workspace.snapshot import Buffer
from stepsmith.server.documents import UTF8, UTF16
from stepsmith.server.server import StepsmithServer, safe
from stepsmith.server.workspace import is_manifest_path, norm, path_to_uri, uri_to_path

SYMBOL_KINDS = {
    "step": T.SymbolKind.Function,
    "source": T.SymbolKind.Field,
    "effect": T.SymbolKind.Event,
    "connection": T.SymbolKind.Interface,
    "section": T.SymbolKind.Namespace,
    "function": T.SymbolKind.Function,
    "import": T.SymbolKind.Module,
    "key": T.SymbolKind.Key,
}
COMPLETION_KINDS = {
    "property": T.CompletionItemKind.Property,
    "value": T.CompletionItemKind.EnumMember,
    "reference": T.CompletionItemKind.Reference,
    "file": T.CompletionItemKind.File,
    "function": T.CompletionItemKind.Function,
    "module": T.CompletionItemKind.Module,
}


# ---------------------------------------------------------------------- helpers


def manifest_doc(ls: StepsmithServer, uri: str):
    doc = ls.docs.get(uri)
    if doc is None:
        return None
    return ls.parses.get(uri_to_path(uri), doc.buffer())


def _problem_from_diag(ls, uri: str, d: T.Diagnostic) -> Problem | None:
    doc = ls.docs.get(uri)
    if doc is None or not isinstance(d.code, str):
        return None
    r = d.range
    l1, c1 = doc.offset_pos(r.start.line, r.start.character, ls.encoding)
    l2, c2 = doc.offset_pos(r.end.line, r.end.character, ls.encoding)
    data = d.data if isinstance(d.data, dict) else {}
    fix = data.get("fix") if isinstance(data.get("fix"), dict) else {}
    return Problem(code=d.code, message=d.message, span=Span(l1 + 1, c1, l2 + 1, c2),
                   step=data.get("step"), data=fix)


MAX_ITEMS = 5000  # symbols per document at most (yaml-language-server's maxItemsComputed)


def _symbols(ls, lines, syms, budget: list[int]) -> list[T.DocumentSymbol]:
    out = []
    for s in syms:
        if budget[0] <= 0:
            break
        budget[0] -= 1
        out.append(T.DocumentSymbol(
            name=s.name or "?",
            kind=SYMBOL_KINDS.get(s.kind, T.SymbolKind.Key),
            range=ls.lsp_span(lines, s.span),
            selection_range=ls.lsp_span(lines, s.selection),
            detail=s.detail or None,
            children=_symbols(ls, lines, s.children, budget) or None,
        ))
    return out


def _in_range(r: dict, line: int, character: int) -> bool:
    s, e = r["start"], r["end"]
    return (s["line"], s["character"]) <= (line, character) <= (e["line"], e["character"])


# ---------------------------------------------------------------------- registration


def register(ls: StepsmithServer) -> None:  # noqa: C901 - one place for every handler
    @ls.feature(T.INITIALIZE)
    @safe
    def initialize(ls: StepsmithServer, params: T.InitializeParams):
        ls.loop = asyncio.get_running_loop()
        caps = params.capabilities
        encs = (caps.general.position_encodings if caps.general else None) or []
        ls.encoding = UTF8 if T.PositionEncodingKind.Utf8 in encs else UTF16
        td = caps.text_document
        ls.pull = bool(td is not None and td.diagnostic is not None)
        ws = caps.workspace
        ls.refresh_support = bool(ws and ws.diagnostics and ws.diagnostics.refresh_support)
        ls.config_support = bool(ws and ws.configuration)
        ls.codelens_refresh = bool(ws and ws.code_lens and ws.code_lens.refresh_support)
        ls.watch_support = bool(ws and ws.did_change_watched_files
                                and ws.did_change_watched_files.dynamic_registration)
        ls.progress_support = bool(caps.window and caps.window.work_done_progress)
        ls.settings = ls.settings.merged(params.initialization_options)
        folders = [uri_to_path(f.uri) for f in (params.workspace_folders or [])]
        if not folders:
            root = params.root_uri and uri_to_path(params.root_uri)
            if not root and params.root_path:
                root = norm(params.root_path)
            folders = [root] if root else []
        ls.model.set_folders([f for f in folders if f])

    @ls.feature(T.INITIALIZED)
    @safe
    async def initialized(ls: StepsmithServer, params):
        ls.analyzer.schedule("discover", "")
        if getattr(ls, "watch_support", False):
            try:
                await ls.protocol.send_request_async(T.CLIENT_REGISTER_CAPABILITY, T.RegistrationParams(
                    registrations=[T.Registration(
                        id="stepsmith-watch", method=T.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=T.DidChangeWatchedFilesRegistrationOptions(watchers=[
                            T.FileSystemWatcher(glob_pattern="**/workflow.yaml"),
                            T.FileSystemWatcher(glob_pattern="**/*.workflow.yaml"),
                            T.FileSystemWatcher(glob_pattern="**/*.py"),
                            T.FileSystemWatcher(glob_pattern="**/fixtures/**/*.json"),
                        ]))]))
            except Exception as exc:
                ls.log_to_client(f"stepsmith: file watching not registered: {exc}")
        if getattr(ls, "config_support", False):
            await _pull_configuration(ls)

    @ls.feature(T.SHUTDOWN)
    def shutdown(ls: StepsmithServer, params):
        ls.analyzer.stop()
        if ls._runner is not None:
            ls._runner.shutdown()

    @ls.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @safe
    async def did_change_configuration(ls: StepsmithServer, params: T.DidChangeConfigurationParams):
        settings = params.settings
        if isinstance(settings, dict) and settings:
            ls.apply_settings(settings)
        elif getattr(ls, "config_support", False):
            await _pull_configuration(ls)

    @ls.feature(T.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @safe
    async def did_change_folders(ls: StepsmithServer, params: T.DidChangeWorkspaceFoldersParams):
        folders = set(ls.model.folders)
        for f in params.event.removed or []:
            folders.discard(uri_to_path(f.uri))
        for f in params.event.added or []:
            folders.add(uri_to_path(f.uri))
        ls.model.set_folders(sorted(p for p in folders if p))
        with ls.model.lock:
            for key in list(ls.model.manifests):
                if not any(key.startswith(f + os.sep) for f in ls.model.folders) and ls.open_uri(key) is None:
                    ls.model.remove_manifest(key)
        ls.analyzer.schedule("discover", "")
        ls.check_ready()

    @ls.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @safe
    def did_change_watched(ls: StepsmithServer, params: T.DidChangeWatchedFilesParams):
        for ch in params.changes:
            path = uri_to_path(ch.uri)
            if not path:
                continue
            if is_manifest_path(path):
                if ch.type == T.FileChangeType.Deleted and ls.open_uri(path) is None:
                    ls.forget_manifest(path)
                    continue
                ls.model.add_manifest(path)
                ls.analyzer.schedule("manifest", path)
            else:
                for m in ls.model.manifests_using(path):
                    ls.analyzer.schedule("manifest", m.path)

    @ls.feature(T.TEXT_DOCUMENT_DID_SAVE)
    @safe
    def did_save(ls: StepsmithServer, params: T.DidSaveTextDocumentParams):
        uri = params.text_document.uri
        path = uri_to_path(uri)
        if path and path.endswith(".py") and ls.settings.runOnSave:
            ls.runner.on_save(uri)
        elif path and path.endswith(".json"):
            ls.runner.fixture_saved(uri)

    # ------------------------------------------------------------ pull diagnostics
    @ls.feature(T.TEXT_DOCUMENT_DIAGNOSTIC,
                T.DiagnosticOptions(identifier="stepsmith", inter_file_dependencies=True,
                                    workspace_diagnostics=False))
    async def diagnostic(ls: StepsmithServer, params: T.DocumentDiagnosticParams):
        uri = params.text_document.uri
        doc = ls.docs.get(uri)
        if doc is None:
            return T.RelatedFullDocumentDiagnosticReport(items=[])
        ok = await ls.wait_analysed(uri)
        diags = ls.combined(uri) if ok else None
        if diags is None:
            raise JsonRpcException(message="document changed; retrigger",
                                   code=T.LSPErrorCodes.ServerCancelled.value,
                                   data={"retriggerRequest": True})
        version = ls.docs.version(uri)
        result_id = f"{version}:{hash(repr(diags)) & 0xFFFFFFFF:x}"
        if params.previous_result_id == result_id:
            return T.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        items = ls.protocol._converter.structure(diags, list[T.Diagnostic])
        return T.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)

    # ------------------------------------------------------------ hover
    @ls.feature(T.TEXT_DOCUMENT_HOVER)
    @safe
    async def hover(ls: StepsmithServer, params: T.HoverParams):
        uri = params.text_document.uri
        at = ls.cp_position(uri, params.position)
        if at is None:
            return None
        doc, line, col = at
        path = uri_to_path(uri)
        if is_manifest_path(path):
            from stepsmith.runner.language.manifest import manifest_hover

            ws = ls.workspace_snapshot()
            snap = ws.buffer(path)

            def manifest_card():
                mdoc = ws.manifest_doc(path)
                found = manifest_hover(mdoc, line, col,
                                       code_link=lambda code: _code_link(ws, path, code))
                if not found:
                    return None
                text, span = found
                return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text),
                               range=ls.lsp_span(snap.lines, span))

            return await ls.off_loop(manifest_card)
        if not (path or "").endswith(".py") and doc.language_id != "python":
            return None
        await ls.wait_workspace_ready()  # the reach card needs the manifests that use this file
        snap = ls.docs.snapshot(uri)
        if snap is None:
            return None
        return await ls.off_loop(_step_hover, ls, uri, snap, path, line, col, params.position)

    # ------------------------------------------------------------ completion
    @ls.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[":", " ", ".", "/"]))
    @safe
    def completion(ls: StepsmithServer, params: T.CompletionParams):
        uri = params.text_document.uri
        at = ls.cp_position(uri, params.position)
        if at is None:
            return None
        doc, line, col = at
        path = uri_to_path(uri)
        if is_manifest_path(path):
            from stepsmith.runner.language.lines import function_spans
            from stepsmith.runner.language.manifest import manifest_completions

            folder = os.path.dirname(path)

            def list_dir(prefix: str) -> list[str]:
                out = []
                for dirpath, dirnames, filenames in os.walk(folder):
                    dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in ("fixtures", "__pycache__")]
                    for n in filenames:
                        if n.endswith(".py"):
                            rel = os.path.relpath(os.path.join(dirpath, n), folder).replace(os.sep, "/")
                            out.append(rel)
                    if len(out) > 500:
                        break
                return sorted(out)

            def functions_in(rel: str) -> list[str]:
                text = ls.read_text(norm(os.path.join(folder, rel)))
                return [f.name for f in function_spans(text)] if text else []

            items = manifest_completions(manifest_doc(ls, uri), doc.text, line, col,
                                         list_dir=list_dir, functions_in=functions_in)
        elif (path or "").endswith(".py") or doc.language_id == "python":
            from stepsmith.runner.language.steps import step_completions

            items = step_completions(doc.text, line, col)
        else:
            return None
        return T.CompletionList(is_incomplete=False, items=[
            T.CompletionItem(label=c.label, kind=COMPLETION_KINDS.get(c.kind), detail=c.detail or None,
                             documentation=(T.MarkupContent(kind=T.MarkupKind.Markdown, value=c.documentation)
                                            if c.documentation else None),
                             insert_text=c.insert_text)
            for c in items])

    # ------------------------------------------------------------ navigation
    @ls.feature(T.TEXT_DOCUMENT_DEFINITION)
    @safe
    async def definition(ls: StepsmithServer, params: T.DefinitionParams):
        uri = params.text_document.uri
        at = ls.cp_position(uri, params.position)
        if at is None:
            return None
        doc, line, col = at
        path = uri_to_path(uri)
        if not path:
            return None
        from stepsmith.runner.language.navigation import definition as find

        if path.endswith(".py"):
            await ls.wait_workspace_ready()  # which manifests use this file: known once checked
        ws = ls.workspace_snapshot()
        return [ls.location(ws, loc) for loc in await ls.off_loop(find, ws, path, line, col)] or None

    @ls.feature(T.TEXT_DOCUMENT_REFERENCES)
    @safe
    async def references(ls: StepsmithServer, params: T.ReferenceParams):
        uri = params.text_document.uri
        at = ls.cp_position(uri, params.position)
        if at is None:
            return None
        doc, line, col = at
        path = uri_to_path(uri)
        if not path:
            return None
        from stepsmith.runner.language.navigation import references as find

        if path.endswith(".py"):
            await ls.wait_workspace_ready()  # which manifests use this file: known once checked
        ws = ls.workspace_snapshot()
        locs = await ls.off_loop(find, ws, path, line, col, params.context.include_declaration)
        return [ls.location(ws, loc) for loc in locs] or None

    @ls.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @safe
    async def document_symbol(ls: StepsmithServer, params: T.DocumentSymbolParams):
        uri = params.text_document.uri
        snap = ls.docs.snapshot(uri)
        if snap is None:
            return None
        path = uri_to_path(uri)

        def compute():
            if is_manifest_path(path):
                from stepsmith.runner.language.manifest import manifest_symbols

                syms = manifest_symbols(ls.parses.get(path, Buffer(snap.text, snap.version, snap.lines)))
            elif (path or "").endswith(".py") or snap.language_id == "python":
                from stepsmith.runner.language.steps import step_symbols

                syms = step_symbols(snap.text)
            else:
                return None
            budget = [MAX_ITEMS]
            return _symbols(ls, snap.lines, syms, budget)

        return await ls.off_loop(compute)

    # ------------------------------------------------------------ code actions
    @ls.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
    @safe
    def code_action(ls: StepsmithServer, params: T.CodeActionParams):
        uri = params.text_document.uri
        doc = ls.docs.get(uri)
        if doc is None:
            return None
        path = uri_to_path(uri)
        only = params.context.only
        if only and not any(str(k).startswith("quickfix") for k in only):
            return None
        from stepsmith.runner.language.actions import code_actions

        ws = ls.workspace_snapshot()
        actions = []
        for d in params.context.diagnostics:
            if d.source not in (None, "stepsmith"):
                continue
            p = _problem_from_diag(ls, uri, d)
            if p is None or not path:
                continue
            for fx in code_actions(ws, path, [p]):
                edits = [T.TextEdit(range=ls.lsp_span(doc.lines, e.span), new_text=e.new_text) for e in fx.edits]
                actions.append(T.CodeAction(
                    title=fx.title, kind=T.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=True,
                    edit=T.WorkspaceEdit(document_changes=[T.TextDocumentEdit(
                        text_document=T.OptionalVersionedTextDocumentIdentifier(uri=uri, version=doc.version),
                        edits=edits)])))
        return actions or None

    # ------------------------------------------------------------ code lens
    @ls.feature(T.TEXT_DOCUMENT_CODE_LENS, T.CodeLensOptions(resolve_provider=False))
    @safe
    async def code_lens(ls: StepsmithServer, params: T.CodeLensParams):
        uri = params.text_document.uri
        path = uri_to_path(uri)
        if ls.docs.get(uri) is None or not (path or "").endswith(".py"):
            return None
        await ls.wait_workspace_ready()  # lenses list the steps that use this file
        snap = ls.docs.snapshot(uri)  # the newest text after the wait
        return await ls.off_loop(ls.runner.code_lenses, uri, path, snap) if snap is not None else None

    # ------------------------------------------------------------ commands
    @ls.command("stepsmith.runStepFixtures")
    @safe
    async def run_step_fixtures(ls: StepsmithServer, *args):
        _require_trust(ls)
        a = _args(args)
        if len(a) < 2:
            raise JsonRpcException(message="stepsmith.runStepFixtures needs [manifestUri, stepId]",
                                   code=-32602)
        return await ls.cancellable(ls.runner.run_step_command(str(a[0]), str(a[1])))

    @ls.command("stepsmith.runFixture")
    @safe
    async def run_fixture(ls: StepsmithServer, *args):
        _require_trust(ls)
        a = _args(args)
        if len(a) < 1:
            raise JsonRpcException(message="stepsmith.runFixture needs [fixtureUri]", code=-32602)
        return await ls.cancellable(ls.runner.run_fixture_command(str(a[0])))

    @ls.command("stepsmith.recordFixture")
    @safe
    async def record_fixture(ls: StepsmithServer, *args):
        _require_trust(ls)
        a = _args(args)
        if len(a) < 4:
            raise JsonRpcException(
                message="stepsmith.recordFixture needs [manifestUri, stepId, name, inputsJson, evaluationTime]",
                code=-32602)
        at = a[4] if len(a) > 4 else None
        return await ls.cancellable(
            ls.runner.record_command(str(a[0]), str(a[1]), str(a[2]), a[3], at))

    # ------------------------------------------------------------ custom requests
    # Both wait (asynchronously, at most READY_TIMEOUT) until workflow discovery has run and
    # every manifest it found has been checked once (right after `initialized`, after a folder
    # change): before that the listing would be empty or incomplete.
    @ls.feature("stepsmith/reach")
    @safe
    async def reach(ls: StepsmithServer, params):
        await ls.wait_workspace_ready()
        return {"workflows": _reach(ls, _param(params, "uri"))}

    @ls.feature("stepsmith/fixtures")
    @safe
    async def fixtures(ls: StepsmithServer, params):
        await ls.wait_workspace_ready()
        return {"workflows": ls.runner.fixtures_listing(_param(params, "uri"))}

    @ls.feature("stepsmith/status")
    @safe
    async def status(ls: StepsmithServer, params):
        ok, reason = await asyncio.get_running_loop().run_in_executor(None, ls.runner.sandbox_status)
        from stepsmith.runner import __version__

        return {"sandboxAvailable": ok, "reason": "" if ok else reason, "version": __version__}

    if os.environ.get("STEPSMITH_TEST_HOOKS") == "1":  # only for the test-suite
        @ls.feature("stepsmith/_raise")
        @safe
        def _raise(ls: StepsmithServer, params):
            raise RuntimeError("deliberate failure for the robustness test")

        @ls.feature("stepsmith/_print")
        def _print(ls: StepsmithServer, params):
            print("stray output that must not reach the protocol stream")
            os.write(1, b"raw write to fd 1\n")
            return {"printed": True}

    @ls.feature("stepsmith/rule")
    @safe
    def rule(ls: StepsmithServer, params):
        from stepsmith.runner.language.cards import rule_json

        code = _param(params, "code")
        return rule_json(str(code)) if code else None


# ---------------------------------------------------------------------- handler bodies


def _args(args) -> list:
    # pygls passes the arguments positionally; some clients wrap them in one list
    if len(args) == 1 and isinstance(args[0], list):
        return args[0]
    return list(args)


def _param(params, name: str) -> str | None:
    """A string parameter of a custom request (anything else counts as absent)."""
    if params is None:
        return None
    value = params.get(name) if isinstance(params, dict) else getattr(params, name, None)
    return value if isinstance(value, str) else None


async def _pull_configuration(ls: StepsmithServer) -> None:
    try:
        items = [T.ConfigurationItem(section="stepsmith")]
        res = await ls.protocol.send_request_async(
            T.WORKSPACE_CONFIGURATION, T.ConfigurationParams(items=items))
    except Exception as exc:
        ls.log_to_client(f"stepsmith: could not read configuration: {exc}")
        return
    if res and isinstance(res[0], dict):
        ls.apply_settings(res[0])


def _code_link(ws, manifest_path: str, code: str) -> str | None:
    """`steps/x.py:func` of a manifest -> a link target for hover Markdown: the file's URI with
    `#L<line>` of the function's `def` (VS Code opens it there), or None if there is no file."""
    ref = CodeRef.parse(code)
    if ref is None or not ref.path.endswith(".py"):
        return None
    loc = ws.function_location(code_target(manifest_path, ref), ref.function)
    if loc is None:
        return None
    turi = path_to_uri(loc.path).replace("(", "%28").replace(")", "%29")
    found = any(f.name == ref.function for f in ws.functions(loc.path))
    return f"{turi}#L{loc.span.line}" if found else turi


def _step_hover(ls: StepsmithServer, uri: str, doc, path, line: int, col: int, pos: T.Position):
    """(service thread) `doc` is a snapshot of the document."""
    from stepsmith.runner.language.cards import pinned_time_card, reach_card, rule_card
    from stepsmith.runner.language.steps import clock_call_at, def_name_at

    parts: list[str] = []
    span = None
    # violations under the cursor
    diags = ls.combined(uri) or []
    for d in diags:
        if d.get("source") != "stepsmith":
            continue
        if _in_range(d["range"], pos.line, pos.character):
            card = rule_card(d["code"], d["message"])
            if card and card not in parts:
                parts.append(card)
                span = span or d["range"]
    # the pinned clock
    call = clock_call_at(doc.text, line, col)
    if call:
        parts.append(pinned_time_card(call))
    # the reach card on a step function's def line
    f = def_name_at(doc.text, line, col)
    if f is not None and path:
        from stepsmith.runner.reach import reach_rows

        ws = ls.workspace_snapshot()
        for s in ws.steps_using(path, f.name):
            mdoc = ws.manifest_doc(s.manifest)
            if mdoc is None or mdoc.workflow is None:
                parts.append(f"Step `{s.id}` — the manifest `{os.path.basename(s.manifest)}` has "
                             "errors; fix them to see what this step can reach.")
                continue
            for row in reach_rows(mdoc.workflow):
                if row.step_id == s.id:
                    parts.append(reach_card(row))
    if not parts:
        return None
    rng = None
    if span is not None:
        rng = T.Range(T.Position(**span["start"]), T.Position(**span["end"]))
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
                   range=rng)


def _reach(ls: StepsmithServer, uri: str | None) -> list[dict]:
    from stepsmith.runner.reach import REACH_SENTENCE
    from stepsmith.runner.workspace.tables import reach_table

    ws = ls.workspace_snapshot()
    out = []
    for wf in reach_table(ws, uri_to_path(uri) if uri else None):
        entry: dict[str, Any] = {"manifestUri": ls.open_uri(wf.manifest) or path_to_uri(wf.manifest),
                                 "workflow": wf.workflow, "sentence": REACH_SENTENCE, "steps": []}
        if wf.error:
            entry["error"] = wf.error
        for row, loc, code in wf.steps:
            entry["steps"].append({
                "id": row.step_id, "function": row.function, "network": row.network,
                "connections": list(row.connections), "sources": list(row.sources),
                "effects": list(row.effects), "explanation": row.explanation,
                "reachesNothing": row.reaches_nothing,
                "location": ls.location_json(ws, loc),
                "codeLocation": ls.location_json(ws, code) if code is not None else None,
            })
        out.append(entry)
    return out


def _require_trust(ls: StepsmithServer) -> None:
    """Untrusted workspace: nothing executes, whatever the client sends."""
    if not ls.settings.trusted:
        raise JsonRpcException(
            message="this workspace is not trusted: stepsmith shows diagnostics only and runs nothing",
            code=-32600)
