// Finding the Python that runs the language server. Pure logic (no `vscode` import) so mocha can
// test it; extension.ts feeds it the real setting, Python-extension API, PATH lookup and probe.
//
// Order (as microsoft/vscode-python-tools-extension-template does it):
//   1. the `stepsmith.interpreter` setting,
//   2. the Python extension's active interpreter for the workspace folder (only if that extension
//      is installed; never required),
//   3. `python3` on PATH.
// Then the chosen interpreter is probed: its version must be >= 3.11, and `import stepsmith.server`
// decides between the environment's stepsmith and the copy bundled in the .vsix (bundled/libs).

import * as fs from 'fs';
import * as path from 'path';

export const MIN_PYTHON: [number, number] = [3, 11];

export type InterpreterOrigin = 'setting' | 'python-extension' | 'path';

export interface InterpreterChoice {
  /** the command (first element) and any fixed arguments, e.g. ["py", "-3.11"] */
  command: string[];
  origin: InterpreterOrigin;
}

export interface InterpreterSources {
  /** value of stepsmith.interpreter (already with ${workspaceFolder} etc. substituted) */
  setting: string[];
  /** the Python extension's active interpreter, when the extension is there */
  pythonExtension?: () => Promise<string[] | undefined>;
  /** resolves a program name on PATH to an absolute path */
  which: (name: string) => Promise<string | undefined>;
}

/** Picks the interpreter command; undefined when there is none at all. */
export async function chooseInterpreter(src: InterpreterSources): Promise<InterpreterChoice | undefined> {
  const setting = src.setting.filter((s) => s.trim() !== '');
  if (setting.length > 0) {
    return { command: setting, origin: 'setting' };
  }
  if (src.pythonExtension) {
    try {
      const fromExt = await src.pythonExtension();
      if (fromExt && fromExt.length > 0 && fromExt[0]) {
        return { command: fromExt, origin: 'python-extension' };
      }
    } catch {
      // the Python extension is optional: any failure there falls through to PATH
    }
  }
  for (const name of ['python3', 'python']) {
    const found = await src.which(name);
    if (found) {
      return { command: [found], origin: 'path' };
    }
  }
  return undefined;
}

/** The one-line program run with the interpreter to learn what it is. Prints one JSON line. */
// First lines: `-c` puts '' (the current folder) first on sys.path, and an interpreter older than
// 3.11 ignores PYTHONSAFEPATH; drop it before the first import that is not built in.
export const PROBE_SCRIPT = [
  'import sys',
  'sys.path[:] = [p for p in sys.path if p and p != "."]',
  'import json',
  'info = {"version": list(sys.version_info[:3]), "executable": sys.executable, "stepsmith": None, "error": None}',
  'if sys.version_info >= (3, 11):',
  '    try:',
  '        import stepsmith.server, stepsmith.runner',
  '        info["stepsmith"] = getattr(stepsmith.runner, "__version__", "unknown")',
  '    except Exception as e:',
  '        info["error"] = type(e).__name__ + ": " + str(e)',
  'print("STEPSMITH_PROBE " + json.dumps(info))',
].join('\n');

export interface ProbeResult {
  version: [number, number, number];
  executable: string;
  /** stepsmith version when `import stepsmith.server` works in this interpreter, else null */
  stepsmith: string | null;
  error: string | null;
}

/** Parses the probe's stdout; throws with a readable message when it is not there. */
export function parseProbeOutput(stdout: string): ProbeResult {
  const line = stdout.split(/\r?\n/).find((l) => l.startsWith('STEPSMITH_PROBE '));
  if (!line) {
    throw new Error(`the interpreter did not answer the probe (output: ${JSON.stringify(stdout.slice(0, 200))})`);
  }
  const raw = JSON.parse(line.slice('STEPSMITH_PROBE '.length));
  const v = raw.version as number[];
  return {
    version: [v[0] ?? 0, v[1] ?? 0, v[2] ?? 0],
    executable: String(raw.executable ?? ''),
    stepsmith: raw.stepsmith ?? null,
    error: raw.error ?? null,
  };
}

export type ImportStrategy = 'auto' | 'fromEnvironment' | 'useBundled';

