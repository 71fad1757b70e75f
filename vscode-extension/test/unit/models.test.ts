import * as assert from 'assert';
import { failureRange, outcomeOf, reachMarkdown, reachTree, runCallsFor, splitDiff, stepAt, stepSummary, testTree } from '../../src/models';
import { FixtureResult, FixturesResponse, REACH_SENTENCE, ReachResponse, ReachStep, ReachWorkflow } from '../../src/protocol';

const range = (l: number) => ({ start: { line: l, character: 2 }, end: { line: l, character: 10 } });
const step = (id: string, over: Partial<ReachStep> = {}): ReachStep => ({
  step_id: id, function: id, code: `steps/${id}.py:${id}`, network: 'none', connections: [], sources: [],
  effects: [], explanation: `does ${id}`, reaches_nothing: true, source_origins: {}, effect_targets: {},
  location: { uri: 'file:///w/wf/workflow.yaml', range: range(10) }, codeLocation: null, ...over,
});
const workflow = (uri: string, name: string, over: Partial<ReachWorkflow> = {}): ReachWorkflow => ({
  manifest: uri.replace('file://', ''), manifestUri: uri, workflow: name, version: 1,
  python: { pin: null, interpreter: null, problem: null }, problems: 0, error: null, steps: [], ...over,
});

const reach: ReachResponse = {
  sentence: REACH_SENTENCE,
  workflows: [
    workflow('file:///w/wf/workflow.yaml', 'invoice-matching', {
      steps: [
        step('normalise', { sources: ['invoices'], reaches_nothing: false, source_origins: { invoices: 'connection xero' }, location: { uri: 'file:///w/wf/workflow.yaml', range: range(16) }, codeLocation: { uri: 'file:///w/wf/steps/normalise.py', range: range(4) } }),
        step('fx_rates', { network: 'public_egress', connections: ['ecb'], reaches_nothing: false, location: { uri: 'file:///w/wf/workflow.yaml', range: range(21) } }),
        step('summary', { location: { uri: 'file:///w/wf/workflow.yaml', range: range(40) }, codeLocation: { uri: 'file:///w/wf/steps/summary.py', range: range(12) } }),
      ],
    }),
    workflow('file:///w/broken/workflow.yaml', 'broken', { error: 'SM003 at 2:1: unknown key' }),
  ],
};


/** A result as the server sends it (server/protocol.py `FixtureResult`), from the fields a case sets. */
function result(r: Partial<FixtureResult> & Pick<FixtureResult, 'status'>): FixtureResult {
  return { fixture: 'a', uri: 'u', message: '', diff: '', outcome: r.status, messages: [], differences: [], stdout: '', target: null, ...r };
}

