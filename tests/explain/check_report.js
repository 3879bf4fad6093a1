// Loads a `tkc explain` report in headless Chromium (Debian's, driven by
// playwright-core) and checks that it works as a reader uses it:
//   node check_report.js REPORT.html SCREENSHOT.png SELECTOR=MIN ...
// Fails (exit 1) on any console error or page error, on a selector matching
// fewer than MIN elements, when hovering a task grid cell does not name its
// worker, or when clicking a lowered-loop line does not mark its source
// line. Exit 77 (skip) when Chromium is not installed.
'use strict';
const fs = require('fs');
const path = require('path');

const [report, screenshot, ...expectations] = process.argv.slice(2);
const chromium = '/usr/bin/chromium';
if (!fs.existsSync(chromium)) {
  console.log('SKIP: Debian\'s chromium is not installed (cmake/setup-deps.sh installs it)');
  process.exit(77);
}
const { chromium: launcher } = require('playwright-core');

function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exitCode = 1;
}

(async () => {
  const browser = await launcher.launch({
    executablePath: chromium,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems = [];
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(String(e)));
    // Nothing may leave the file: a request to anything but file:// is an error.
    page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.push('request ' + r.url()); });
    await page.goto('file://' + path.resolve(report), { waitUntil: 'load' });

    for (const e of expectations) {
      const at = e.lastIndexOf('=');
      const selector = e.slice(0, at), min = Number(e.slice(at + 1));
      const n = await page.locator(selector).count();
      if (n < min) fail(`${selector}: ${n} element(s), expected at least ${min}`);
      else console.log(`ok ${selector}: ${n}`);
    }

    const cell = page.locator('svg.grid rect').first();
    if (await cell.count()) {
      await cell.scrollIntoViewIfNeeded();
      await cell.hover();
      const text = await cell.locator('xpath=ancestor::div[contains(@class,"mapping")]').locator('.hover').textContent();
      const worker = await cell.getAttribute('data-worker');
      if (!/^task \(.*\) -> \w+ \d+, step \d+$/.test(text) || !text.includes(' ' + worker + ','))
        fail(`hovering a task cell shows "${text}"`);
      else console.log(`ok hover: ${text}`);
    }

    const irLine = page.locator('.ir .line[data-src]').first();
    if (await irLine.count()) {
      const src = await irLine.getAttribute('data-src');
      await irLine.scrollIntoViewIfNeeded();
      await irLine.click();
      const panes = irLine.locator('xpath=ancestor::div[contains(@class,"panes")]');
      const marked = await panes.locator(`.src .line.linked[data-line="${src}"]`).count();
      if (marked !== 1) fail(`clicking a loop line did not mark source line ${src}`);
      else console.log(`ok link: loop line -> source line ${src}`);
    }

    await page.screenshot({ path: screenshot, fullPage: true });
    for (const p of problems) fail('console: ' + p);
  } finally {
    await browser.close();
  }
})().catch((e) => { fail(String(e)); });
