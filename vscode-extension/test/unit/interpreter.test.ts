import * as assert from 'assert';
import * as path from 'path';
import { chooseInterpreter, parseProbeOutput, planLaunch, PROBE_SCRIPT, probeSpawn, ProbeResult, serverSpawn, substituteVariables, versionAtLeast } from '../../src/interpreter';

const probe = (version: [number, number, number], stepsmith: string | null = '0.1.0'): ProbeResult => ({
  version, executable: '/real/python3.11', stepsmith, error: stepsmith ? null : "ModuleNotFoundError: No module named 'stepsmith'",
});

describe('interpreter resolution', () => {
  const which = (found: Record<string, string>) => async (n: string) => found[n];

  it('prefers the stepsmith.interpreter setting', async () => {
    const c = await chooseInterpreter({ setting: ['/opt/py/bin/python', '-X', 'utf8'], pythonExtension: async () => ['/ext/python'], which: which({ python3: '/usr/bin/python3' }) });
    assert.deepStrictEqual(c, { command: ['/opt/py/bin/python', '-X', 'utf8'], origin: 'setting' });
  });

  it('ignores blank setting entries and falls back to the Python extension', async () => {
    const c = await chooseInterpreter({ setting: ['  '], pythonExtension: async () => ['/ext/venv/bin/python'], which: which({ python3: '/usr/bin/python3' }) });
    assert.deepStrictEqual(c, { command: ['/ext/venv/bin/python'], origin: 'python-extension' });
  });

  it('does not require the Python extension: absent, empty or throwing all fall back to PATH', async () => {
    for (const pythonExtension of [undefined, async () => undefined, async () => [] as string[], async () => { throw new Error('api broke'); }]) {
      const c = await chooseInterpreter({ setting: [], pythonExtension, which: which({ python3: '/usr/bin/python3' }) });
      assert.deepStrictEqual(c, { command: ['/usr/bin/python3'], origin: 'path' });
    }
  });

  it('tries python3 before python, and gives undefined when there is none', async () => {
    assert.deepStrictEqual(await chooseInterpreter({ setting: [], which: which({ python: '/usr/bin/python' }) }), { command: ['/usr/bin/python'], origin: 'path' });
    assert.strictEqual(await chooseInterpreter({ setting: [], which: which({}) }), undefined);
  });

  it('parses the probe line among other output', () => {
    const p = parseProbeOutput('noise\nSTEPSMITH_PROBE {"version": [3, 12, 1], "executable": "/x/python", "stepsmith": null, "error": "boom"}\n');
    assert.deepStrictEqual(p, { version: [3, 12, 1], executable: '/x/python', stepsmith: null, error: 'boom' });
    assert.throws(() => parseProbeOutput('Python 2.7'), /did not answer/);
  });

  it('compares versions', () => {
    assert.ok(versionAtLeast([3, 11, 0], [3, 11]));
    assert.ok(versionAtLeast([3, 12, 0], [3, 11]));
    assert.ok(versionAtLeast([4, 0, 0], [3, 11]));
    assert.ok(!versionAtLeast([3, 10, 12], [3, 11]));
    assert.ok(!versionAtLeast([2, 7, 18], [3, 11]));
  });
});

