// The main path in Firefox ESR (Debian's firefox-esr), driven by puppeteer-core over WebDriver BiDi.
import { test, after } from 'node:test';
import puppeteer from 'puppeteer-core';
import { mainPath, teachingPath, markupPath, wavesPath } from './main-path.mjs';

const executablePath = process.env.FIREFOX || '/usr/bin/firefox-esr';
let browser;
after(async () => { await browser?.close(); });

test('Firefox ESR: first load, an edit, a preset, every pane, a link round trip, the clipboard fallback, the trap banner; the step-through, the TVM view and the check view; markup in a link shown as text; the CDNA4 race between two waves in the check view; nothing refused by the Content-Security-Policy', async () => {
  browser = await puppeteer.launch({ browser: 'firefox', executablePath, headless: true });
  const page = await browser.newPage();
  await page.setViewport({ width: 1500, height: 900 });
  // Firefox reports each refusal of the Content-Security-Policy as a script error.
  const pageErrors = [];
  page.on('pageerror', e => pageErrors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') pageErrors.push(m.text()); });
  const driver = {
    goto: url => page.goto(url),
    evaluate: (fn, ...args) => page.evaluate(fn, ...args),
    click: selector => page.click(selector),
    screenshot: path => page.screenshot({ path }),
    pageErrors,
  };
  await mainPath(driver, 'firefox');
  await teachingPath(driver, 'firefox');
  await markupPath(driver, 'firefox');
  await wavesPath(driver, 'firefox');
  if (pageErrors.length) throw new Error(`script errors: ${pageErrors.join('; ')}`);
});
