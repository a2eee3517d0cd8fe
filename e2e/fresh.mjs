// What the fresh-page measuring scripts (fresh-load.mjs, fresh-paste.mjs, trace-load.mjs) share:
// a fresh Chromium per run (V8 may keep optimized code with a profile's resources), the app's
// saved state of a text, opening a page with that state in its storage or link, and pasting.

import { chromium } from 'playwright-core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The served release build (scripts/build-web.sh, then `python3 -m http.server 8791 -d dist`). */
export const url = process.env.URL || 'http://127.0.0.1:8791/';

/** Headless, and without the background work a first run of a profile starts. */
export const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const viewport = { width: 1500, height: 900 };

/** A browser context in a profile of its own, never used before. */
export const launchFresh = () => chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'sc-fresh-')), {
  executablePath: '/usr/bin/chromium', args, viewport,
});

/** What the app saves to storage (and puts in a link) after `text` is typed with `pane` shown,
 * and the code `target` chosen if given. */
export async function savedState(text, pane = 'program', target) {
  const ctx = await launchFresh();
  const page = await ctx.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-explored]', { state: 'attached' });
  await page.click(`#tab-${pane}`);
  if (target) await page.selectOption('#target', target);
  await page.fill('#source', text);
  // The app writes its state 300 ms after the last change.
  await page.waitForTimeout(1500);
  const state = await page.evaluate(() => localStorage.getItem('stagecraft.v2.state'));
  await ctx.close();
  return state;
}

/** Writes `state` to the app's storage from a page of the same origin that is not the app (a 404). */
export async function store(page, state) {
  await page.goto(url + 'no-app-here.txt');
  await page.evaluate(s => localStorage.setItem('stagecraft.v2.state', s), state);
}

/** Opens the app with `state` (none: the default example) in its storage or, `how` = 'link', in
 * the URL's hash. */
export async function openWith(page, state, how = 'storage') {
  if (state && how === 'storage') await store(page, state);
  await page.goto(state && how === 'link' ? `${url}#${state}` : url);
}

/** Resolves once more than `before` explorations are written, and their runs too. */
export const explored = (page, before = 0) => page.waitForFunction(n => {
  const count = a => Number(document.body.getAttribute(a) ?? 0);
  return count('data-explored') > n && count('data-ran') >= count('data-explored');
}, before, { timeout: 20000 });

/** Pastes `text` over the editor's, as the browser does (one input event). */
export const paste = (page, text) => page.$eval('#source', (el, v) => {
  el.value = v;
  el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
}, text);