export interface LaunchPlan {
  ok: true;
  command: string;
  args: string[];
  /** extra environment for the server process (PYTHONSAFEPATH; PYTHONPATH when bundled) */
  env: Record<string, string>;
  usesBundled: boolean;
  describe: string;
}

export interface LaunchProblem {
  ok: false;
  kind: 'missing' | 'too-old' | 'not-installed' | 'broken';
  message: string;
  /** what the user can do about it, shown in the notification */
  fix: string;
}

export function versionAtLeast(v: number[], min: number[]): boolean {
  for (let i = 0; i < min.length; i++) {
    const a = v[i] ?? 0;
    if (a !== min[i]) {
      return a > min[i];
    }
  }
  return true;
}

export function formatVersion(v: number[]): string {
  return v.join('.');
}

/**
 * Decides how to launch `python -m stepsmith.server` given the probe of the chosen interpreter.
 * `bundledLibs` is the extension's bundled/libs folder, or undefined when the .vsix has none
 * (running from source without `npm run bundle-python`).
 */
export function planLaunch(
  choice: InterpreterChoice | undefined,
  probe: ProbeResult | Error | undefined,
  strategy: ImportStrategy,
  bundledLibs: string | undefined,
  inheritedPythonPath?: string,
): LaunchPlan | LaunchProblem {
  if (!choice) {
    return {
      ok: false,
      kind: 'missing',
      message: 'Stepsmith needs Python 3.11 or newer, and none was found (no `stepsmith.interpreter` setting, no Python extension interpreter, no `python3` on PATH).',
      fix: 'Install Python 3.11+ (Debian/Ubuntu: `apt-get install python3`), or set `stepsmith.interpreter` to its path.',
    };
  }
  const shown = choice.command.join(' ');
  if (probe === undefined || probe instanceof Error) {
    const why = probe instanceof Error ? probe.message : 'no answer';
    return {
      ok: false,
      kind: 'missing',
      message: `Stepsmith could not start the Python interpreter \`${shown}\` (from ${originText(choice.origin)}): ${why}`,
      fix: 'Check that the path exists and is Python 3.11+, or set `stepsmith.interpreter` to a working Python.',
    };
  }
  if (!versionAtLeast(probe.version, MIN_PYTHON)) {
    return {
      ok: false,
      kind: 'too-old',
      message: `Stepsmith needs Python ${formatVersion(MIN_PYTHON)} or newer; \`${shown}\` (from ${originText(choice.origin)}) is ${formatVersion(probe.version)}.`,
      fix: 'Install Python 3.11+ and point `stepsmith.interpreter` at it (or select it in the Python extension).',
    };
  }
  const [first, ...fixed] = choice.command;
  // a PATH hit may be a shell shim (pyenv costs ~86 ms a start): launch the real interpreter
  const cmd = choice.origin === 'path' && probe.executable ? probe.executable : first;
  // -P (3.11+, checked above): `-m` would put the current folder first on sys.path (issue 18)
  const args = [...fixed, '-P', '-m', 'stepsmith.server'];
  const envHas = probe.stepsmith !== null;
  const useEnv = strategy === 'fromEnvironment' || (strategy === 'auto' && envHas);
  if (useEnv) {
    if (!envHas) {
      return {
        ok: false,
        kind: 'not-installed',
        message: `\`import stepsmith.server\` fails in \`${shown}\`${probe.error ? ` (${probe.error})` : ''}, and \`stepsmith.importStrategy\` is \`fromEnvironment\`.`,
        fix: `Run \`${shown} -m pip install stepsmith\`, or set \`stepsmith.importStrategy\` to \`auto\` to use the copy bundled with the extension.`,
      };
    }
    return {
      ok: true,
      command: cmd,
      args,
      env: { ...SAFE_PATH },
      usesBundled: false,
      describe: `${shown} (Python ${formatVersion(probe.version)}, stepsmith ${probe.stepsmith} from its environment)`,
    };
  }
  if (!bundledLibs) {
    return {
      ok: false,
      kind: 'not-installed',
      message: `This build of the extension has no bundled stepsmith, and \`import stepsmith.server\` fails in \`${shown}\`${probe.error ? ` (${probe.error})` : ''}.`,
      fix: `Run \`${shown} -m pip install stepsmith\` (or \`pip install -e .\` in the stepsmith repository).`,
    };
  }
  const pythonPath = [bundledLibs, ...(inheritedPythonPath ? [inheritedPythonPath] : [])].join(path.delimiter);
  return {
    ok: true,
    command: cmd,
    args,
    env: { ...SAFE_PATH, PYTHONPATH: pythonPath },
    usesBundled: true,
    describe: `${shown} (Python ${formatVersion(probe.version)}, stepsmith bundled with the extension)`,
  };
}