describe('reach tree model', () => {
  it('lists every step of every workflow, including those that reach nothing, in manifest order', () => {
    const t = reachTree(reach);
    assert.deepStrictEqual(t.map((w) => w.label), ['broken', 'invoice-matching']);
    const wf = t[1];
    assert.deepStrictEqual(wf.children.map((s) => s.label), ['normalise', 'fx_rates', 'summary']);
    const summary = wf.children[2];
    assert.strictEqual(summary.description, 'reaches nothing');
    assert.deepStrictEqual(summary.children.map((c) => `${c.label}=${c.description}`), ['network=none', 'connections=none', 'sources=none', 'effects=none']);
    const sources = wf.children[0].children.find((c) => c.label === 'sources');
    assert.strictEqual(sources?.description, 'invoices (connection xero)', 'a source says where it comes from');
    const fx = wf.children[1];
    assert.strictEqual(fx.description, 'public egress · connections: ecb');
    assert.strictEqual(fx.icon, 'globe');
    assert.match(String(fx.tooltip), /not a review of what its code does/);
  });

  it('says what each effect does where: a channel effect as such', () => {
    const s = step('post', {
      reaches_nothing: false, effects: ['post_summary', 'draft_bill'],
      effect_targets: { post_summary: 'send to channel finance-requests', draft_bill: 'create via xero' },
    });
    const resp: ReachResponse = { sentence: REACH_SENTENCE, workflows: [workflow('file:///w/wf/workflow.yaml', 'w', { steps: [s] })] };
    const leaf = reachTree(resp)[0].children[0].children.find((c) => c.label === 'effects');
    assert.strictEqual(leaf?.description, 'post_summary (send to channel finance-requests), draft_bill (create via xero)');
    assert.match(reachMarkdown(resp), /post_summary \(send to channel finance-requests\)/);
    // a server without targets: the names alone
    assert.strictEqual(reachTree({ ...resp, workflows: [{ ...resp.workflows[0], steps: [{ ...s, effect_targets: {} }] }] })[0]
      .children[0].children.find((c) => c.label === 'effects')?.description, 'post_summary, draft_bill');
  });

  it('marks the steps whose reach widened since HEAD, with one node per change', () => {
    const widened: ReachResponse = JSON.parse(JSON.stringify(reach));
    const wf = widened.workflows[0];
    const change = { kind: 'network', step: 'summary', before: 'none', after: 'public_egress', widens: true,
      description: 'network: none → public egress' };
    wf.sinceHead = { status: 'changed', widens: true, changes: [change] };
    wf.steps[2].changesSinceHead = [change];
    wf.steps[0].changesSinceHead = [{ ...change, kind: 'explanation', widens: false, description: 'explanation changed' }];
    const t = reachTree(widened)[1];
    assert.match(String(t.description), /widened since HEAD$/);
    const [normalise, fx, summary] = t.children;
    assert.strictEqual(summary.icon, 'warning');
    assert.match(String(summary.description), /^widened since HEAD · /);
    assert.deepStrictEqual(summary.children.filter((c) => c.kind === 'change').map((c) => `${c.label}: ${c.description}`),
      ['widened: network: none → public egress']);
    assert.notStrictEqual(normalise.icon, 'warning');  // a wording change is shown, not flagged
    assert.deepStrictEqual(normalise.children.filter((c) => c.kind === 'change').map((c) => c.label), ['changed']);
    assert.strictEqual(fx.children.filter((c) => c.kind === 'change').length, 0);
    assert.doesNotMatch(String(reachTree(reach)[1].description), /widened/);  // without git: no marks
  });

  it('shows a manifest that does not hold as an error node', () => {
    const broken = reachTree(reach)[0];
    assert.strictEqual(broken.description, 'manifest has errors');
    assert.deepStrictEqual(broken.children.map((c) => c.kind), ['error']);
  });

  it('node ids are unique and stable', () => {
    const ids: string[] = [];
    const walk = (n: { id: string; children: any[] }) => { ids.push(n.id); n.children.forEach(walk); };
    reachTree(reach).forEach(walk);
    assert.strictEqual(new Set(ids).size, ids.length);
    assert.deepStrictEqual(reachTree(reach).map((n) => n.id), reachTree(JSON.parse(JSON.stringify(reach))).map((n) => n.id));
  });

  it('empty or missing answers give an empty tree', () => {
    assert.deepStrictEqual(reachTree(undefined), []);
    assert.deepStrictEqual(reachTree({ sentence: REACH_SENTENCE, workflows: [] }), []);
  });

  it('summaries and the markdown table carry the sentence', () => {
    assert.strictEqual(stepSummary(step('x', { reaches_nothing: false, effects: ['draft_bill'], connections: ['xero'] })), 'connections: xero · effects: draft_bill');
    const md = reachMarkdown(reach);
    assert.ok(md.includes(REACH_SENTENCE));
    assert.match(md, /\| fx_rates \| public egress \| ecb \| none \| none \|/);
  });

  it('finds the step under the cursor in the manifest and in step files', () => {
    assert.strictEqual(stepAt(reach, 'file:///w/wf/workflow.yaml', 23)?.step.step_id, 'fx_rates');
    assert.strictEqual(stepAt(reach, 'file:///w/wf/steps/summary.py', 20)?.step.step_id, 'summary');
    assert.strictEqual(stepAt(reach, 'file:///w/wf/steps/summary.py', 3), undefined);
    assert.strictEqual(stepAt(reach, 'file:///elsewhere.py', 3), undefined);
  });
});

const fixtures: FixturesResponse = {
  workflows: [{
    manifestUri: 'file:///w/wf/workflow.yaml', workflow: 'invoice-matching',
    steps: [
      { id: 'match', uri: 'file:///w/wf/steps/match.py', range: range(12), fixtures: [
        { name: 'tight', uri: 'file:///w/wf/fixtures/match/tight.json' },
        { name: 'acme', uri: 'file:///w/wf/fixtures/match/acme.json', lastResult: 'passed' },
      ] },
      { id: 'summary', uri: 'file:///w/wf/steps/summary.py', range: null, fixtures: [] },
    ],
  }],
};

