// The browser tests' main path, written once for every engine (issue 23, "Every engine"): first
// load, an edit, a preset, every pane, a link round trip and the clipboard fallback. Each engine's
// test gives a driver: goto(url), evaluate(fn, ...args) (fn runs in the page, args are JSON),
// click(selector) (a real click), screenshot(path) and close(). Run against the served release
// build (scripts/e2e.sh).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';

export const BASE = process.env.STAGECRAFT_URL || 'http://127.0.0.1:8791/';
const SHOTS = new URL('../screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

/** Polls `fn` in the page until it returns something truthy (which it resolves to). */
export async function waitFor(driver, what, fn, args = [], timeout = 60000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await driver.evaluate(fn, ...args);
      if (last) return last;
    } catch (e) {
      // A navigation in progress: ask again.
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (last: ${last})`);
    await new Promise(r => setTimeout(r, 100));
  }
}

const explored = driver => waitFor(driver, 'the first exploration',
  () => document.body?.hasAttribute('data-explored') ?? false);
const programHas = (driver, text) => waitFor(driver, `the program to show ${text}`,
  t => (document.querySelector('#program')?.textContent ?? '').includes(t), [text]);

/** Replaces the editor's text as typing would: the value, then an input event. */
const fill = (driver, text) => driver.evaluate(t => {
  const el = document.querySelector('#source');
  el.focus();
  el.value = t;
  el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
  return true;
}, text);

export async function mainPath(driver, engine) {
  const shot = name => driver.screenshot(`${SHOTS}${engine}-${name}.png`);
  const errors = () => driver.evaluate(() => window.__errors ?? []);

  // First load: the default example, pipelined with its waits.
  await driver.goto(BASE);
  await explored(driver);
  await programHas(driver, 'async_wait_queue(0, 1)');
  await driver.evaluate(() => {
    window.__errors = [];
    addEventListener('error', e => window.__errors.push(String(e.message)));
    addEventListener('unhandledrejection', e => window.__errors.push(String(e.reason)));
    return true;
  });
  await shot('first-load');
  // The time of the recomputation has no more digits than the page's clock: Firefox's ticks each
  // millisecond, where "0.0 ms" would be a false reading of a recomputation under one.
  // The clock's tick: the shortest of several steps (a descheduled thread lengthens a step).
  const { timing, tick } = await driver.evaluate(() => {
    let last = performance.now(), steps = [];
    for (let k = 0; k < 1e7 && steps.length < 8; k++) {
      const t = performance.now();
      if (t !== last) { steps.push(t - last); last = t; }
    }
    return { timing: document.querySelector('.timing').textContent, tick: Math.min(...steps.slice(1)) };
  });
  assert.match(timing, tick < 0.5 ? /^\d+\.\d ms$/ : /^(< \d+|\d+) ms$/, `the time shown, with a clock of ${tick} ms`);

  // Every pane.
  await driver.click('#tab-verification');
  await waitFor(driver, 'the verdict', () => /equivalent/.test(document.querySelector('#verdict')?.innerText ?? ''));
  await shot('verification');
  await driver.click('#tab-timeline');
  await waitFor(driver, 'timeline bars', () => document.querySelectorAll('#timeline svg rect.span').length > 0);
  assert.ok(await driver.evaluate(() => Number(document.querySelector('#total-cycles').innerText) > 0));
  await shot('timeline');
  await driver.click('#tab-space');
  await waitFor(driver, 'the iteration space', () => document.querySelectorAll('table.space td.cell').length > 10);
  await shot('space');
  await driver.click('#tab-code');
  await waitFor(driver, 'the code', () => /async_commit_queue/.test(document.querySelector('#code pre')?.innerText ?? ''));
  await shot('code');
  await driver.click('#tab-program');

  // An edit: a stage changed in the text changes the wait's count.
  const source = await driver.evaluate(() => document.querySelector('#source').value);
  await fill(driver, source.replace('"software_pipeline_stage", [0, 1]', '"software_pipeline_stage", [0, 3]'));
  await programHas(driver, 'async_wait_queue(0, 3)');
  await shot('edit');

  // A preset.
  await driver.evaluate(() => {
    const s = document.querySelector('#presets');
    s.value = 'RFC (e): nested GEMM';
    s.dispatchEvent(new Event('change', { bubbles: true }));
    return true;
  });
  await programHas(driver, 'inner loop prologue');
  await shot('preset');

  // A link round trip: the URL follows the document; opened again, it shows the same state.
  const mine = '# round trip\n' + await driver.evaluate(() => document.querySelector('#source').value);
  await fill(driver, mine);
  await driver.click('#tab-timeline');
  await waitFor(driver, 'the URL to follow the edit', () => location.hash.startsWith('#v1/') && location.hash.length > 100);
  await new Promise(r => setTimeout(r, 800));
  const href = await driver.evaluate(() => location.href);
  await driver.goto('about:blank');
  await driver.goto(href);
  await explored(driver);
  assert.equal(await driver.evaluate(() => document.querySelector('#source').value), mine);
  await waitFor(driver, 'the timeline tab', () => document.querySelector('#tab-timeline')?.classList.contains('active'));
  await waitFor(driver, 'timeline bars', () => document.querySelectorAll('#timeline svg rect.span').length > 0);
  await shot('link');

  // The clipboard fallback: without navigator.clipboard, the link in a selected field.
  await driver.evaluate(() => {
    Object.defineProperty(Navigator.prototype, 'clipboard', { configurable: true, get: () => undefined });
    return true;
  });
  await driver.click('#copy-link');
  const selected = await waitFor(driver, 'the field to copy from', () => {
    const field = document.activeElement;
    return field?.matches('.copy-manual textarea') && field.selectionStart === 0
      && field.selectionEnd === field.value.length && field.value;
  });
  assert.equal(selected, await driver.evaluate(() => location.href));
  assert.match(await driver.evaluate(() => document.querySelector('.copy-manual').innerText), /Ctrl\+C|⌘C/);
  await shot('copy-fallback');
  assert.deepEqual(await errors(), []);
}
