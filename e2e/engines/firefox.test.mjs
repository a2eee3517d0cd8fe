// The main path in Firefox ESR (Debian's firefox-esr), driven by puppeteer-core over WebDriver BiDi.
import { test, after } from 'node:test';
import puppeteer from 'puppeteer-core';
import { mainPath, teachingPath } from './main-path.mjs';

const executablePath = process.env.FIREFOX || '/usr/bin/firefox-esr';
let browser;
after(async () => { await browser?.close(); });

test('Firefox ESR: first load, an edit, a preset, every pane, a link round trip, the clipboard fallback; the step-through, the TVM view and the check view', async () => {
  browser = await puppeteer.launch({ browser: 'firefox', executablePath, headless: true });
  const page = await browser.newPage();
  await page.setViewport({ width: 1500, height: 900 });
  const pageErrors = [];
  page.on('pageerror', e => pageErrors.push(String(e)));
  const driver = {
    goto: url => page.goto(url),
    evaluate: (fn, ...args) => page.evaluate(fn, ...args),
    click: selector => page.click(selector),
    screenshot: path => page.screenshot({ path }),
  };
  await mainPath(driver, 'firefox');
  await teachingPath(driver, 'firefox');
  if (pageErrors.length) throw new Error(`script errors: ${pageErrors.join('; ')}`);
});
