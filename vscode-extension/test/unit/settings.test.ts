import * as assert from 'assert';
import { DEFAULTS, diagnosticCode, filterSchemaLevel, leaveDescriptionsToYamlExtension, leaveSchemaErrorsToYamlExtension, needsRestart, readSettings, serverSettings, withoutSchemaDescription } from '../../src/settings';
import { documentSelector, escapeGlob, folderKey, isManifestPath, workflowFolders } from '../../src/manifests';

const cfg = (values: Record<string, unknown>) => ({ get: <T>(k: string) => values[k] as T | undefined });

describe('settings', () => {
  it('defaults when nothing is set', () => {
    assert.deepStrictEqual(readSettings(cfg({})), DEFAULTS);
  });

  it('normalises wrong types instead of throwing', () => {
    const s = readSettings(cfg({ interpreter: '/usr/bin/python3', importStrategy: 'bogus', runOnSave: 'yes', serverEnv: { A: '1', B: 2 }, 'trace.server': 'verbose' }));
    assert.deepStrictEqual(s.interpreter, ['/usr/bin/python3']);
    assert.strictEqual(s.importStrategy, 'auto');
    assert.strictEqual(s.runOnSave, true);
    assert.deepStrictEqual(s.serverEnv, { A: '1' });
    assert.strictEqual(s.traceServer, 'verbose');
    const n = readSettings(cfg({ runOnTypeDelayMs: -5, maxFileSize: 'big' }));
    assert.strictEqual(n.runOnTypeDelayMs, 300);
    assert.strictEqual(n.maxFileSize, 2000000);
    assert.strictEqual(readSettings(cfg({ runOnTypeDelayMs: 250.7 })).runOnTypeDelayMs, 250);
    assert.strictEqual(readSettings(cfg({ inlayHints: 'no' })).inlayHints, true);
    assert.strictEqual(serverSettings(readSettings(cfg({ inlayHints: false })), true).inlayHints, false);
  });

  it('restarts only for what changes how the server starts', () => {
    const a = readSettings(cfg({}));
    assert.ok(needsRestart(a, { ...a, interpreter: ['/x'] }));
    assert.ok(needsRestart(a, { ...a, importStrategy: 'useBundled' }));
    assert.ok(needsRestart(a, { ...a, serverEnv: { X: '1' } }));
    assert.ok(!needsRestart(a, { ...a, runOnSave: false }));
    assert.ok(!needsRestart(a, { ...a, runOnType: true }));
  });

  it('an untrusted workspace never runs on save or type, whatever the settings', () => {
    const s = readSettings(cfg({ runOnSave: true, runOnType: true }));
    assert.deepStrictEqual(serverSettings(s, true), { runOnSave: true, runOnType: true, runOnTypeDelayMs: 300, coverageDiagnostics: true, maxFileSize: 2000000, inlayHints: true, trusted: true });
    assert.deepStrictEqual(serverSettings(s, false), { runOnSave: false, runOnType: false, runOnTypeDelayMs: 300, coverageDiagnostics: true, maxFileSize: 2000000, inlayHints: true, trusted: false });
    // the rule pages' location reaches the server only when it is https
    const linked = readSettings(cfg({ ruleDocsUrl: 'https://docs.example.org/rules/{code}.md' }));
    assert.strictEqual(serverSettings(linked, true).ruleDocsUrl, 'https://docs.example.org/rules/{code}.md');
    for (const bad of ['file:///usr/share/rules/{code}.md', 'http://x.org/{code}', 'https://x.org/a b', 3]) {
      assert.strictEqual(serverSettings(readSettings(cfg({ ruleDocsUrl: bad })), true).ruleDocsUrl, undefined, String(bad));
    }
  });

  it('schema-level manifest errors are left to the YAML extension only when it validates', () => {
    const auto = readSettings(cfg({}));
    assert.ok(leaveSchemaErrorsToYamlExtension(auto, true, undefined));
    assert.ok(leaveSchemaErrorsToYamlExtension(auto, true, true));
    assert.ok(!leaveSchemaErrorsToYamlExtension(auto, true, false));
    assert.ok(!leaveSchemaErrorsToYamlExtension(auto, false, true));
    assert.ok(!leaveSchemaErrorsToYamlExtension({ ...auto, manifestSchemaDiagnostics: 'stepsmith' }, true, true));
  });
});

