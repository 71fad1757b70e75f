import * as assert from 'assert';
import { lensTitle, summaryLine, survivorItems, survivors } from '../../src/mutantsModel';
import type { MutantRecord, MutantsResponse } from '../../src/protocol';

function rec(over: Partial<MutantRecord>): MutantRecord {
  return {
    path: 'wf/steps/approve.py', uri: 'file:///wf/steps/approve.py', line: 8, column: 22, end_line: 8, end_column: 24,
    operator: 'comparison', original: '<=', replacement: '<', status: 'survived', killed_by: null, fixtures_run: 2,
    duration_ms: 40, steps: ['approve'], hint: 'no fixture has amount equal to limit: record one at the boundary',
    note: '', cached: 0, range: { start: { line: 7, character: 22 }, end: { line: 7, character: 24 } }, ...over,
  };
}

// the server's answer for the boundary example (tests/server/test_mutants_lsp.py)
const RESP: MutantsResponse = {
  uri: 'file:///wf/steps/approve.py',
  mutants: [rec({}), rec({ operator: 'return', original: 'return {...}', replacement: 'return None', status: 'killed', killed_by: 'wf::approve::small', hint: '' }),
    rec({ operator: 'sorted', original: '', replacement: 'reverse=True', status: 'survived', line: 9, column: 30, hint: 'no fixture notices the order reversed' })],
  summary: { mutants: 3, killed: 1, survived: 2, timeout: 0, error: 0, seconds: 1.2, score: 33.3, refused: 0, opted_out: 0,
    fixture_runs: 4, baseline_runs: 3, blocked: 0, cancelled: false },
};

describe('mutants model', () => {
  it('lists the survivors only, with where, what changed and what to record', () => {
    assert.deepStrictEqual(survivors(RESP).map((m) => m.operator), ['comparison', 'sorted']);
    const items = survivorItems(RESP);
    assert.deepStrictEqual(items.map((i) => i.label), ['8:23  <= → <', '9:31  + reverse=True']);
    assert.strictEqual(items[0].description, 'comparison · approve');
    assert.strictEqual(items[0].detail, 'no fixture has amount equal to limit: record one at the boundary');
  });

  it('summarises, also when nothing survives, nothing ran or the run was cancelled', () => {
    assert.strictEqual(summaryLine(RESP), 'Stepsmith: 2 of 3 mutants survive (33.3% noticed).');
    const all = { ...RESP, mutants: [], summary: { ...RESP.summary!, survived: 0, killed: 2, timeout: 1, score: 100 } };
    assert.strictEqual(summaryLine(all), 'Stepsmith: every one of 3 mutants is noticed by a fixture, 1 stopped by a limit (counted as noticed).');
    assert.strictEqual(summaryLine({ uri: 'x', mutants: [], cancelled: true }), 'Stepsmith: the mutants run was cancelled.');
    assert.match(summaryLine({ uri: 'x', mutants: [], summary: { ...RESP.summary!, mutants: 0 } }), /no mutant to judge/);
    assert.deepStrictEqual(survivorItems(undefined), []);
  });

  it('titles the lens as the server does', () => {
    assert.strictEqual(lensTitle(1), '1 mutant survives');
    assert.strictEqual(lensTitle(2), '2 mutants survive');
    assert.strictEqual(lensTitle(0), '✓ every mutant noticed');
  });
});
