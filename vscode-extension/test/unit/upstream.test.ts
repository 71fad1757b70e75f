// Canaries for the private vscode-languageclient API src/server.ts relies on: when the pull
// model's diagnostics of a manifest must be filtered again (the YAML extension's own problems
// changed), server.ts reaches the feature's providers (`getAllProviders`, protected) and their
// requestor's collection (`diagnosticRequestor.diagnostics`, private). An upgrade that renames
// either fails here, not silently in front of users.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';

const lib = path.dirname(require.resolve('vscode-languageclient/package.json'));
const source = (file: string) => fs.readFileSync(path.join(lib, 'lib', 'common', file), 'utf8');

describe('vscode-languageclient private API used by server.ts', () => {
  it('is the major version the workaround was written for', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(lib, 'package.json'), 'utf8'));
    assert.match(version, /^9\./);
  });

  it('features still have getAllProviders()', () => {
    assert.match(source('features.js'), /class TextDocumentLanguageFeature[\s\S]*?\n {4}getAllProviders\(\) \{/);
  });

  it("the diagnostic provider still keeps its collection on diagnosticRequestor.diagnostics", () => {
    const diag = source('diagnostic.js');
    assert.match(diag, /this\.diagnosticRequestor = new DiagnosticRequestor\(/);
    assert.match(diag, /class DiagnosticRequestor \{[\s\S]*?this\.diagnostics = vscode_1\.languages\.createDiagnosticCollection\(/);
  });
});
