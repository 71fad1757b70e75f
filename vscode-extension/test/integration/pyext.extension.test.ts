// Runs with a stand-in for the Python extension (test/fake-python-extension, id ms-python.python)
// and no stepsmith.interpreter setting: the server must start from the Python extension's active
// interpreter, follow it when it changes, and still let the setting win.
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

interface FakePython {
  _calls: (string | null)[];
  _setActive(p: string): void;
}

let api: StepsmithApi;
let fake: FakePython;

describe('stepsmith with the Python extension present', function () {
  before(async function () {
    const py = vscode.extensions.getExtension<FakePython>('ms-python.python');
    assert.ok(py, 'the stand-in Python extension is loaded');
    fake = await py.activate();
    const ext = vscode.extensions.getExtension<StepsmithApi>('stepsmith.stepsmith')!;
    api = await waitFor('activation', async () => (ext.isActive ? ext.exports : undefined));
    await api.ready;
  });

  it("starts the server from the Python extension's active interpreter", () => {
    assert.strictEqual(api.server.state, 'running', api.server.lastProblem?.message);
    assert.strictEqual(api.server.lastChoice?.origin, 'python-extension');
    assert.strictEqual(api.server.lastChoice?.command[0], process.env.STEPSMITH_FAKE_PYTHON);
    assert.ok(fake._calls.length > 0, 'the API was asked for the workspace folder');
    assert.strictEqual(fake._calls[0], vscode.workspace.workspaceFolders![0].uri.toString());
  });

  it('restarts on the interpreter the Python extension switches to', async () => {
    const marker = path.join(ws(), 'wrapper-started.txt');
    const wrapper = path.join(ws(), 'other-python.sh');
    fs.writeFileSync(wrapper, `#!/bin/sh\necho started >> "${marker}"\nexec "${process.env.STEPSMITH_FAKE_PYTHON}" "$@"\n`, { mode: 0o755 });
    fake._setActive(wrapper);
    await waitFor('a restart on the new interpreter', () =>
      api.server.lastChoice?.command[0] === wrapper && api.server.state === 'running' ? true : undefined);
    assert.ok(fs.existsSync(marker), 'the new interpreter was started');
    const roots = await api.reach.refresh();
    assert.strictEqual(roots.length, 2, 'and the server answers');
  });

  it('the stepsmith.interpreter setting wins over the Python extension', async () => {
    const cfg = vscode.workspace.getConfiguration('stepsmith');
    await cfg.update('interpreter', [process.env.STEPSMITH_FAKE_PYTHON!], vscode.ConfigurationTarget.Workspace);
    await waitFor('the setting to be used', () => (api.server.lastChoice?.origin === 'setting' && api.server.state === 'running' ? true : undefined));
    await cfg.update('interpreter', undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor('back to the Python extension', () => (api.server.lastChoice?.origin === 'python-extension' && api.server.state === 'running' ? true : undefined));
  });
});