/**
 * Every Python the extension starts imports nothing from the workspace (issue 18, item 1): a
 * cloned folder may ship `stepsmith/__init__.py`, `yaml.py` or `pygls/`, and `-m`/`-c` put the
 * current folder first on sys.path. So: PYTHONSAFEPATH=1 (and `-P` for the server), and a
 * current folder of our own (the extension's), never the workspace.
 */
const SAFE_PATH = { PYTHONSAFEPATH: '1' } as const;

export interface SpawnSpec {
  command: string;
  args: string[];
  /** never the workspace: the extension's own folder */
  cwd: string;
  env: Record<string, string | undefined>;
}

function requireFolder(startIn: string): string {
  if (!startIn || !path.isAbsolute(startIn)) {
    throw new Error(`Python must start in the extension's own folder, not ${JSON.stringify(startIn)}`);
  }
  return startIn;
}

/** How the interpreter probe is started (`env`: the process environment plus stepsmith.serverEnv). */
export function probeSpawn(choice: InterpreterChoice, startIn: string, env: Record<string, string | undefined>): SpawnSpec {
  const [command, ...fixed] = choice.command;
  return { command, args: [...fixed, '-c', PROBE_SCRIPT], cwd: requireFolder(startIn), env: { ...env, ...SAFE_PATH } };
}

/** How the language server is started from its plan (`env` as for the probe). */
export function serverSpawn(plan: LaunchPlan, startIn: string, env: Record<string, string | undefined>): SpawnSpec {
  return {
    command: plan.command,
    args: plan.args,
    cwd: requireFolder(startIn),
    env: { ...env, ...plan.env, ...SAFE_PATH, PYTHONUNBUFFERED: '1' },
  };
}

/**
 * PATH lookup (no shell): the first executable `name` in an absolute PATH folder. Empty,
 * `.` and other relative entries are skipped: they name the editor's current folder, which may
 * be a cloned repository (issue 18).
 */
export async function whichOnPath(name: string, pathEnv: string | undefined): Promise<string | undefined> {
  const dirs = (pathEnv ?? '').split(path.delimiter).filter((d) => d && path.isAbsolute(d));
  for (const d of dirs) {
    const p = path.join(d, name);
    try {
      await fs.promises.access(p, fs.constants.X_OK);
      const st = await fs.promises.stat(p);
      if (st.isFile()) {
        return p;
      }
    } catch {
      /* next */
    }
  }
  return undefined;
}

function originText(origin: InterpreterOrigin): string {
  switch (origin) {
    case 'setting':
      return 'the stepsmith.interpreter setting';
    case 'python-extension':
      return "the Python extension's selected interpreter";
    case 'path':
      return 'PATH';
  }
}

/** Substitutes ${workspaceFolder}, ${userHome}, ${env:X} and a leading ~ like the template does. */
export function substituteVariables(
  values: string[],
  vars: { workspaceFolder?: string; userHome: string; env: Record<string, string | undefined> },
): string[] {
  return values.map((v) => {
    let s = v.replace(/\$\{workspaceFolder\}/g, vars.workspaceFolder ?? '');
    s = s.replace(/\$\{userHome\}/g, vars.userHome);
    s = s.replace(/\$\{env:([^}]+)\}/g, (_m, name: string) => vars.env[name] ?? '');
    if (s === '~' || s.startsWith('~/')) {
      s = vars.userHome + s.slice(1);
    }
    return s;
  });
}
