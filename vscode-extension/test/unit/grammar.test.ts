import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { GRAMMAR, MANIFEST_GLOBS, caseNameProblem, documentSelector, isCaseName, isManifestName, isManifestPath, isSlug } from '../../src/manifests';

// The same cases as tests/model/test_grammar.py, so the two sides decide alike.
describe('grammar (generated from runner/model/grammar.py)', () => {
  it('is the checked-in generated file', () => {
    const file = path.resolve(__dirname, '..', '..', '..', 'src', 'generated', 'grammar.json');
    assert.deepStrictEqual(GRAMMAR, JSON.parse(fs.readFileSync(file, 'utf8')));
    assert.deepStrictEqual([...MANIFEST_GLOBS], ['**/workflow.yaml', '**/*.workflow.yaml']);
  });

  it('decides "is this a manifest?" as the server does', () => {
    for (const yes of ['workflow.yaml', 'a.workflow.yaml', 'invoice-matching.workflow.yaml']) {
      assert.ok(isManifestName(yes), yes);
    }
    for (const no of ['.workflow.yaml', 'workflow.yml', 'Workflow.yaml', 'workflow.yaml.bak', 'aworkflow.yaml', '']) {
      assert.ok(!isManifestName(no), no);
    }
    assert.ok(isManifestPath('/w/x/workflow.yaml'));
    assert.ok(isManifestPath('/w/x/a.workflow.yaml'));
    assert.ok(!isManifestPath('/w/x/.workflow.yaml'));
    assert.ok(!isManifestPath('/w/workflow.yaml/steps/match.py'));
    // a bare `.workflow.yaml` is no manifest, so its folder is no workflow folder
    const filters = documentSelector(['/w/.workflow.yaml', '/v/workflow.yaml']);
    assert.deepStrictEqual(filters.filter((f) => f.language === 'python').map((f) => f.pattern), ['/v/**/*.py']);
  });

  it('validates slugs and case names with the Python patterns', () => {
    for (const yes of ['match', 'a', 'draft-bill', 'step_2']) {
      assert.ok(isSlug(yes), yes);
    }
    for (const no of ['Match', '2step', '-a', 'a b', 'a.b', '', 'é']) {
      assert.ok(!isSlug(no), no);
    }
    for (const yes of ['case-2026-12-03', '0', 'a.b', 'x_y']) {
      assert.ok(isCaseName(yes), yes);
    }
    for (const no of ['Case', '.hidden', '..', 'a/b', 'a\\b', '', 'x'.repeat(101), ' a']) {
      assert.ok(!isCaseName(no), no);
    }
    assert.strictEqual(caseNameProblem('ok-1'), undefined);
    assert.match(caseNameProblem('Bad') ?? '', /lowercase letters/);
  });
});
