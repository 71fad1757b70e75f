// Runs inside the real VS Code extension host (code-server), with the real language client and
// the real Python language server, on a copy of examples/ prepared by scripts/run-integration.sh:
//   invoice-matching/, payment-chasing/ (as in the repo)
//   payment-chasing/fixtures/overdue/wrong-expectation.json  (a fixture that must fail)
//   loose/stray.py  (Python outside any workflow folder: must not be served)
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { StepsmithApi } from '../../src/extension';
import { MutantsResponse, REACH_SENTENCE } from '../../src/protocol';

const EXT_ID = 'stepsmith.stepsmith';
const ws = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

async function waitFor<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 60000, stepMs = 250): Promise<T> {
  const t0 = Date.now();
  let last: unknown;
  while (Date.now() - t0 < timeoutMs) {
    try {
      const v = await fn();
      if (v !== undefined && v !== null && (v as unknown) !== false) {
        return v as T;
      }
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
}

/** Step ids of a manifest, read straight from the YAML text (independent of the server). */
function manifestStepIds(file: string): string[] {
  return [...fs.readFileSync(file, 'utf8').matchAll(/^\s*-\s*id:\s*([a-z][a-z0-9_-]*)\s*$/gm)].map((m) => m[1]);
}

function stepsmithDiags(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'stepsmith');
}

const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code));

let api: StepsmithApi;