describe('test tree model', () => {
  it('builds workflow -> step -> fixture, fixtures sorted by name', () => {
    const t = testTree(fixtures);
    assert.strictEqual(t.length, 1);
    assert.deepStrictEqual(t[0].children.map((s) => s.id), ['file:///w/wf/workflow.yaml#match', 'file:///w/wf/workflow.yaml#summary']);
    assert.deepStrictEqual(t[0].children[0].children.map((f) => f.label), ['acme', 'tight']);
    assert.strictEqual(t[0].children[0].children[0].id, 'file:///w/wf/fixtures/match/acme.json');
  });

  it('maps a selection onto server commands without running a fixture twice', () => {
    const t = testTree(fixtures);
    const wf = t[0];
    const match = wf.children[0];
    const calls = runCallsFor([wf, match, match.children[1]]);
    assert.deepStrictEqual(calls.map((c) => [c.command, c.args]), [['stepsmith.runStepFixtures', ['file:///w/wf/workflow.yaml', 'match']]]);
    assert.deepStrictEqual(calls[0].covers.map((c) => c.label), ['acme', 'tight']);
    const single = runCallsFor([match.children[1]]);
    assert.deepStrictEqual(single.map((c) => [c.command, c.args]), [['stepsmith.runFixture', ['file:///w/wf/fixtures/match/tight.json']]]);
  });

  it('turns results into outcomes, with the diff split for the diff view', () => {
    assert.deepStrictEqual(outcomeOf(result({ status: 'passed', message: '', diff: '' })), { kind: 'passed' });
    const diff = '--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n {\n-  "total": "10.00"\n+  "total": "11.00"\n }\n';
    const o = outcomeOf(result({ status: 'failed', message: 'output differs', diff }));
    assert.strictEqual(o.kind, 'failed');
    assert.ok(o.kind === 'failed' && o.expected === '{\n  "total": "10.00"\n}' && o.actual === '{\n  "total": "11.00"\n}');
    assert.deepStrictEqual(outcomeOf(result({ status: 'error', message: 'bwrap not found', diff: '' })), { kind: 'errored', message: 'bwrap not found' });
    assert.strictEqual(outcomeOf(undefined).kind, 'errored');
    assert.strictEqual(splitDiff(''), undefined);
    const fields = outcomeOf(result({ status: 'failed', message: '2 difference(s)',
      diff: 'rendered text the client never parses', differences: [
        { path: 'output.as_of', kind: 'changed', expected: '2026-12-02', actual: '2026-12-01', message: 'm' },
        { path: 'effects[0].key', kind: 'changed', expected: 'INV-1', actual: 'INV-2', message: 'm' }] }));
    assert.ok(fields.kind === 'failed');
    assert.strictEqual(fields.kind === 'failed' && fields.expected, 'output.as_of: "2026-12-02"\neffects[0].key: "INV-1"');
    assert.strictEqual(fields.kind === 'failed' && fields.actual, 'output.as_of: "2026-12-01"\neffects[0].key: "INV-2"');
  });

  it('shows a failure where the server says, never by searching the fixture\'s text (issue 21)', () => {
    // the server located the top-level "expected" key (runner/fixtures/jsonpos.py), even after
    // an input named "expected" on the same line; the client takes the range as it is
    const target = { start: { line: 0, character: 57 }, end: { line: 0, character: 67 } };
    const r = result({ fixture: 'f', uri: 'file:///f.json', status: 'failed', message: 'm', diff: '', target });
    assert.deepStrictEqual(failureRange(r), target);
    assert.deepStrictEqual(failureRange({ ...r, target: null }), { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
    assert.deepStrictEqual(failureRange(undefined).start, { line: 0, character: 0 });
  });
});

import { AGENT_TOOLS, toolsFor } from '../../src/agentTools';

describe('language-model tools', () => {
  it('untrusted workspaces get the read-only tools only; every tool is declared in package.json', () => {
    assert.deepStrictEqual(toolsFor(false).map((t) => t.tool), ['check', 'reach', 'explain_rule']);
    assert.deepStrictEqual(toolsFor(true).map((t) => t.tool), AGENT_TOOLS.map((t) => t.tool));
    const declared = (require('../../../package.json').contributes.languageModelTools as { name: string; when?: string }[]);
    assert.deepStrictEqual(declared.map((t) => t.name).sort(), AGENT_TOOLS.map((t) => t.name).sort());
    // the editor lists a contributed tool only when its `when` holds: running ones need trust
    for (const t of declared) {
      const spec = AGENT_TOOLS.find((x) => x.name === t.name)!;
      assert.strictEqual(t.when, spec.readOnly ? undefined : 'isWorkspaceTrusted', t.name);
    }
    for (const t of AGENT_TOOLS.filter((x) => !x.readOnly)) {
      assert.ok(t.confirm, `${t.name} runs code: it asks for confirmation`);
    }
  });
});