describe('launch plan', () => {
  const setting = { command: ['/opt/python3.11'], origin: 'setting' as const };
  const bundled = '/ext/bundled/libs';

  it('uses the environment when stepsmith imports there (auto)', () => {
    const p = planLaunch(setting, probe([3, 11, 7]), 'auto', bundled);
    assert.ok(p.ok);
    assert.strictEqual(p.command, '/opt/python3.11');
    assert.deepStrictEqual(p.args, ['-P', '-m', 'stepsmith.server']);
    assert.deepStrictEqual(p.env, { PYTHONSAFEPATH: '1' });
    assert.strictEqual(p.usesBundled, false);
  });

  it('falls back to bundled/libs on PYTHONPATH when stepsmith is not importable (auto)', () => {
    const p = planLaunch(setting, probe([3, 12, 0], null), 'auto', bundled, '/inherited');
    assert.ok(p.ok);
    assert.strictEqual(p.usesBundled, true);
    assert.strictEqual(p.env.PYTHONPATH, [bundled, '/inherited'].join(path.delimiter));
  });

  it('useBundled wins even when the environment has stepsmith', () => {
    const p = planLaunch(setting, probe([3, 11, 7]), 'useBundled', bundled);
    assert.ok(p.ok && p.usesBundled);
  });

  it('fromEnvironment without stepsmith is a problem with a pip fix', () => {
    const p = planLaunch(setting, probe([3, 11, 7], null), 'fromEnvironment', bundled);
    assert.ok(!p.ok);
    assert.strictEqual(p.kind, 'not-installed');
    assert.match(p.fix, /pip install stepsmith/);
  });

  it('no bundled copy and nothing importable is a problem', () => {
    const p = planLaunch(setting, probe([3, 11, 7], null), 'auto', undefined);
    assert.ok(!p.ok && p.kind === 'not-installed');
  });

  it('Python older than 3.11 is refused with the fix', () => {
    const p = planLaunch(setting, probe([3, 10, 4]), 'auto', bundled);
    assert.ok(!p.ok);
    assert.strictEqual(p.kind, 'too-old');
    assert.match(p.message, /3\.10\.4/);
    assert.match(p.fix, /3\.11/);
  });

  it('no interpreter at all, or one that does not start, is "missing"', () => {
    const a = planLaunch(undefined, undefined, 'auto', bundled);
    assert.ok(!a.ok && a.kind === 'missing');
    assert.match(a.fix, /apt-get install python3|stepsmith\.interpreter/);
    const b = planLaunch(setting, new Error('spawn /opt/python3.11 ENOENT'), 'auto', bundled);
    assert.ok(!b.ok && b.kind === 'missing');
    assert.match(b.message, /ENOENT/);
  });

  it('launches the real executable instead of a PATH shim, keeps fixed args from the setting', () => {
    const p = planLaunch({ command: ['/root/.pyenv/shims/python3'], origin: 'path' }, probe([3, 11, 7]), 'auto', bundled);
    assert.ok(p.ok && p.command === '/real/python3.11');
    const q = planLaunch({ command: ['py', '-3.11'], origin: 'setting' }, probe([3, 11, 7]), 'auto', bundled);
    assert.ok(q.ok && q.command === 'py');
    assert.deepStrictEqual(q.ok && q.args, ['-3.11', '-P', '-m', 'stepsmith.server']);
  });

  it('substitutes ${workspaceFolder}, ${userHome}, ${env:X} and ~', () => {
    const out = substituteVariables(['${workspaceFolder}/.venv/bin/python', '~/py', '${env:PYHOME}/bin', '${userHome}/x'], { workspaceFolder: '/ws', userHome: '/home/u', env: { PYHOME: '/opt/p' } });
    assert.deepStrictEqual(out, ['/ws/.venv/bin/python', '/home/u/py', '/opt/p/bin', '/home/u/x']);
  });
});

// issue 18, item 1: a cloned folder shipping stepsmith/__init__.py, yaml.py, pygls/ ... must never
// run. `-m`/`-c` put the current folder first on sys.path, so no spawn may start in the workspace
// or leave the safe-path switches out.
describe('spawning Python imports nothing from the workspace', () => {
  const setting = { command: ['/opt/python3.11'], origin: 'setting' as const };
  const ours = '/home/u/.vscode/extensions/stepsmith.stepsmith-0.1.0';
  const hostileEnv = { PATH: '/usr/bin', PYTHONSAFEPATH: '', PYTHONPATH: '' };

  it('the server: -P before -m, PYTHONSAFEPATH=1 whatever the environment says, started in our folder', () => {
    for (const strategy of ['auto', 'useBundled'] as const) {
      const plan = planLaunch(setting, probe([3, 11, 7]), strategy, '/ext/bundled/libs');
      assert.ok(plan.ok);
      const s = serverSpawn(plan, ours, { ...hostileEnv, PYTHONSAFEPATH: '0' });
      assert.strictEqual(s.command, '/opt/python3.11');
      assert.deepStrictEqual(s.args.slice(-3), ['-P', '-m', 'stepsmith.server']);
      assert.strictEqual(s.cwd, ours);
      assert.strictEqual(s.env.PYTHONSAFEPATH, '1');
      assert.strictEqual(s.env.PYTHONUNBUFFERED, '1');
      assert.strictEqual(s.env.PATH, '/usr/bin');
      if (strategy === 'useBundled') {
        assert.strictEqual(s.env.PYTHONPATH, '/ext/bundled/libs', 'the bundled libs still come first');
      }
    }
  });

  it('the probe: PYTHONSAFEPATH=1, started in our folder, and its script drops "" before importing', () => {
    const s = probeSpawn({ command: ['py', '-3.11'], origin: 'setting' }, ours, hostileEnv);
    assert.strictEqual(s.command, 'py');
    assert.deepStrictEqual(s.args, ['-3.11', '-c', PROBE_SCRIPT]);
    assert.strictEqual(s.cwd, ours);
    assert.strictEqual(s.env.PYTHONSAFEPATH, '1');
    // an interpreter older than 3.11 ignores PYTHONSAFEPATH (and refuses -P): the script itself
    // removes the '' entry before its first import that is not built in
    const lines = PROBE_SCRIPT.split('\n');
    assert.strictEqual(lines[0], 'import sys');
    assert.match(lines[1], /^sys\.path\[:\] = \[p for p in sys\.path if p and p != "\."\]$/);
    assert.ok(lines.slice(2).some((l) => /^import json/.test(l)));
  });

  it('no spawn ever starts in the workspace folder', () => {
    const plan = planLaunch(setting, probe([3, 11, 7]), 'auto', undefined);
    assert.ok(plan.ok);
    assert.throws(() => serverSpawn(plan, '', {}), /folder/);
    assert.throws(() => probeSpawn(setting, '', {}), /folder/);
  });
});