describe('schema-level diagnostics and the YAML extension', () => {
  // `data.schema`: the server found it through the model, which the schema agrees with; an
  // invalid cron, an unknown timezone or `connection: null` are such problems now
  const diags = [
    { code: 'SM003', data: { rule: 'SM003', schema: true } },
    { code: { value: 'SM005', target: 'x' }, data: { rule: 'SM005', schema: true } },
    { code: 'SM005', data: { rule: 'SM005' } }, // e.g. a 5,000-digit number: the loader's, not the schema's
    { code: 'SM001', data: { rule: 'SM001' } }, // YAML syntax as libyaml reads it
    { code: 'SM107', data: { rule: 'SM107', schema: true } }, // empty explanation: minLength in the schema
    { code: 'SM101', data: { rule: 'SM101' } }, { code: 'SS101' }, { code: undefined, data: 'x' },
  ];
  it('drops only what the schema expresses, on manifests, when left to the YAML extension', () => {
    assert.deepStrictEqual(filterSchemaLevel('/w/a/workflow.yaml', diags, true).map((d) => diagnosticCode(d.code)), ['SM005', 'SM001', 'SM101', 'SS101', '']);
    assert.deepStrictEqual(filterSchemaLevel('/w/a/billing.workflow.yaml', diags, true).length, 5);
    assert.strictEqual(filterSchemaLevel('/w/a/workflow.yaml', diags, false).length, diags.length);
    assert.strictEqual(filterSchemaLevel('/w/a/steps/x.py', diags, true).length, diags.length);
    assert.strictEqual(filterSchemaLevel('/w/a/other.yaml', diags, true).length, diags.length);
  });

  it('our syntax error goes while the YAML extension shows one, a duplicate key while it shows one on that line', () => {
    const at = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 1 } });
    const ours = [{ code: 'SM001', range: at(3) }, { code: 'SM002', range: at(7) }, { code: 'SM101', range: at(7) }];
    const theirs = [{ source: 'YAML', range: at(7) }, { source: 'yaml-schema: file:///s.json', range: at(3) }];
    assert.deepStrictEqual(filterSchemaLevel('/w/workflow.yaml', ours, true, theirs).map((d) => d.code), ['SM101']);
    const elsewhere = [{ source: 'YAML', range: at(9) }];  // the document does not parse for either
    assert.deepStrictEqual(filterSchemaLevel('/w/workflow.yaml', ours, true, elsewhere).map((d) => d.code), ['SM002', 'SM101']);
    assert.deepStrictEqual(filterSchemaLevel('/w/workflow.yaml', ours, true, []).map((d) => d.code), ['SM001', 'SM002', 'SM101']);
    assert.strictEqual(filterSchemaLevel('/w/workflow.yaml', ours, false, theirs).length, 3);
  });

  it('hovers: the key description goes when the YAML extension shows it, a reach card stays', () => {
    const auto = readSettings(cfg({}));
    assert.ok(leaveDescriptionsToYamlExtension(auto, true, undefined));
    assert.ok(!leaveDescriptionsToYamlExtension(auto, true, false));
    assert.ok(!leaveDescriptionsToYamlExtension(auto, false, true));
    assert.strictEqual(withoutSchemaDescription('**`cron`** — Five-field cron expression\n\n*Required.*'), undefined);
    assert.strictEqual(withoutSchemaDescription('**`network`** — none or public_egress\n\n---\n\n### Step `m` — what it can reach'), '### Step `m` — what it can reach');
    assert.strictEqual(withoutSchemaDescription('### SM005 `wrong-value`'), '### SM005 `wrong-value`');
    assert.strictEqual(withoutSchemaDescription('**Input `x`** of step `m`'), '**Input `x`** of step `m`');
  });
});

describe('document selector', () => {
  it('recognises manifests', () => {
    assert.ok(isManifestPath('/a/workflow.yaml'));
    assert.ok(isManifestPath('/a/billing.workflow.yaml'));
    assert.ok(!isManifestPath('/a/workflow.yml'));
    assert.ok(!isManifestPath('/a/myworkflow.yaml'));
  });

  it('serves Python only under folders with a manifest, nested folders folded into their parent', () => {
    const f = workflowFolders(['/w/a/workflow.yaml', '/w/a/sub/x.workflow.yaml', '/w/b/workflow.yaml', '/w/ab/workflow.yaml', '/w/c/readme.md']);
    assert.deepStrictEqual(f, ['/w/a', '/w/ab', '/w/b']);
    const sel = documentSelector(['/w/a/workflow.yaml', '/w/b [x]/workflow.yaml']);
    assert.deepStrictEqual(sel.filter((s) => s.language === 'yaml').map((s) => s.pattern), ['**/workflow.yaml', '**/*.workflow.yaml']);
    assert.deepStrictEqual(sel.filter((s) => s.language === 'python').map((s) => s.pattern), ['/w/a/**/*.py', `/w/b ${escapeGlob('[x]')}/**/*.py`]);
    assert.deepStrictEqual(sel.filter((s) => s.language === 'json').map((s) => s.pattern), ['/w/a/**/fixtures/**/*.json', `/w/b ${escapeGlob('[x]')}/**/fixtures/**/*.json`]);
    assert.ok(sel.every((s) => s.scheme === 'file'));
  });

  it('folder key changes only when the set of workflow folders changes', () => {
    assert.strictEqual(folderKey(['/w/a/workflow.yaml']), folderKey(['/w/a/workflow.yaml', '/w/a/more/workflow.yaml']));
    assert.notStrictEqual(folderKey(['/w/a/workflow.yaml']), folderKey(['/w/a/workflow.yaml', '/w/b/workflow.yaml']));
  });
});
