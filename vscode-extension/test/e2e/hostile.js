// UI end-to-end, issue 18 item 1: opening a cloned folder must not run its Python code.
// scripts/run-e2e.sh opens a workspace that ships `stepsmith/__init__.py`, `yaml.py`, `pygls/`,
// `json.py`, ... (each writes a marker file into MARKERS when imported) once trusted and once
// untrusted (Restricted Mode). In both the packaged extension's server must run and report a
// planted rule violation, and no marker may ever appear.
// Usage: node hostile.js URL OUT MARKERS trusted|untrusted
// Checks, each a test counted in the final line:
//   <mode>-server-runs    the status item says the server answered (ready / restricted)
//   <mode>-diagnostic     the planted SS1xx violation is underlined and listed in Problems
//   <mode>-no-marker      no module of the folder was imported (also after a server restart)
const fs = require('fs');
const path = require('path');
const { session } = require('./session');

const [URL, OUT, MARKERS, MODE] = process.argv.slice(2);
const run = session(`e2e-hostile ${MODE}`, OUT, 'hostile-fail-');
const { log, check, command, openFile } = run;

const markers = () => fs.readdirSync(MARKERS);

(async () => {
  if (!MARKERS || !fs.existsSync(MARKERS) || !['trusted', 'untrusted'].includes(MODE)) {
    fs.mkdirSync(OUT, { recursive: true });
    console.log('usage: node hostile.js URL OUT MARKERS trusted|untrusted');
    console.log('e2e: 0 passed, 1 failed');
    process.exit(2);
  }
  const page = await run.launch();

  const serverAnswered = async () => {
    // "Sandbox ready/unavailable" (trusted) or "Sandbox: restricted" (untrusted) come only once
    // the server runs; "$(error) Stepsmith" is a server that failed to start
    const want = MODE === 'trusted' ? /Sandbox (ready|unavailable)/ : /Sandbox: restricted/;
    const find = (src) => {
      const items = [...document.querySelectorAll('.statusbar-item')];
      const ok = items.find((e) => new RegExp(src).test(e.innerText));
      if (ok) return ok.innerText;
      const failed = items.find((e) => /^\s*Stepsmith\s*$/.test(e.innerText) && e.querySelector('.codicon-error'));
      return failed ? `failed: ${failed.innerText}` : null;
    };
    await page.waitForFunction(find, want.source, { timeout: 90000 });
    const text = await page.evaluate(find, want.source);
    if (!want.test(text)) throw new Error(`the status item says ${JSON.stringify(text)}: the server did not start`);
    log('status bar:', text);
  };

  try {
    await page.goto(URL);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    log('workbench loaded; markers so far:', markers());

    await check(`${MODE}-server-runs`, serverAnswered);

    await check(`${MODE}-diagnostic`, async () => {
      await page.locator('.monaco-workbench').click({ position: { x: 900, y: 450 } }).catch(() => {});
      await openFile('risk.py');
      await page.waitForSelector('.monaco-editor .squiggly-error', { timeout: 60000 });
      await page.keyboard.press('Control+Shift+M');
      await page.waitForSelector('.markers-panel .monaco-list-row', { timeout: 15000 });
      await page.waitForTimeout(800);
      const rows = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
      if (!rows.some((r) => /SS1\d\d/.test(r) && /subprocess/.test(r))) throw new Error(`no SS1xx problem about subprocess in ${JSON.stringify(rows)}`);
      await page.screenshot({ path: path.join(OUT, `hostile-${MODE}.png`) });
    });

    await check(`${MODE}-no-marker`, async () => {
      if (markers().length) throw new Error(`imported from the folder: ${markers().join(', ')}`);
      // a restart starts the probe and the server again: still nothing from the folder
      await command('Stepsmith: Restart Server');
      // the item spins while the server stops and starts again; then it answers once more
      const restarted = await page.waitForFunction(() => [...document.querySelectorAll('.statusbar-item')]
        .some((e) => /^\s*Stepsmith\s*$/.test(e.innerText) && e.querySelector('.codicon-sync, .codicon-loading')), null,
      { timeout: 15000, polling: 50 }).then(() => true, () => false);
      log(restarted ? 'the server restarted' : 'did not see the restart spinner (fast restart)');
      await serverAnswered();
      await page.waitForTimeout(1000);
      if (markers().length) throw new Error(`imported from the folder after a restart: ${markers().join(', ')}`);
    });
  } catch (e) {
    run.failed(`${MODE}-setup`, e);
    await page.screenshot({ path: path.join(OUT, `hostile-${MODE}-error.png`) }).catch(() => {});
  } finally {
    await run.finish();
  }
})();
