// The extension's own commands (the server's commands are registered by the language client).

import * as path from 'path';
import * as vscode from 'vscode';
import { reachMarkdown, stepAt, stepTestId } from './models';
import { PickFixtureResponse, ReachResponse, ReachStep, Requests, RuleDoc, RunResponse, ServerCommands } from './protocol';
import { ReachProvider } from './reachView';
import { ServerManager } from './server';
import { SandboxStatus } from './status';
import { FixtureTests } from './testing';

interface StepPick extends vscode.QuickPickItem {
  manifestUri: string;
  step: ReachStep;
}

export function registerCommands(
  ctx: vscode.ExtensionContext,
  server: ServerManager,
  reach: ReachProvider,
  tests: FixtureTests,
  status: SandboxStatus,
): void {
  const reg = (id: string, fn: (...args: any[]) => unknown) => ctx.subscriptions.push(vscode.commands.registerCommand(id, fn));

  // which fixture's values the inlay hints and hovers show (server: stepsmith.values.pickFixture)
  reg('stepsmith.pickValuesFixture', async (uri?: string, fixture?: string) => {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri.toString();
    if (!target) {
      return undefined;
    }
    let name = fixture;
    if (name === undefined) {
      const choices = await server.executeServerCommand<PickFixtureResponse>(ServerCommands.valuesPickFixture, [target]);
      const items = (choices?.fixtures ?? []).map((f) => ({ label: f.name, description: f.passed ? 'passed' : 'failed', picked: f.name === choices?.fixture }));
      if (!items.length) {
        void vscode.window.showInformationMessage('Stepsmith: no fixture of this file has run yet.');
        return undefined;
      }
      name = (await vscode.window.showQuickPick(items, { title: 'Show the values of fixture' }))?.label;
      if (!name) {
        return undefined;
      }
    }
    return server.executeServerCommand<PickFixtureResponse>(ServerCommands.valuesPickFixture, [target, name]);
  });

  // read-only Markdown documents (rule docs, reach table): no "save changes?" when closed
  const docs = new Map<string, string>();
  const docsChanged = new vscode.EventEmitter<vscode.Uri>();
  ctx.subscriptions.push(
    docsChanged,
    vscode.workspace.registerTextDocumentContentProvider('stepsmith-doc', {
      onDidChange: docsChanged.event,
      provideTextDocumentContent: (uri) => docs.get(uri.path) ?? '',
    }),
  );
  async function showMarkdown(name: string, content: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: 'stepsmith-doc', path: `/${name}.md` });
    docs.set(uri.path, content);
    docsChanged.fire(uri);
    await vscode.commands.executeCommand('markdown.showPreview', uri).then(undefined, async () => {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    });
  }

  reg('stepsmith.restartServer', async () => {
    await server.restart('command');
  });
  reg('stepsmith.showOutput', () => server.output.show());
  reg('stepsmith.refreshReach', () => reach.refresh());
  reg('stepsmith.explainSandbox', () => status.explain());

  reg('stepsmith.showReach', async () => {
    await vscode.commands.executeCommand('stepsmith.reach.focus');
    const roots = await reach.refresh();
    const ed = vscode.window.activeTextEditor;
    const hit = ed ? stepAt(reach.last, ed.document.uri.toString(), ed.selection.active.line) : undefined;
    if (hit) {
      const node = roots.flatMap((r) => r.children).find((c) => c.id === `wf:${hit.manifestUri}#${hit.step.step_id}`);
      if (node) {
        await reach.view.reveal(node, { select: true, focus: false, expand: true });
      }
    }
    return reach.last;
  });
  reg('stepsmith.showReachTable', async () => {
    if (!reach.last) {
      await reach.refresh();
    }
    await showMarkdown('What each step can reach', reachMarkdown(reach.last));
  });

  /** The step under the cursor (def line in a step file, or its manifest entry), else a pick. */
  async function pickStep(title: string): Promise<{ manifestUri: string; step: ReachStep } | undefined> {
    const resp = (await server.request<ReachResponse>(Requests.reach, {})) ?? reach.last;
    const ed = vscode.window.activeTextEditor;
    const hit = ed ? stepAt(resp, ed.document.uri.toString(), ed.selection.active.line) : undefined;
    if (hit) {
      return hit;
    }
    const items: StepPick[] = (resp?.workflows ?? []).flatMap((wf) =>
      wf.steps.map((s) => ({ label: s.step_id, description: wf.workflow ?? undefined, detail: s.explanation, manifestUri: wf.manifestUri, step: s })),
    );
    if (!items.length) {
      void vscode.window.showWarningMessage('Stepsmith found no workflow steps in this workspace.');
      return undefined;
    }
    const p = await vscode.window.showQuickPick(items, { title, placeHolder: 'Step' });
    return p ? { manifestUri: p.manifestUri, step: p.step } : undefined;
  }

  reg('stepsmith.runThisStepFixtures', async (manifestUri?: string, stepId?: string) => {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Stepsmith runs nothing in an untrusted workspace.');
      return undefined;
    }
    let target = manifestUri && stepId ? { manifestUri, stepId } : undefined;
    if (!target) {
      const hit = await pickStep("Run a step's fixtures");
      if (!hit) {
        return undefined;
      }
      target = { manifestUri: hit.manifestUri, stepId: hit.step.step_id };
    }
    if (!tests.nodes.size) {
      await tests.refresh();
    }
    const id = stepTestId(target.manifestUri, target.stepId);
    let item: vscode.TestItem | undefined;
    tests.controller.items.forEach((wf) => {
      item = item ?? wf.children.get(id);
    });
    if (!item) {
      // not in the explorer (no fixtures yet?): run straight through the server
      const resp = await server.executeServerCommand<RunResponse>(ServerCommands.runStepFixtures, [target.manifestUri, target.stepId]);
      const n = resp?.results.length ?? 0;
      void vscode.window.showInformationMessage(n ? `${target.stepId}: ${resp!.results.filter((r) => r.status === 'passed').length}/${n} fixtures passed.` : `${target.stepId} has no fixtures yet.`);
      return resp;
    }
    const cts = new vscode.CancellationTokenSource();
    await tests.runHandler(new vscode.TestRunRequest([item]), cts.token);
    return item.id;
  });

  /**
   * Record a fixture. Interactive from the palette; callers (tests, other extensions) may pass
   * `{manifestUri, stepId, name, inputsFile | inputs, evaluationTime}` to skip the prompts.
   */
  reg('stepsmith.recordFixtureFromInputs', async (opts?: {
    manifestUri?: string; stepId?: string; name?: string; inputsFile?: string; inputs?: unknown; evaluationTime?: string | null;
  }) => {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Stepsmith records nothing in an untrusted workspace (recording runs the step).');
      return undefined;
    }
    let hit: { manifestUri: string; step: { step_id: string } } | undefined;
    if (opts?.manifestUri && opts.stepId) {
      hit = { manifestUri: opts.manifestUri, step: { step_id: opts.stepId } };
    } else {
      hit = await pickStep('Record a fixture: which step?');
    }
    if (!hit) {
      return undefined;
    }
    const name = opts?.name ?? (await vscode.window.showInputBox({
      title: `Record a fixture for ${hit.step.step_id}`,
      prompt: 'Fixture name (the file becomes fixtures/<step>/<name>.json)',
      value: `case-${new Date().toISOString().slice(0, 10)}`,
      validateInput: (v) => (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v) ? undefined : 'letters, digits, . _ - only'),
    }));
    if (!name) {
      return undefined;
    }
    const manifestDir = vscode.Uri.joinPath(vscode.Uri.parse(hit.manifestUri), '..');
    let inputsText: string | undefined = opts?.inputs !== undefined ? JSON.stringify(opts.inputs) : undefined;
    if (inputsText === undefined && opts?.inputsFile) {
      inputsText = Buffer.from(await vscode.workspace.fs.readFile(vscode.Uri.file(opts.inputsFile))).toString('utf8');
    }
    if (inputsText === undefined) {
      const active = vscode.window.activeTextEditor?.document;
      const choices: (vscode.QuickPickItem & { text?: string })[] = [];
      if (active && active.languageId === 'json') {
        choices.push({ label: '$(file) The active JSON editor', description: path.basename(active.uri.fsPath), text: active.getText() });
      }
      choices.push({ label: '$(folder-opened) Choose an inputs file…' });
      const pick = await vscode.window.showQuickPick(choices, { title: 'Inputs for the step (a JSON object: parameter → value)' });
      if (!pick) {
        return undefined;
      }
      inputsText = pick.text;
    }
    if (inputsText === undefined) {
      const files = await vscode.window.showOpenDialog({ defaultUri: manifestDir, canSelectMany: false, filters: { JSON: ['json'] }, openLabel: 'Use as inputs' });
      if (!files?.length) {
        return undefined;
      }
      inputsText = Buffer.from(await vscode.workspace.fs.readFile(files[0])).toString('utf8');
    }
    let inputs: unknown;
    try {
      inputs = JSON.parse(inputsText);
      // a whole fixture file is fine too: take its "inputs"
      if (inputs && typeof inputs === 'object' && 'inputs' in (inputs as any) && 'expected' in (inputs as any)) {
        inputs = (inputs as any).inputs;
      }
    } catch (e) {
      void vscode.window.showErrorMessage(`The inputs are not valid JSON: ${(e as Error).message}`);
      return undefined;
    }
    const evaluationTime = opts && 'evaluationTime' in opts ? (opts.evaluationTime ?? '') : await vscode.window.showInputBox({
      title: 'Pinned evaluation time (what datetime.now() returns inside the step)',
      value: new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      prompt: 'ISO 8601; empty for none',
    });
    if (evaluationTime === undefined) {
      return undefined;
    }
    const resp = await server.executeServerCommand<RunResponse>(ServerCommands.recordFixture, [
      hit.manifestUri,
      hit.step.step_id,
      name,
      JSON.stringify(inputs),
      evaluationTime || null,
    ]);
    const r = resp?.results?.[0];
    if (r?.status === 'recorded') {
      tests.scheduleRefresh(0);
      void vscode.window.showInformationMessage(`Recorded fixture ${r.fixture} for ${hit.step.step_id}.`, 'Open').then((open) => {
        if (open && r.uri) {
          void vscode.window.showTextDocument(vscode.Uri.parse(r.uri));
        }
      });
    } else {
      void vscode.window.showErrorMessage(`Recording failed: ${r?.message ?? 'the language server is not running'}`);
      return resp;
    }
    return resp;
  });

  reg('stepsmith.openRuleDocs', async (codeArg?: string) => {
    let code = typeof codeArg === 'string' ? codeArg : undefined;
    let href: vscode.Uri | undefined;
    if (!code) {
      const ed = vscode.window.activeTextEditor;
      if (!ed) {
        void vscode.window.showInformationMessage('Open a workflow file and put the cursor on a Stepsmith diagnostic.');
        return undefined;
      }
      const all = vscode.languages.getDiagnostics(ed.document.uri).filter((d) => d.source === 'stepsmith');
      const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code ?? ''));
      const here = all.filter((d) => d.range.contains(ed.selection.active));
      let diag = here[0];
      if (!diag && all.length) {
        const p = await vscode.window.showQuickPick(
          all.map((d) => ({ label: codeOf(d), description: `line ${d.range.start.line + 1}`, detail: d.message, d })),
          { title: 'Which rule?' },
        );
        diag = p?.d as vscode.Diagnostic;
      }
      if (!diag) {
        void vscode.window.showInformationMessage('No Stepsmith diagnostic under the cursor.');
        return undefined;
      }
      code = codeOf(diag);
      href = typeof diag.code === 'object' ? diag.code.target : undefined;
    }
    let doc: RuleDoc | null | undefined;
    try {
      doc = await server.request<RuleDoc | null>(Requests.rule, { code });
    } catch (e) {
      server.output.warn(`rule ${code}: ${(e as Error).message}`);
    }
    if (!doc) {
      if (href) {
        await vscode.env.openExternal(href);
        return href.toString();
      }
      void vscode.window.showWarningMessage(`No documentation for rule ${code}.`);
      return undefined;
    }
    const md =
      doc.markdown ||
      `# ${doc.code} ${doc.name}\n\n${doc.summary}\n\n## Why\n\n${doc.rationale}\n\n${doc.security ? '_Security rule: it cannot be suppressed._' : ''}`;
    await showMarkdown(`${doc.code} ${doc.name}`, md);
    return md;
  });
}
