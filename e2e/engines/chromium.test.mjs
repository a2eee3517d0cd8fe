// The main path in Chromium (Debian's chromium, driven by Playwright as the other e2e suites are):
// the same paths as Firefox ESR and WebKit run, with every script and console error failing it.
import { test, after } from 'node:test';
import { launchFresh } from '../fresh.mjs';
import { mainPath, teachingPath, markupPath, wavesPath } from './main-path.mjs';

let ctx;
after(async () => { await ctx?.close(); });

test('Chromium: first load, an edit, a preset, every pane, a link round trip, the clipboard fallback, the trap banner; the step-through, the TVM view and the check view; markup in a link shown as text; the CDNA4 race between two waves in the check view; nothing refused by the Content-Security-Policy', async () => {
  ctx = await launchFresh();
  const page = await ctx.newPage();
  const pageErrors = [];
  page.on('pageerror', e => pageErrors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') pageErrors.push(m.text()); });
  const driver = {
    goto: url => page.goto(url),
    // Playwright passes one argument to the page; the paths never pass more.
    evaluate: (fn, ...args) => {
      if (args.length > 1) throw new Error('evaluate: one argument at most');
      return page.evaluate(fn, args[0]);
    },
    click: selector => page.click(selector),
    screenshot: path => page.screenshot({ path }),
    pageErrors,
  };
  await mainPath(driver, 'chromium');
  await teachingPath(driver, 'chromium');
  await markupPath(driver, 'chromium');
  await wavesPath(driver, 'chromium');
  if (pageErrors.length) throw new Error(`script errors: ${pageErrors.join('; ')}`);
});
