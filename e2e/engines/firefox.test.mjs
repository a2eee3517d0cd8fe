// The main path in Firefox ESR (Debian's firefox-esr), driven by puppeteer-core over WebDriver BiDi.
import { test, after } from 'node:test';
import puppeteer from 'puppeteer-core';
import { createHash } from 'node:crypto';
import { mainPath, teachingPath, REFUSED_SCRIPT } from './main-path.mjs';

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
  // Firefox reports each refusal of the Content-Security-Policy as a script error: the one the main
  // path asks for is not one.
  const refused = createHash('sha256').update(REFUSED_SCRIPT).digest('base64');
  const errors = pageErrors.filter(e => !e.includes(`'sha256-${refused}'`));
  if (errors.length) throw new Error(`script errors: ${errors.join('; ')}`);
});
