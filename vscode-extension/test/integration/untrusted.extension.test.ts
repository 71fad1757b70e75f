// Runs in a workspace VS Code does NOT trust (scripts/run-integration.sh starts code-server with
// workspace trust on and no prompt). Stepsmith must give diagnostics and reach only; nothing runs.
// The workspace also holds a .vscode/settings.json pointing stepsmith.interpreter at a program
// that must never be started: restricted settings of an untrusted workspace are ignored.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { StepsmithApi } from '../../src/extension';

const ws = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

async function waitFor<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 60000): Promise<T> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    const v = await fn();
    if (v !== undefined && v !== null) {
      return v;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let api: StepsmithApi;

describe('stepsmith in an untrusted workspace', function () {
  before(async function () {
    const ext = vscode.extensions.getExtension<StepsmithApi>('stepsmith.stepsmith')!;
    api = await waitFor('activation', async () => (ext.isActive ? ext.exports : undefined));
    await api.ready;
  });

  it('the workspace is untrusted, and its interpreter setting is ignored', () => {
    assert.strictEqual(vscode.workspace.isTrusted, false);
    assert.strictEqual(api.server.state, 'running', api.server.lastProblem?.message);
    assert.ok(!api.server.lastPlan!.command.includes('must-not-run'), api.server.lastPlan!.command);
    assert.ok(!fs.existsSync(path.join(ws(), 'ran.txt')), 'the workspace interpreter was started');
  });

  it('the server is told that nothing may run', () => {
    const s = api.server.serverSettingsNow();
    assert.deepStrictEqual([s.runOnSave, s.runOnType, s.trusted], [false, false, false]);
  });

  it('diagnostics still appear', async () => {
    const uri = vscode.Uri.file(path.join(ws(), 'payment-chasing', 'steps', 'risk.py'));
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'import os\n'));
    await waitFor('a stepsmith diagnostic', () => vscode.languages.getDiagnostics(uri).find((d) => d.source === 'stepsmith'));
    // saving would run fixtures in a trusted workspace
    await editor.document.save();
    await new Promise((r) => setTimeout(r, 2000));
  });

  it('registers only the read-only language-model tools, and they answer', async () => {
    const names = vscode.lm.tools.filter((t) => t.name.startsWith('stepsmith_')).map((t) => t.name).sort();
    assert.deepStrictEqual(names, ['stepsmith_check', 'stepsmith_explain_rule', 'stepsmith_reach']);
    const res = await vscode.lm.invokeTool('stepsmith_reach', { input: {}, toolInvocationToken: undefined });
    const reach = JSON.parse((res.content[0] as vscode.LanguageModelTextPart).value);
    assert.ok(reach.workflows.length >= 2 && reach.sentence.includes('not a review of what its code does'));
    await assert.rejects(Promise.resolve().then(() => vscode.lm.invokeTool('stepsmith_run_step',
      { input: { workflow: 'payment-chasing', step: 'overdue', inputs: {} }, toolInvocationToken: undefined })));
  });

  it('the reach view works', async () => {
    const roots = await api.reach.refresh();
    assert.strictEqual(roots.length, 2);
  });

  it('test runs execute nothing: every fixture is skipped', async () => {
    await api.tests.refresh();
    const items: vscode.TestItem[] = [];
    api.tests.controller.items.forEach((i) => items.push(i));
    assert.ok(items.length > 0);
    await api.tests.runHandler(new vscode.TestRunRequest(items), new vscode.CancellationTokenSource().token);
    const kinds = new Set([...api.tests.outcomes.values()].map((o) => o.kind));
    assert.deepStrictEqual([...kinds], ['skipped']);
  });

  it('run and record commands refuse, also when called as the server commands', async () => {
    const fixture = vscode.Uri.file(path.join(ws(), 'payment-chasing', 'fixtures', 'overdue', 'nothing-due.json')).toString();
    const viaClient = await vscode.commands.executeCommand('stepsmith.runFixture', fixture);
    assert.strictEqual(viaClient, undefined);
    await assert.rejects(api.server.executeServerCommand('stepsmith.runFixture', [fixture]), /untrusted/);
    assert.strictEqual(await vscode.commands.executeCommand('stepsmith.runThisStepFixtures'), undefined);
    assert.strictEqual(await vscode.commands.executeCommand('stepsmith.recordFixtureFromInputs', { manifestUri: 'x', stepId: 'y', name: 'z', inputs: {} }), undefined);
    assert.ok(!fs.existsSync(path.join(ws(), 'payment-chasing', '.stepsmith')), 'nothing was run or stored');
  });
});
