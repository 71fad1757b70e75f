// The status bar's Python of the active workflow (src/pythonModel.ts): what stepsmith/python says.
import * as assert from 'assert';
import { PythonResponse } from '../../src/protocol';
import { pythonLabel } from '../../src/pythonModel';

const found: PythonResponse = {
  manifestUri: 'file:///w/wf/workflow.yaml', pin: '3.13', version: '3.13.5', path: '/opt/py313/bin/python3.13',
  build: '3.13.5 (main, Dec 5 2026) [GCC 12.2.0]', running: false, problem: null,
  summary: 'python "3.13": Python 3.13.5 at /opt/py313/bin/python3.13',
};

describe('pythonLabel', () => {
  it('hides when the editor is not part of a workflow', () => {
    assert.strictEqual(pythonLabel(null).visible, false);
    assert.strictEqual(pythonLabel(undefined).visible, false);
  });

  it('names the pinned interpreter and where it is', () => {
    const l = pythonLabel(found);
    assert.deepStrictEqual([l.visible, l.missing], [true, false]);
    assert.strictEqual(l.text, '$(symbol-namespace) Python 3.13.5');
    assert.ok(l.tooltip.includes('/opt/py313/bin/python3.13') && l.tooltip.includes('python: "3.13"'), l.tooltip);
    assert.ok(!l.tooltip.includes('Stepsmith runs on'));
    assert.ok(pythonLabel({ ...found, running: true }).tooltip.includes('the interpreter Stepsmith runs on'));
  });

  it('warns, with the server\'s words, when the pinned Python is not installed', () => {
    const problem = 'Python 3.13 (the workflow\'s `python:`) is not installed here. Looked in: PATH. Install it with `uv python install 3.13`';
    const l = pythonLabel({ ...found, version: null, path: null, build: null, problem });
    assert.deepStrictEqual([l.visible, l.missing, l.text], [true, true, '$(warning) Python 3.13: not installed']);
    assert.strictEqual(l.tooltip, problem);
  });

  it('never lets workflow text become an icon or a label', () => {
    const l = pythonLabel({ ...found, pin: '$(bug) 3.13' });
    assert.strictEqual(l.text, '$(warning) Python: not pinned');
    const m = pythonLabel({ ...found, version: null, path: null, problem: 'see $(github) here' });
    assert.ok(!m.tooltip.includes('$('), m.tooltip);
  });
});
