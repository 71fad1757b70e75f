// What every UI end-to-end driver (drive.js, hostile.js) starts with: headless Chromium on the
// code-server page, a log line stamped with the seconds since start, checks counted into the
// final "e2e: N passed, N failed" line (scripts/run-e2e.sh tallies it), a screenshot of each
// failure, the command palette / quick open that VS Code sometimes fails to show, and opening a
// file through it.
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');

// tag: the log prefix; out: the screenshot folder; failPrefix: a failed check's screenshot is
// `<failPrefix><name>.png`.
function session(tag, out, failPrefix) {
  const t0 = Date.now();
  const s = { results: [], page: null, browser: null };
  s.log = (...a) => console.log(`[${tag} ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

  s.launch = async () => {
    fs.mkdirSync(out, { recursive: true });
    s.browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    s.page = await s.browser.newPage({ viewport: { width: 1440, height: 900 } });
    s.page.on('pageerror', (e) => s.log('pageerror', e.message.slice(0, 200)));
    return s.page;
  };

  // one named check: a throw fails it (with a screenshot) and the run goes on to the next
  s.check = async (name, fn) => {
    const start = Date.now();
    try {
      await fn();
      s.results.push({ name, ok: true, ms: Date.now() - start });
      s.log(`PASS ${name}`);
    } catch (e) {
      s.results.push({ name, ok: false, ms: Date.now() - start, error: String(e && e.message || e) });
      s.log(`FAIL ${name}: ${e && e.message || e}`);
      await s.page.screenshot({ path: path.join(out, `${failPrefix}${name}.png`) }).catch(() => {});
    }
  };

  // The command palette (or quick open with ['Control+P']): F1 can be swallowed while focus sits
  // in a just-closed preview or a webview, so retry with the focus moved back to the workbench
  // and the other shortcut.
  s.openPalette = async (keys = ['F1', 'Control+Shift+P']) => {
    const page = s.page;
    for (let attempt = 0; attempt < 4; attempt++) {
      await page.keyboard.press('Escape');
      if (attempt > 0) {
        await page.locator('.part.editor').click({ position: { x: 600, y: 300 } }).catch(() => {});
        await page.keyboard.press('Escape');
      }
      await page.keyboard.press(keys[attempt % keys.length]);
      const shown = await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 5000 })
        .then(() => true, () => false);
      if (shown) return;
      s.log('command palette did not open; retrying');
    }
    throw new Error('the command palette did not open');
  };

  s.command = async (title) => {
    await s.openPalette();
    await s.page.keyboard.type(title);
    await s.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10000 });
    await s.page.waitForTimeout(200);
    await s.page.keyboard.press('Enter');
  };

  // quick open: the file `name` (the row naming `dir`, when several files have that name), open
  // in the editor
  s.openFile = async (name, dir) => {
    const page = s.page;
    await s.openPalette(['Control+P']);
    await page.keyboard.type(name);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: dir || name }).first().waitFor({ timeout: 15000 });
    await page.waitForTimeout(300);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`.tab.active[aria-label*="${name}"]`, { timeout: 15000 }).catch(() => {});
    await page.waitForSelector('.monaco-editor .view-lines', { timeout: 20000 });
  };

  // the start-up or a step outside any check failed: counted, so the run cannot pass
  s.failed = (name, e) => {
    s.results.push({ name, ok: false, error: String(e && e.message || e) });
    s.log('ERROR', e);
  };

  // the final line, the browser closed, and the exit status (0 only when something passed and
  // nothing failed); resultFile, if given, gets every check's outcome as JSON
  s.finish = async (resultFile) => {
    const passed = s.results.filter((r) => r.ok).length;
    const failed = s.results.length - passed;
    if (resultFile) {
      fs.writeFileSync(path.join(out, resultFile),
        JSON.stringify({ results: s.results, seconds: (Date.now() - t0) / 1000 }, null, 2));
    }
    console.log(`e2e: ${passed} passed, ${failed} failed`);
    if (s.browser) await s.browser.close();
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
  };
  return s;
}

module.exports = { session };
