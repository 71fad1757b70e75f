// Entry point loaded by VS Code's extension host (extensionTestsPath): runs the mocha suites in the
// real extension host. The report goes to the console and, when STEPSMITH_TEST_OUT is set in
// code-server's environment, to that file (the shell runner prints it and reads the counts).
import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const out = process.env.STEPSMITH_TEST_OUT;
  const lines: string[] = [];
  const write = (s: string) => {
    lines.push(s);
    console.log(s);
    if (out) {
      fs.writeFileSync(out, lines.join('\n') + '\n');
    }
  };
  const mocha = new Mocha({ ui: 'bdd', timeout: 120000, color: false, reporter: function (runner: Mocha.Runner) {
    let passes = 0;
    let failures = 0;
    runner.on('suite', (s) => s.title && write(`  ${s.title}`));
    runner.on('pass', (t) => { passes++; write(`    ✔ ${t.title} (${t.duration}ms)`); });
    runner.on('fail', (t, err) => { failures++; write(`    ✘ ${t.title}\n      ${String(err && (err.stack || err.message)).split('\n').join('\n      ')}`); });
    runner.on('end', () => write(`integration: ${passes} passed, ${failures} failed`));
    runner.on('start', () => write(`suite: ${suite}`));
  } as any });
  const grep = process.env.STEPSMITH_TEST_GREP;
  if (grep) {
    mocha.grep(grep);
  }
  // STEPSMITH_TEST_SUITE picks the suite: "trusted" (default) or "untrusted" (another workspace)
  const suite = process.env.STEPSMITH_TEST_SUITE || 'trusted';
  for (const f of fs.readdirSync(__dirname).filter((f) => f.startsWith(`${suite}.`) && f.endsWith('.test.js')).sort()) {
    mocha.addFile(path.join(__dirname, f));
  }
  return new Promise((resolve, reject) => {
    try {
      mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration tests failed`)) : resolve()));
    } catch (e) {
      write(`integration: 0 passed, 1 failed (${(e as Error).message})`);
      reject(e);
    }
  });
}
