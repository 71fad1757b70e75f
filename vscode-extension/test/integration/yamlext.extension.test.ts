// Runs beside a stand-in for Red Hat's YAML extension (test/fake-yaml-extension, id
// redhat.vscode-yaml) that runs the real yaml-language-server from npm with our schema (through
// our `yamlValidation` contribution). What the user sees on a broken manifest: every problem
// exactly once, from whichever server reports it (ours for what the schema cannot say), and every
// key's description once on hover.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { StepsmithApi } from '../../src/extension';

const ws = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 90000): Promise<T> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    const v = await fn();
    if (v !== undefined && v !== null && v !== false) {
      return v as T;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const MANIFEST = [
  'workflow: yaml-check', //                              1
  'version: 3.0', //                                      2  a whole number: fine for both
  'python: "3.11"', //                                    3
  'trigger:', //                                          4
  '  schedule:', //                                       5
  '    cron: "0 0 31 2 *"', //                            6  never fires
  '    timezone: Europe/Londn', //                        7  unknown timezone
  'connections:', //                                      8
  '  xero: {description: Ledger}', //                     9
  'sources:', //                                          10
  '  invoices: {connection: null}', //                    11 a connection source without one
  'steps:', //                                            12
  '  - id: match', //                                     13
  '    explanation: ""', //                               14 empty explanation
  '    code: steps/match.py:match', //                    15
  '    inputs:', //                                       16
  '      invoices: sources.invoices', //                  17
  '      prior: steps.nope.output', //                    18 a cross reference: the schema cannot say it
  '',
].join('\n');
const PROBLEM_LINES = [6, 7, 11, 14, 18];

const isOurs = (d: vscode.Diagnostic) => d.source === 'stepsmith';

describe('stepsmith beside the YAML extension (yaml-language-server)', function () {
  let uri: vscode.Uri;

  before(async function () {
    const yaml = vscode.extensions.getExtension('redhat.vscode-yaml');
    assert.ok(yaml, 'the stand-in YAML extension is installed');
    await yaml.activate();
    const ext = vscode.extensions.getExtension<StepsmithApi>('stepsmith.stepsmith')!;
    const api = await waitFor('activation', async () => (ext.isActive ? ext.exports : undefined));
    await api.ready;
    const dir = path.join(ws(), 'yaml-check');
    const restarts = api.server.restarts;
    fs.mkdirSync(path.join(dir, 'steps'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'steps', 'match.py'), 'def match(invoices, prior):\n    return invoices\n');
    fs.writeFileSync(path.join(dir, 'workflow.yaml'), MANIFEST);
    uri = vscode.Uri.file(path.join(dir, 'workflow.yaml'));
    // a new workflow folder restarts the server once; its diagnostics are the ones to judge
    await waitFor('the server to serve yaml-check', () => api.server.state === 'running'
      && api.server.servedManifests.some((m) => m.includes('yaml-check')));
    // the manifest's event and its new folder's (300 ms later) are one change: one restart
    await new Promise((r) => setTimeout(r, 1500));
    assert.strictEqual(api.server.restarts, restarts + 1, 'one restart for one new workflow folder');
    await waitFor('the server running', () => api.server.state === 'running');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
  });

  it('shows every problem exactly once, nothing where there is none', async () => {
    const lineOf = (d: vscode.Diagnostic) => d.range.start.line + 1;
    await waitFor('diagnostics from both servers on every problem line', () => {
      const all = vscode.languages.getDiagnostics(uri);
      return all.some(isOurs) && all.some((d) => !isOurs(d)) && PROBLEM_LINES.every((l) => all.some((d) => lineOf(d) === l));
    });
    await new Promise((r) => setTimeout(r, 4000)); // both servers settle (debounce, re-validation)
    const all = vscode.languages.getDiagnostics(uri);
    const shown = all.map((d) => `${lineOf(d)} ${d.source}: ${d.message.slice(0, 120)}`).join('\n');
    for (const line of PROBLEM_LINES) {
      assert.strictEqual(all.filter((d) => lineOf(d) === line).length, 1, `line ${line} shows one problem:\n${shown}`);
    }
    assert.deepStrictEqual([...new Set(all.map(lineOf))].sort((a, b) => a - b), PROBLEM_LINES, shown);
    for (const d of all) {
      assert.ok(d.message.length < 200, `a readable message, not a pattern or 600 names: ${d.message.slice(0, 300)}`);
    }
    const cross = all.find((d) => lineOf(d) === 18)!;
    assert.ok(isOurs(cross) && /nope/.test(cross.message), 'the cross reference is ours');
    for (const line of [6, 7, 11, 14]) {
      assert.ok(!isOurs(all.find((d) => lineOf(d) === line)!), `line ${line}: the schema says it, the YAML extension shows it`);
    }
  });

  it('a duplicate key and a YAML syntax error: once each', async () => {
    const dir = path.join(ws(), 'yaml-check');
    const cases: [string, string, number][] = [
      ['dup.workflow.yaml', 'workflow: yaml-dup\nversion: 1\npython: "3.11"\ntrigger:\n  manual: {}\nsteps:\n'
        + '  - id: a\n    explanation: x\n    code: steps/match.py:match\n    inputs: {invoices: 1, prior: 2}\nversion: 2\n', 11],
      ['quote.workflow.yaml', 'workflow: yaml-quote\nversion: 1\npython: "3.11\n', 3],
    ];
    for (const [name, text, line] of cases) {
      fs.writeFileSync(path.join(dir, name), text);
      const u = vscode.Uri.file(path.join(dir, name));
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(u));
      await waitFor(`${name}: a diagnostic from each server`, () => {
        const all = vscode.languages.getDiagnostics(u);
        return all.some(isOurs) || all.some((d) => !isOurs(d));
      });
      await new Promise((r) => setTimeout(r, 4000));
      const all = vscode.languages.getDiagnostics(u);
      const shown = all.map((d) => `${d.range.start.line + 1} ${d.source}: ${d.message.slice(0, 120)}`).join('\n');
      // the syntax problem, from either server: once (the YAML extension's own schema findings on a
      // document that does not parse are its own business)
      const syntax = all.filter((d) => d.source === 'YAML' || ['SM001', 'SM002'].includes(String((d.code as any)?.value ?? d.code)));
      assert.strictEqual(syntax.length, 1, `${name}: the syntax problem once:\n${shown}`);
      assert.ok(Math.abs(syntax[0].range.start.line + 1 - line) <= 1, `${name}: at line ${line}:\n${shown}`);
    }
  });

  it('shows a key\'s description once on hover', async () => {
    for (const [line, col, sentence] of [[5, 6, 'Five-field cron expression'], [6, 6, 'IANA timezone the cron expression'], [14, 6, 'The step function as']] as const) {
      const hovers = await waitFor(`hovers at ${line}:${col}`, async () => {
        const h = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line, col));
        return h && h.some((x) => x.contents.some((c) => (typeof c === 'string' ? c : c.value).includes(sentence))) ? h : undefined;
      }, 30000);
      const texts = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value)));
      const times = texts.filter((t) => t.includes(sentence)).length;
      assert.strictEqual(times, 1, `"${sentence}" shown ${times} times:\n${texts.join('\n---\n')}`);
    }
  });
});
