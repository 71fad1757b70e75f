// Opens code-server with extensionDevelopmentPath + extensionTestsPath via the web "payload" URL
// parameter (what @vscode/test-web does), in Debian's headless Chromium, and returns the tests'
// exit code (reported by the workbench through codeAutomationExit).
// Adapted from shared/editor-testing/vscode/devhost.js.
// Usage: node devhost.js PORT EXT_DIR TESTS_PATH   (env WORKSPACE_FOLDER, DEVHOST_TIMEOUT_S, OUT_DIR)
const { chromium } = require('playwright-core');
const path = require('path');
const [port, extDir, tests] = process.argv.slice(2);
const auth = `127.0.0.1:${port}`;
const payload = [['extensionDevelopmentPath', `vscode-remote://${auth}${extDir}`]];

if (tests) payload.push(['extensionTestsPath', `vscode-remote://${auth}${tests}`]);
const folder = process.env.WORKSPACE_FOLDER || process.cwd();
const url = `http://${auth}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
const timeoutS = Number(process.env.DEVHOST_TIMEOUT_S || 300);
const t0 = Date.now();
const log = (...a) => console.log(`[devhost ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => { const t = m.text(); if (/stepsmith|error/i.test(t) && !/favicon|ERR_FILE_NOT_FOUND|service worker/i.test(t)) log('console', m.type(), t.slice(0, 400)); });
  let exitCode = null;
  const exited = new Promise((res) => page.exposeFunction('codeAutomationExit', (code) => { exitCode = code; log('codeAutomationExit', code); res(); }));
  // the extension host's console output (mocha's reporter) arrives here
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    const text = (Array.isArray(args) ? args : [args]).map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
    process.stdout.write(text.endsWith('\n') ? text : text + '\n');
  });
  log('goto', url.slice(0, 120) + '…');
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
  log('workbench loaded');
  await Promise.race([exited, new Promise((r) => setTimeout(r, timeoutS * 1000))]);
  if (exitCode === null) {
    log(`no exit code after ${timeoutS}s`);
    if (process.env.OUT_DIR) await page.screenshot({ path: path.join(process.env.OUT_DIR, 'devhost-timeout.png') }).catch(() => {});
  }
  await browser.close().catch(() => {});
  process.exit(exitCode === null ? 3 : exitCode);
})().catch((e) => { console.error(e); process.exit(2); });