describe('stepsmith extension in VS Code', function () {
  before(async function () {
    const ext = vscode.extensions.getExtension<StepsmithApi>(EXT_ID);
    assert.ok(ext, `${EXT_ID} is not loaded`);
    api = await waitFor('activation (workspaceContains:**/workflow.yaml)', async () => (ext.isActive ? ext.exports : undefined), 60000);
    await api.ready;
    assert.strictEqual(api.server.state, 'running', `server not running: ${api.server.lastProblem?.message ?? ''}`);
  });

  it('activated because the workspace has a manifest, and started the server from the resolved interpreter', () => {
    assert.ok(api.server.lastPlan?.ok);
    assert.match(api.server.lastPlan!.args.join(' '), /-m stepsmith\.server$/);
  });

  it('shows diagnostics on an example with a violation, as the author types, and clears them on undo', async () => {
    const uri = vscode.Uri.file(path.join(ws(), 'payment-chasing', 'steps', 'risk.py'));
    const saved = fs.readFileSync(uri.fsPath, 'utf8');
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    // a clean example first: no rule violations
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepStrictEqual(stepsmithDiags(uri).map(codeOf), [], 'the example itself should be clean');
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'import os\n'));
    const diags = await waitFor('an SS1xx import diagnostic', () => {
      const d = stepsmithDiags(uri).filter((x) => /^SS1\d\d$/.test(codeOf(x)));
      return d.length ? d : undefined;
    });
    assert.strictEqual(diags[0].range.start.line, 0);
    assert.strictEqual(diags[0].severity, vscode.DiagnosticSeverity.Error);
    assert.match(diags[0].message, /os/);
    await vscode.commands.executeCommand('undo');
    await waitFor('diagnostics to clear after undo', () => (stepsmithDiags(uri).length === 0 ? true : undefined));
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    // the later tests run and record this step from the disk: the edit never reached it
    // (code-server auto-saves after 1 s unless files.autoSave is off: scripts/settings.json)
    assert.strictEqual(fs.readFileSync(uri.fsPath, 'utf8'), saved, 'risk.py was saved with the edit');
  });

  it('reports manifest errors at the YAML position (no YAML extension here, so nothing is dropped)', async () => {
    const uri = vscode.Uri.file(path.join(ws(), 'invoice-matching', 'workflow.yaml'));
    const saved = fs.readFileSync(uri.fsPath, 'utf8');
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    const line = doc.getText().split('\n').findIndex((l) => l.startsWith('version:'));
    await editor.edit((e) => e.insert(new vscode.Position(line, 0), 'verison: 4\n'));
    const d = await waitFor('an SM003 unknown-key diagnostic', () => stepsmithDiags(uri).find((x) => codeOf(x) === 'SM003'));
    assert.strictEqual(d.range.start.line, line);
    assert.match(d.message, /verison/);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    // the later tests run this workflow from the disk: the typo never reached it (a revert
    // after code-server's auto-save, 1 s when files.autoSave is not off, reloads the saved typo)
    assert.strictEqual(fs.readFileSync(uri.fsPath, 'utf8'), saved, 'workflow.yaml was saved with the typo');
    await waitFor('manifest diagnostics to clear after revert', () => (stepsmithDiags(uri).length === 0 ? true : undefined));
    // a pull client drops a closed document's diagnostics itself: that they are gone does not
    // say the server has the reverted text yet; the next tests run on it, so wait until it has
    await waitFor('the server to serve the reverted manifest', async () => {
      const roots = await api.reach.refresh();
      const wf = roots.find((r) => r.label === 'invoice-matching');
      return wf && wf.children.some((c) => c.kind === 'step') ? true : undefined;
    });
  });

  it('opens the rule documentation for a diagnostic code', async () => {
    const md = await vscode.commands.executeCommand<string>('stepsmith.openRuleDocs', 'SS101');
    assert.ok(md && /SS101/.test(md), `no docs: ${md}`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('does not serve Python files outside folders with a manifest', async () => {
    const uri = vscode.Uri.file(path.join(ws(), 'loose', 'stray.py'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await new Promise((r) => setTimeout(r, 2500));
    assert.deepStrictEqual(stepsmithDiags(uri), []);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('the reach view lists every step of every workflow, with the sentence', async () => {
    const roots = await api.reach.refresh();
    const expected = ['invoice-matching', 'payment-chasing'].map((w) => ({
      workflow: w,
      steps: manifestStepIds(path.join(ws(), w, 'workflow.yaml')),
    }));
    for (const e of expected) {
      const wf = roots.find((r) => r.label === e.workflow);
      assert.ok(wf, `workflow ${e.workflow} missing from the reach view: ${roots.map((r) => r.label)}`);
      assert.deepStrictEqual(wf.children.filter((c) => c.kind === 'step').map((c) => c.label), e.steps);
      for (const s of wf.children) {
        assert.deepStrictEqual(s.children.map((c) => c.kind), ['network', 'connections', 'sources', 'effects']);
      }
    }
    const all = roots.flatMap((r) => r.children);
    assert.ok(all.some((s) => s.description === 'reaches nothing'), 'steps that reach nothing are listed too');
    const fx = all.find((s) => s.label === 'fx_rates')!;
    assert.strictEqual(fx.children[0].description, 'public egress');
    assert.strictEqual(api.reach.view.message, REACH_SENTENCE);
    // the TreeDataProvider is what VS Code renders: ask it the same way
    const top = api.reach.getChildren();
    assert.strictEqual(top.length, 2);
    const item = api.reach.getTreeItem(top[0].children[0]);
    assert.ok(item.command, 'a step opens its manifest entry');
  });

  it('the reach view follows manifest edits', async () => {
    const uri = vscode.Uri.file(path.join(ws(), 'payment-chasing', 'workflow.yaml'));
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    const text = doc.getText();
    const at = doc.positionAt(text.indexOf('  - id: escalate'));
    await editor.edit((e) =>
      e.insert(at, '  - id: audit_note\n    explanation: Write a note for the audit log.\n    code: steps/escalate.py:escalate\n    inputs:\n      scored: steps.risk.output\n      threshold: "1.00"\n'),
    );
    await waitFor('the new step in the reach view', async () => {
      const roots = await api.reach.refresh();
      return roots.find((r) => r.label === 'payment-chasing')?.children.some((c) => c.label === 'audit_note') || undefined;
    }, 30000, 500);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await waitFor('the step gone again after revert', async () => {
      const roots = await api.reach.refresh();
      return roots.find((r) => r.label === 'payment-chasing')?.children.every((c) => c.label !== 'audit_note') || undefined;
    }, 30000, 500);
  });

  it('fixtures appear in the Test Explorer as workflow -> step -> fixture', async () => {
    await api.tests.refresh();
    const ctl = api.tests.controller;
    const wfs: string[] = [];
    ctl.items.forEach((i) => wfs.push(i.label));
    assert.deepStrictEqual(wfs.sort(), ['invoice-matching', 'payment-chasing']);
    for (const w of ['invoice-matching', 'payment-chasing']) {
      let wfItem: vscode.TestItem | undefined;
      ctl.items.forEach((i) => (wfItem = i.label === w ? i : wfItem));
      const fixDir = path.join(ws(), w, 'fixtures');
      for (const stepDir of fs.readdirSync(fixDir).filter((d) => !d.startsWith('_'))) {
        const onDisk = fs.readdirSync(path.join(fixDir, stepDir)).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
        let stepItem: vscode.TestItem | undefined;
        wfItem!.children.forEach((s) => (stepItem = s.label === stepDir ? s : stepItem));
        assert.ok(stepItem, `step ${w}/${stepDir} missing`);
        const names: string[] = [];
        stepItem!.children.forEach((f) => names.push(f.label));
        assert.deepStrictEqual(names.sort(), onDisk, `fixtures of ${w}/${stepDir}`);
        stepItem!.children.forEach((f) => assert.ok(f.uri && f.uri.fsPath.endsWith('.json')));
      }
    }
  });

  it('a run reports pass and fail correctly, with the diff at the failing fixture', async () => {
    let stepItem: vscode.TestItem | undefined;
    api.tests.controller.items.forEach((wf) => wf.children.forEach((s) => {
      if (wf.label === 'payment-chasing' && s.label === 'overdue') {
        stepItem = s;
      }
    }));
    assert.ok(stepItem, 'payment-chasing/overdue in the Test Explorer');
    const cts = new vscode.CancellationTokenSource();
    await api.tests.runHandler(new vscode.TestRunRequest([stepItem!]), cts.token);
    const outcomes: Record<string, string> = {};
    stepItem!.children.forEach((f) => (outcomes[f.label] = api.tests.outcomes.get(f.id)?.kind ?? 'none'));
    assert.deepStrictEqual(outcomes, {
      'harbour-2026-12-01': 'passed',
      'next-day-2026-12-02': 'passed',
      'nothing-due': 'passed',
      'week-later-2026-12-08': 'passed',
      'wrong-expectation': 'failed',
    }, JSON.stringify([...api.tests.outcomes.entries()], null, 1));
    let failing: vscode.TestItem | undefined;
    stepItem!.children.forEach((f) => (failing = f.label === 'wrong-expectation' ? f : failing));
    const o = api.tests.outcomes.get(failing!.id)!;
    assert.match(o.diff ?? '', /2026-12-0[12]/, 'the failure carries the diff');
    assert.strictEqual(o.location?.uri.fsPath, failing!.uri!.fsPath, 'shown at the fixture');
    // on its top-level "expected" key, as the server located it (json.dumps(indent=2): `  "expected"`)
    const lines = fs.readFileSync(failing!.uri!.fsPath, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.startsWith('  "expected"'));
    assert.deepStrictEqual([o.location?.range.start.line, o.location?.range.start.character, o.location?.range.end.character], [at, 2, 12]);
  });

  it('a single fixture runs on its own and passes', async () => {
    let item: vscode.TestItem | undefined;
    api.tests.controller.items.forEach((wf) => wf.children.forEach((s) => s.children.forEach((f) => {
      if (wf.label === 'invoice-matching' && s.label === 'summary' && f.label === 'acme-2026-12-01') {
        item = f;
      }
    })));
    assert.ok(item);
    await api.tests.runHandler(new vscode.TestRunRequest([item!]), new vscode.CancellationTokenSource().token);
    assert.strictEqual(api.tests.outcomes.get(item!.id)?.kind, 'passed', JSON.stringify(api.tests.outcomes.get(item!.id)));
  });

  it('records a fixture from given inputs, and it appears in the Test Explorer and passes', async () => {
    const src = path.join(ws(), 'payment-chasing', 'fixtures', 'overdue', 'harbour-2026-12-01.json');
    const fx = JSON.parse(fs.readFileSync(src, 'utf8'));
    const inputsFile = path.join(ws(), 'recorded-inputs.json');
    fs.writeFileSync(inputsFile, JSON.stringify(fx.inputs));
    const manifestUri = vscode.Uri.file(path.join(ws(), 'payment-chasing', 'workflow.yaml')).toString();
    const resp = await vscode.commands.executeCommand<any>('stepsmith.recordFixtureFromInputs', {
      manifestUri, stepId: 'overdue', name: 'recorded-in-test', inputsFile, evaluationTime: fx.evaluation_time,
    });
    assert.strictEqual(resp?.results?.[0]?.status, 'recorded', JSON.stringify(resp));
    const file = path.join(ws(), 'payment-chasing', 'fixtures', 'overdue', 'recorded-in-test.json');
    assert.ok(fs.existsSync(file), 'fixture file written');
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(file, 'utf8')).expected.output, fx.expected.output);
    const item = await waitFor('the recorded fixture in the Test Explorer', async () => {
      await api.tests.refresh();
      let found: vscode.TestItem | undefined;
      api.tests.controller.items.forEach((wf) => wf.children.forEach((s) => s.children.forEach((f) => (found = f.label === 'recorded-in-test' ? f : found))));
      return found;
    }, 20000, 500);
    await api.tests.runHandler(new vscode.TestRunRequest([item]), new vscode.CancellationTokenSource().token);
    assert.strictEqual(api.tests.outcomes.get(item.id)?.kind, 'passed');
  });

  it('after a run, a fixture\'s values appear as inlay hints and coverage is served (issue 12)', async () => {
    const uri = vscode.Uri.file(path.join(ws(), 'payment-chasing', 'steps', 'overdue.py'));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const manifest = vscode.Uri.file(path.join(ws(), 'payment-chasing', 'workflow.yaml')).toString();
    await api.server.executeServerCommand('stepsmith.runStepFixtures', [manifest, 'overdue']);
    const line = doc.getText().split('\n').findIndex((l) => l.includes('today = date.today()'));
    const hints = await waitFor('an inlay value on `today = date.today()`', async () => {
      const all = await vscode.commands.executeCommand<vscode.InlayHint[]>('vscode.executeInlayHintProvider', uri,
        new vscode.Range(0, 0, doc.lineCount, 0));
      const labels = (all ?? []).filter((h) => h.position.line === line).map((h) => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join('')));
      return labels.length ? labels : undefined;
    });
    assert.deepStrictEqual(hints, ['= date(2026, 12, 1)']);
    const cov = await api.server.request<any>('stepsmith/coverage', { uri: uri.toString() });
    assert.ok(cov?.coverage && cov.coverage.executed.includes(line), JSON.stringify(cov));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Run This Step\'s Fixtures runs the step under the cursor through the Test Explorer', async () => {
    const uri = vscode.Uri.file(path.join(ws(), 'payment-chasing', 'steps', 'escalate.py'));
    const doc = await vscode.workspace.openTextDocument(uri);
    const line = doc.getText().split('\n').findIndex((l) => l.startsWith('def escalate('));
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(line + 1, 4, line + 1, 4);
    const id = await vscode.commands.executeCommand<string>('stepsmith.runThisStepFixtures');
    assert.ok(id && id.endsWith('#escalate'), `ran ${id}`);
    let stepItem: vscode.TestItem | undefined;
    api.tests.controller.items.forEach((wf) => (stepItem = stepItem ?? wf.children.get(id!)));
    const kinds: string[] = [];
    stepItem!.children.forEach((f) => kinds.push(api.tests.outcomes.get(f.id)?.kind ?? 'none'));
    assert.ok(kinds.length > 0 && kinds.every((k) => k === 'passed'), kinds.join(','));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('runs the server does on save show up in the Test Explorer', async () => {
    const uri = vscode.Uri.file(path.join(ws(), 'payment-chasing', 'steps', 'risk.py'));
    const original = fs.readFileSync(uri.fsPath, 'utf8');
    let stepItem: vscode.TestItem | undefined;
    api.tests.controller.items.forEach((wf) => wf.children.forEach((s) => {
      if (wf.label === 'payment-chasing' && s.label === 'risk') {
        stepItem = s;
      }
    }));
    const ids: string[] = [];
    stepItem!.children.forEach((f) => ids.push(f.id));
    ids.forEach((id) => api.tests.outcomes.delete(id));
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(doc.lineCount, 0), '\n# saved by the integration test\n'));
    await doc.save();
    try {
      await waitFor('outcomes of the run on save', () => (ids.every((id) => api.tests.outcomes.has(id)) ? true : undefined), 60000);
      assert.deepStrictEqual(ids.map((id) => api.tests.outcomes.get(id)!.kind), ids.map(() => 'passed'));
    } finally {
      fs.writeFileSync(uri.fsPath, original);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });

  it('registers the language-model tools; invokeTool(check) returns what the MCP check tool returns', async () => {
    const names = vscode.lm.tools.filter((t) => t.name.startsWith('stepsmith_')).map((t) => t.name).sort();
    assert.deepStrictEqual(names, ['stepsmith_check', 'stepsmith_explain_rule', 'stepsmith_propose_fixture',
      'stepsmith_reach', 'stepsmith_run_step', 'stepsmith_test']);
    // the workflow folder arrives whole, as a `git checkout` or `cp -r` brings it: one event
    // for the folder, none for the files inside (the manifest globs alone missed it)
    const dir = path.join(ws(), 'agentcheck');
    const built = path.join(path.dirname(ws()), `agentcheck-${process.pid}`);
    fs.mkdirSync(path.join(built, 'steps'), { recursive: true });
    fs.writeFileSync(path.join(built, 'workflow.yaml'), 'workflow: agentcheck\nversion: 1\npython: "3.11"\n'
      + 'trigger: {manual: {}}\nsteps:\n  - id: s\n    explanation: Add one.\n    code: steps/s.py:s\n'
      + '    inputs: {x: 1}\n');
    fs.writeFileSync(path.join(built, 'steps', 's.py'), 'import os\n\n\ndef s(x):\n    return x + 1\n');
    fs.renameSync(built, dir);
    // a new workflow folder restarts the server; the tool call and later tests wait for it
    const serving = (yes: boolean) => () => (api.server.state === 'running'
      && api.server.servedManifests.some((m) => m.includes('agentcheck')) === yes ? true : undefined);
    await waitFor('the server to serve agentcheck', serving(true));
    const res = await vscode.lm.invokeTool('stepsmith_check', { input: { paths: ['agentcheck'] }, toolInvocationToken: undefined });
    const got = JSON.parse((res.content[0] as vscode.LanguageModelTextPart).value);
    assert.deepStrictEqual(got.problems.map((p: { code: string; line: number; column: number }) => [p.code, p.line, p.column]), [['SS101', 1, 7]]);
    // the rule's text comes from explain_rule (its page), not a file:// link to the server's disk
    assert.ok(got.problems[0].fixes[0].edits.length > 0 && got.problems[0].rationale && !('url' in got.problems[0]));
    // the reference: runner/agent's check, the tool `stepsmith mcp` serves, in the server's interpreter
    const plan = api.server.lastPlan!;
    const script = 'import sys; from stepsmith.runner.agent import tools; from stepsmith.runner.agent.scope import Scope; '
      + 'print(tools.check(Scope.of([sys.argv[1]]), [sys.argv[2]]).model_dump_json())';
    const out = require('child_process').execFileSync(plan.command, ['-c', script, ws(), 'agentcheck'],
      { env: { ...process.env, ...plan.env }, cwd: os.tmpdir() }).toString();
    assert.deepStrictEqual(got, JSON.parse(out));
    const rule = JSON.parse(((await vscode.lm.invokeTool('stepsmith_explain_rule', { input: { code: 'SS501' }, toolInvocationToken: undefined }))
      .content[0] as vscode.LanguageModelTextPart).value);
    assert.strictEqual(rule.code, 'SS501');
    fs.rmSync(dir, { recursive: true, force: true });
    await waitFor('the server to stop serving agentcheck', serving(false));
  });

  it('Show What Each Step Can Reach answers with every workflow', async () => {
    const r = await vscode.commands.executeCommand<any>('stepsmith.showReach');
    assert.strictEqual(r.workflows.length, 2);
  });

  it('the status bar says whether the sandbox is available', async () => {
    await waitFor('the server to run', () => (api.server.state === 'running' ? true : undefined));
    await api.status.update();
    assert.ok(api.status.last, 'stepsmith/status answered');
    assert.strictEqual(typeof api.status.last!.sandboxAvailable, 'boolean');
    assert.match(api.status.item.text, api.status.last!.sandboxAvailable ? /Sandbox ready/ : /Sandbox unavailable/);
  });

  it('a missing interpreter gives a clear failure, and fixing the setting restarts the server', async () => {
    const cfg = vscode.workspace.getConfiguration('stepsmith');
    await cfg.update('interpreter', ['/nonexistent/python3.11'], vscode.ConfigurationTarget.Workspace);
    await waitFor('the server to fail', () => (api.server.state === 'failed' ? true : undefined), 30000);
    assert.strictEqual(api.server.lastProblem?.kind, 'missing');
    assert.match(api.server.lastProblem!.message, /nonexistent/);
    await api.status.update();
    assert.match(api.status.item.text, /Stepsmith/);
    await cfg.update('interpreter', undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor('the server to run again', () => (api.server.state === 'running' ? true : undefined), 60000);
  });

  it('Stepsmith: Restart Server brings the server back', async () => {
    await vscode.commands.executeCommand('stepsmith.restartServer');
    assert.strictEqual(api.server.state, 'running');
    const roots = await api.reach.refresh();
    assert.strictEqual(roots.length, 2);
  });

  it('a failing fixture becomes a pending change: listed, its diff opens, Accept applies it and the fixture passes', async () => {
    const fx = path.join(ws(), 'payment-chasing', 'fixtures', 'overdue', 'wrong-expectation.json');
    const fxUri = vscode.Uri.file(fx).toString();
    const res = await api.server.executeServerCommand<any>('stepsmith.runFixture', [fxUri]);
    assert.strictEqual(res.results[0].status, 'failed');
    assert.ok(res.results[0].pendingUri, 'the run wrote a pending change');
    await api.pending.refresh();
    const item = api.pending.items.find((i) => i.fixtureUri === fxUri);
    assert.ok(item, `not listed: ${JSON.stringify(api.pending.items.map((i) => i.id))}`);
    assert.strictEqual(item!.step, 'overdue');
    const wf = api.pending.roots.find((r) => r.label === 'payment-chasing');
    assert.ok(wf && wf.kind === 'workflow' && wf.children.some((c) => c.kind === 'step' && c.label === 'overdue'), 'workflow -> step -> fixture');
    await vscode.commands.executeCommand('stepsmith.review.open', item);
    const tab = await waitFor('the diff editor', () => {
      const t = vscode.window.tabGroups.activeTabGroup.activeTab;
      return t?.input instanceof vscode.TabInputTextDiff ? t : undefined;
    }, 20000);
    const input = tab.input as vscode.TabInputTextDiff;
    assert.strictEqual(input.original.toString(), fxUri);
    const right = await vscode.workspace.openTextDocument(input.modified);
    assert.strictEqual(right.getText(), item!.newText);
    await vscode.commands.executeCommand('stepsmith.review.acceptCurrent', input.modified);
    assert.strictEqual(fs.readFileSync(fx, 'utf8'), item!.newText);
    assert.ok(!api.pending.items.some((i) => i.fixtureUri === fxUri), 'still pending after Accept');
    const again = await api.server.executeServerCommand<any>('stepsmith.runFixture', [fxUri]);
    assert.strictEqual(again.results[0].status, 'passed');
  });

  it('Show Mutants That Survive: survivors as information squiggles and a lens; the boundary fixture, once recorded, kills its survivor (issue 32)', async function () {
    this.timeout(300000);
    const uri = vscode.Uri.file(path.join(ws(), 'payment-chasing', 'steps', 'escalate.py'));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const line = doc.getText().split('\n').findIndex((l) => l.includes('row["days_late"] >= 60'));
    assert.ok(line >= 0, 'escalate.py changed: no `row["days_late"] >= 60` line');
    const survivors = () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'stepsmith-mutants');
    // `>=` becoming `>` on the 60-days line: no fixture has exactly 60 days late
    const boundary = (d: vscode.Diagnostic) => d.range.start.line === line && d.message.includes('`>=`') && d.message.includes('`>`');
    let answered: MutantsResponse | undefined;
    const done = Promise.resolve(vscode.commands.executeCommand<MutantsResponse>('stepsmith.showMutants', uri.toString()))
      .then((r) => { answered = r; });
    const shown = await waitFor('the survivors as diagnostics', () => (survivors().some(boundary) ? survivors() : undefined), 240000);
    assert.ok(shown.every((d) => d.severity === vscode.DiagnosticSeverity.Information), 'survivors are notes, not errors');
    // the command lists the survivors in a quick pick once it has the answer: close it until it returns
    await waitFor('the command to return', async () => {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await Promise.race([done, new Promise((r) => setTimeout(r, 300))]);
      return answered;
    }, 60000);
    const survived = answered!.mutants.filter((m) => m.status === 'survived');
    assert.strictEqual(answered!.summary?.survived, survived.length);
    assert.ok(survived.some((m) => m.line === line + 1 && m.original === '>=' && m.replacement === '>'),
      JSON.stringify(survived.map((m) => [m.line, m.original, m.replacement])));
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
    const titles = lenses.map((l) => l.command?.title ?? '');
    assert.ok(titles.some((t) => /^\d+ mutants? survives?$/.test(t)), JSON.stringify(titles));
    // the fixture the survivor asks for: 60 days late exactly (small, rarely late: only that reason)
    const fixture = path.join(ws(), 'payment-chasing', 'fixtures', 'escalate', 'boundary-60-days.json');
    const row = { invoice_id: 'S-4001', customer: 'Exact Sixty Ltd', email: 'ap@sixty.example', outstanding: '100.00',
      days_late: 60, pays_soon: 0.0, typical_days_late: 30, late_payments: 0 };
    fs.writeFileSync(fixture, JSON.stringify({
      inputs: { scored: { as_of: '2026-12-01', scored: [row] }, threshold: '5000.00' },
      evaluation_time: '2026-12-01T18:30:00+00:00',
      expected: { output: { call_today: [{ customer: row.customer, invoice_id: row.invoice_id, why: '60 days late' }], count: 1 } },
    }, null, 2) + '\n');
    try {
      // the step file is watched since its mutants ran: a fixture of its workflow runs them again
      const after = await waitFor('the boundary survivor to be killed by the new fixture',
        () => (survivors().length && !survivors().some(boundary) ? survivors() : undefined), 240000);
      assert.ok(after.some((d) => d.range.start.line === line + 2), 'the other survivors stay (the owed-amount boundary)');
    } finally {
      fs.unlinkSync(fixture);
    }
  });
});
