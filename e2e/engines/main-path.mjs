// The browser tests' main path, written once for every engine (issue 23, "Every engine"): first
// load, an edit, a preset, every pane, a link round trip, the clipboard fallback and the page's
// Content-Security-Policy. Each engine's test gives a driver: goto(url), evaluate(fn, ...args) (fn
// runs in the page, args are JSON), click(selector) (a real click), screenshot(path) and close().
// Run against the served release build (scripts/e2e.sh).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';

/** The inline script the main path has the policy refuse: an engine that reports a refusal as a
 * script error (Firefox) excuses this one, known by its hash, and no other. */
export const REFUSED_SCRIPT = 'window.__ran = 1';

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

  // The page's Content-Security-Policy: it refused nothing the page loads, and what it refuses
  // (an inline script) does not run and is reported.
  assert.deepEqual(await driver.evaluate(() => window.stagecraftCspViolations), []);
  const refused = await driver.evaluate(script => new Promise(resolve => {
    const s = document.createElement('script');
    s.textContent = script;
    document.head.append(s);
    setTimeout(() => resolve({ ran: window.__ran ?? null, reported: window.stagecraftCspViolations.length > 0 }), 500);
  }), REFUSED_SCRIPT);
  assert.deepEqual(refused, { ran: null, reported: true });
}

/** Chooses the example named `name` in the presets menu, as a user would. */
const preset = (driver, name) => driver.evaluate(n => {
  const s = document.querySelector('#presets');
  s.value = n;
  s.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
}, name);
const position = driver => waitFor(driver, 'the step-through position', () => {
  const p = document.querySelector('#position')?.textContent ?? '';
  return /^\d+ \/ \d+$/.test(p) && p;
});
const clickButton = (driver, name) => driver.evaluate(n => {
  const b = [...document.querySelectorAll('button')].find(b => b.textContent.trim() === n || b.getAttribute('aria-label') === n);
  b.click();
  return true;
}, name);

/** What issue 37 shipped, in every engine: the step-through to RFC (a)'s first wait (slot labels
 * and the stack read from the DOM), "Next race" on RFC (c) with TVM's count, a link restoring the
 * position, the TVM 0.27 view of RFC (c) beside Stagecraft's, and TVM's program pasted into the
 * check view with its races at the pasted lines. */
export async function teachingPath(driver, engine) {
  const shot = name => driver.screenshot(`${SHOTS}${engine}-${name}.png`);
  const listen = () => driver.evaluate(() => {
    window.__errors = [];
    addEventListener('error', e => window.__errors.push(String(e.message)));
    addEventListener('unhandledrejection', e => window.__errors.push(String(e.reason)));
    return true;
  });
  await driver.goto(BASE);
  await explored(driver);

  await listen();
  // RFC (a), stepped to its first wait.
  await driver.click('#tab-program');
  await preset(driver, 'RFC (a): async copy');
  await programHas(driver, 'async_wait_queue(0, 1)');
  await driver.click('#tab-steps');
  const start = await position(driver);
  await clickButton(driver, 'Next wait');
  await waitFor(driver, 'the caption at a wait', () => /^Wait on/.test(document.querySelector('#caption')?.textContent ?? ''));
  const at = await position(driver);
  assert.notEqual(at, start);
  const { ring, queues } = await driver.evaluate(() => ({
    ring: [...document.querySelectorAll('#machine g.slot')].map(g => [g.dataset.buffer, Number(g.dataset.slot), g.querySelector('text').textContent, g.dataset.status]),
    queues: [...document.querySelectorAll('#machine g.queue')].map(q => [q.querySelector('text').textContent, [...q.querySelectorAll('g.group text')].map(t => t.textContent)]),
  }));
  const first = ring.filter(s => s[0] === ring[0][0]).slice(0, 2).map(s => s.slice(1));
  assert.deepEqual(first, [[0, 'it 0', 'ready'], [1, 'it 1', 'in flight']], JSON.stringify(ring));
  assert.match(queues[0][0], /committed 2, completed 1/);
  assert.ok(queues.some(([, groups]) => groups.length === 1 && /it 1/.test(groups[0])), JSON.stringify(queues));
  await shot('steps');

  // The position in the link.
  await new Promise(r => setTimeout(r, 1200));
  const href = await driver.evaluate(() => location.href);
  await driver.goto('about:blank');
  await driver.goto(href);
  await explored(driver);
  await listen();
  assert.equal(await position(driver), at, 'the link restores the position');

  // The TVM 0.27 view of RFC (c): TVM's race, Stagecraft's program equivalent, side by side.
  await preset(driver, 'RFC (c): interleaved producers');
  await driver.click('#tab-program');
  await programHas(driver, 'async_wait_queue');
  await driver.click('button[data-view="tvm-0.27"]');
  await waitFor(driver, "TVM's verdict", () => /racy/.test(document.querySelector('#tvm-verdict')?.innerText ?? ''));
  assert.match(await driver.evaluate(() => document.querySelector('#tvm-program').innerText), /async_wait_queue\(0, 5\)/);
  await waitFor(driver, "Stagecraft's verdict", () => /^Stagecraft's program: equivalent/.test(document.querySelector('#ours-verdict')?.textContent ?? ''));
  await shot('tvm-view');
  const tvm = await driver.evaluate(() => document.querySelector('#tvm-program').innerText);

  // TVM's program pasted into the check view: its races at the pasted lines.
  await driver.click('button[data-view="check"]');
  await waitFor(driver, 'the check view', () => !!document.querySelector('#pipelined'));
  await driver.evaluate(t => {
    const el = document.querySelector('#pipelined');
    el.value = t;
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
    return true;
  }, tvm);
  await waitFor(driver, 'the check verdict', () => /racy/.test(document.querySelector('#check-verdict')?.textContent ?? ''));
  const races = await driver.evaluate(() => [...document.querySelectorAll('#pane-program .tvm-races li')].map(li => li.textContent));
  assert.ok(races.length > 0);
  for (const r of races) {
    const line = Number(r.match(/^line (\d+):/)[1]);
    const buffer = r.match(/(A_sh|B_sh)\[/)[1];
    assert.ok(tvm.split('\n')[line - 1].includes(buffer + '['), `race at line ${line}: ${r}`);
  }
  await shot('check');
  await driver.click('button[data-view="stagecraft"]');

  // RFC (c) with TVM's count (its body wait raised by two): "Next race" stops at the race.
  for (let k = 0; k < 2; k++) {
    const n = await driver.evaluate(() => Number(document.body.dataset.explored));
    await waitFor(driver, 'the count buttons', () => !!document.querySelector('#program .line.sec-body button.count-step[data-delta="1"]'));
    await driver.click('#program .line.sec-body button.count-step[data-delta="1"]');
    await waitFor(driver, 'the raised count explored', m => Number(document.body.dataset.explored) > m, [n]);
  }
  await driver.click('#tab-steps');
  await position(driver);
  await clickButton(driver, 'Next race');
  await waitFor(driver, 'the race', () => !!document.querySelector('#caption.race'));
  assert.match(await driver.evaluate(() => document.querySelector('#caption').textContent), /RACE: it reads data whose asynchronous write is still in flight/);
  assert.equal(await driver.evaluate(() => document.querySelectorAll('#machine g.slot.race').length), 1, 'the slot both touch is marked');
  await shot('steps-race');

  assert.deepEqual(await driver.evaluate(() => window.__errors ?? []), []);
}