describe('PATH lookup never finds a program through a relative PATH entry', () => {
  it('skips "", "." and relative folders: they resolve against the current folder', async () => {
    const fs = await import('fs');
    const os = await import('os');
    const { whichOnPath } = await import('../../src/interpreter');
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'stepsmith-which-'));
    const cwd = process.cwd();
    try {
      fs.mkdirSync(path.join(base, 'rel'));
      fs.mkdirSync(path.join(base, 'abs'));
      for (const f of [path.join(base, 'python3'), path.join(base, 'rel', 'python3'), path.join(base, 'abs', 'python3')]) {
        fs.writeFileSync(f, '#!/bin/sh\n');
        fs.chmodSync(f, 0o755);
      }
      process.chdir(base); // as if the editor had been started in a cloned folder
      const found = await whichOnPath('python3', ['', '.', 'rel', path.join(base, 'abs')].join(path.delimiter));
      assert.strictEqual(found, path.join(base, 'abs', 'python3'));
      assert.strictEqual(await whichOnPath('python3', ['', '.', 'rel'].join(path.delimiter)), undefined);
    } finally {
      process.chdir(cwd);
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('the interpreter probe, run for real in a hostile folder', () => {
  it('imports nothing from the folder even when started inside it without PYTHONSAFEPATH', async function () {
    this.timeout(20000);
    const cp = await import('child_process');
    const fs = await import('fs');
    const os = await import('os');
    const python = process.env.STEPSMITH_TEST_PYTHON || 'python3';
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'stepsmith-probe-'));
    try {
      const ws = path.join(base, 'cloned');
      const markers = path.join(base, 'markers');
      fs.mkdirSync(path.join(ws, 'stepsmith'), { recursive: true });
      fs.mkdirSync(markers);
      const body = (name: string) => `open(${JSON.stringify(path.join(markers, name))}, 'w').close()\n`;
      fs.writeFileSync(path.join(ws, 'stepsmith', '__init__.py'), body('stepsmith'));
      fs.writeFileSync(path.join(ws, 'json.py'), body('json'));
      const spec = probeSpawn({ command: [python], origin: 'path' }, base, process.env);
      // worst cases: the probe's own spawn (our folder, PYTHONSAFEPATH=1), and one started IN the
      // folder with the switch removed (an interpreter older than 3.11 ignores it)
      const runs: [string, Record<string, string | undefined>][] = [
        [spec.cwd, spec.env],
        [ws, { ...spec.env, PYTHONSAFEPATH: undefined }],
      ];
      for (const [cwd, env] of runs) {
        const out = cp.execFileSync(spec.command, spec.args, { cwd, env: env as NodeJS.ProcessEnv, encoding: 'utf8' });
        const p = parseProbeOutput(out);
        assert.ok(p.version[0] === 3, out);
        assert.deepStrictEqual(fs.readdirSync(markers), [], `imported from the folder (cwd ${cwd})`);
      }
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});
