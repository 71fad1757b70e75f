import * as assert from 'assert';
import { coveringFixtures, statements } from '../../src/coverage';
import type { CoverageInfo } from '../../src/protocol';

// the server's answer for a step with two branches and a loop, one fixture for one branch
const INFO: CoverageInfo = {
  executed: [0, 3, 4, 5, 8, 9, 10, 11, 12], missing: [7],
  takenArcs: [[4, 5], [9, 10], [9, 12]], missingArcs: [[4, 7]],
  fixtures: { eur: { lines: [0, 3, 4, 5, 8, 9, 10, 11, 12], arcs: [[4, 5], [9, 10], [9, 12]] }, other: { lines: [], arcs: [] } },
  percent: 84.6, stale: false,
};

describe('coverage model', () => {
  it('statements with fixture hit counts and the branches of branch lines', () => {
    const s = statements(INFO);
    assert.deepStrictEqual(s.map((x) => [x.line, x.hits]), [[0, 1], [3, 1], [4, 1], [5, 1], [7, 0], [8, 1], [9, 1], [10, 1], [11, 1], [12, 1]]);
    assert.deepStrictEqual(s.find((x) => x.line === 4)!.branches, [{ hits: 1, label: '→ line 6' }, { hits: 0, label: '→ line 8' }]);
    assert.deepStrictEqual(s.find((x) => x.line === 9)!.branches, [{ hits: 1, label: '→ line 11' }, { hits: 1, label: '→ line 13' }]);
    assert.deepStrictEqual(s.find((x) => x.line === 7)!.branches, []);
  });

  it('per fixture: only what that fixture ran', () => {
    const s = statements(INFO, 'other');
    assert.ok(s.every((x) => x.hits === 0 && x.branches.every((b) => b.hits === 0)));
    assert.deepStrictEqual(coveringFixtures(INFO), ['eur']);
  });
});
