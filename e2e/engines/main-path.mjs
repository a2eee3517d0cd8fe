// The browser tests' main path, written once for every engine (issue 23, "Every engine"): first
// load, an edit, a preset, every pane, a link round trip, the clipboard fallback, the trap banner
// and the page's Content-Security-Policy; the teaching path (issue 37); and a link whose every
// user-written string carries markup (issue 43). Each engine's test gives a driver: goto(url),
// evaluate(fn, ...args) (fn runs in the page, args are JSON), click(selector) (a real click),
// screenshot(path), and where the engine reports them, pageErrors: the script errors and console
// errors seen so far (an array the paths check and empty). Every page the paths leave has had
// nothing refused by the policy. Run against the served release build (scripts/e2e.sh).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';

/** The inline script the main path has the policy refuse: the engine's report of that refusal
 * (Firefox names the script's hash) is the one error the path excuses. */
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

/** The policy refused nothing on this page (assets/guard.js keeps every refusal), and the engine
 * reported no script or console error: checked before every page a path leaves. */
async function noneRefused(driver, where) {
  assert.deepEqual(await driver.evaluate(() => window.stagecraftCspViolations ?? ['assets/guard.js did not run']), [],
    `the Content-Security-Policy refused something (${where})`);
  assert.deepEqual(driver.pageErrors ?? [], [], `script or console errors (${where})`);
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
  await noneRefused(driver, 'the first load, an edit, a preset, every pane');
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
  await noneRefused(driver, 'the main path');

  // The trap banner (assets/guard.js, loaded under the policy): a WebAssembly trap that reaches
  // the page's error handler stops the app with a banner. The trap is a real one, of a module
  // compiled here under 'wasm-unsafe-eval'; handed to the handler as the browser hands an
  // uncaught one, so that the engine does not report it as a script error.
  const banner = await driver.evaluate(() => {
    // (module (func (export "trap") unreachable))
    const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 7, 8, 1,
      4, 116, 114, 97, 112, 0, 0, 10, 5, 1, 3, 0, 0, 11]);
    const { trap } = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports;
    try { trap(); } catch (error) { dispatchEvent(new ErrorEvent('error', { error, message: String(error) })); }
    const el = document.getElementById('panic');
    return { text: el.textContent, shown: !el.classList.contains('hidden') };
  });
  assert.equal(banner.shown, true);
  assert.match(banner.text, /^Stagecraft hit an internal error and stopped \(.+\)\. Your work is saved in this browser; reload to continue\.$/);
  await shot('trap-banner');

  // What the policy refuses (an inline script) does not run and is reported; the engine's own
  // report of it (Firefox: a script error naming the script's hash; Chromium: a console error) is
  // the only error allowed.
  const said = driver.pageErrors?.length ?? 0;
  const refused = await driver.evaluate(script => new Promise(resolve => {
    const s = document.createElement('script');
    s.textContent = script;
    document.head.append(s);
    setTimeout(() => resolve({ ran: window.__ran ?? null, reported: window.stagecraftCspViolations.length > 0 }), 500);
  }), REFUSED_SCRIPT);
  assert.deepEqual(refused, { ran: null, reported: true });
  if (driver.pageErrors) {
    await new Promise(r => setTimeout(r, 300));
    const theRefusal = /Content.Security.Policy|sha256-/i;
    assert.deepEqual(driver.pageErrors.slice(said).filter(e => !theRefusal.test(e)), []);
    driver.pageErrors.splice(said);
  }
}

/** Markup that runs script if written as markup — an element with a handler, one that first
 * closes an attribute value — in every string of a link a user writes: the loop's comments (and
 * the document's name they make), an annotation key a note quotes, a pasted program, a
 * parameter's name. Every pane, program view and code target is shown; none of them may make an
 * element or a handler of it, and each string is on the page as text (e2e/security.test.mjs does
 * the same in Chromium with more fields). */
export async function markupPath(driver, engine) {
  const img = k => `<img src=x onerror="window.__ran=${k}">`;
  const breakout = k => `'"><svg onload="window.__ran=${k}">`;
  const plainImg = k => `<img src=x onerror=window.__ran=${k}>`;
  const text = `# ${img(1)} ${breakout(2)}
T = alloc([2])
for i in range(N):
    T[i % 2] = A[i] + 1  # ${img(3)}
    B[i] = T[i % 2] * 2
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
sch.annotate(i, "${plainImg(4)}", [0])
`;
  const pasted = `with async_wait_queue(0, 1):  # ${img(5)}
    B[0] = "${plainImg(6)}"
`;
  const state = { text, view: 'check', pipelined: pasted, params: { N: 8, [plainImg(7)]: 3 } };
  await driver.goto('about:blank');
  await driver.goto(BASE + '#v1/' + deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url'));
  await explored(driver);
  await waitFor(driver, 'the note quoting the annotation key',
    () => /does not read/.test(document.querySelector('.problems-wrap')?.textContent ?? ''));
  await waitFor(driver, 'the check verdict', () => document.querySelector('#check-verdict')?.textContent?.trim());
  assert.equal(await driver.evaluate(() => document.querySelector('#pipelined').value), pasted);
  const show = selector => driver.evaluate(sel => { document.querySelector(sel).click(); return true; }, selector);
  const settle = ms => new Promise(r => setTimeout(r, ms));
  for (const view of ['tokens', 'tvm-0.27', 'stagecraft', 'check']) {
    await show(`button[data-view="${view}"]`);
    await settle(300);
  }
  for (const pane of ['verification', 'timeline', 'space', 'steps', 'code', 'program']) {
    await show(`#tab-${pane}`);
    await settle(400);
    if (pane === 'code') {
      for (const target of await driver.evaluate(() => [...document.querySelectorAll('#target option')].map(o => o.value))) {
        await driver.evaluate(t => {
          const s = document.querySelector('#target');
          s.value = t;
          s.dispatchEvent(new Event('change', { bubbles: true }));
          return true;
        }, target);
        await settle(400);
      }
    }
  }
  // Edited, the document is saved and named after its first comment, in the Documents menu.
  await fill(driver, text + '\n');
  await settle(1000);
  await show('#documents');
  const names = await waitFor(driver, 'the Documents menu',
    () => { const n = [...document.querySelectorAll('#documents-menu .document .name')].map(e => e.textContent); return n.length && n; });
  assert.ok(names.some(n => n.includes(img(1))), `the document's name is shown as text: ${names}`);
  await shotOf(driver, engine, 'markup-as-text');
  const found = await driver.evaluate(() => ({
    ran: window.__ran ?? null,
    imgs: [...document.querySelectorAll('img')].map(e => e.outerHTML),
    handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => /^on/i.test(a.name)))
      .map(e => e.outerHTML.slice(0, 160)),
    text: [document.documentElement.textContent,
      ...[...document.querySelectorAll('textarea, input')].map(e => e.value)].join('\n'),
  }));
  assert.deepEqual({ ...found, text: undefined }, { ran: null, imgs: [], handlers: [], text: undefined });
  for (const shown of [img(1), breakout(2), img(3), plainImg(4), img(5), plainImg(6)]) {
    assert.ok(found.text.includes(shown), `${shown} is shown as text`);
  }
  await noneRefused(driver, 'the markup link');
}

/** Issue 42's race between waves, in every engine: the CDNA4 preset's program with its barriers
 * deleted, opened in the check view from a link, is racy, each race at its line naming the wave
 * that reads and the wave that copied, with the barrier that would have covered it. */
export async function wavesPath(driver, engine) {
  const repo = p => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');
  const variant = repo('tests/pipelined/cdna4_wave_local_waits.py');
  const state = { text: repo('examples/cdna4_interleaved.py'), view: 'check', pipelined: variant };
  await driver.goto('about:blank');
  await driver.goto(BASE + '#v1/' + deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url'));
  await explored(driver);
  const verdict = await waitFor(driver, 'the check verdict across the waves', () => {
    const v = document.querySelector('#check-verdict')?.textContent ?? '';
    return /^racy: .* between waves/.test(v) && v;
  });
  const races = await waitFor(driver, 'the races between waves',
    () => { const r = [...document.querySelectorAll('#pane-program .thread-races li')].map(l => l.textContent); return r.length && r; });
  const lines = variant.split('\n');
  for (const r of races) {
    const [, line, me, buffer, them] = r.match(/^line (\d+): wave (\d) (?:reads|writes) (A_sh|B_sh)\[[\d, ]+\](?: \(slot \d\))?(?: at iteration \d+)?(?:, written by| while) wave (\d)/) ?? [];
    assert.ok(line && me !== them, `two waves named (${verdict}): ${r}`);
    assert.ok(lines[line - 1].includes(buffer + '['), `race at line ${line}: ${r}`);
    assert.match(r, /Fix: a barrier\(\) after the (wait|read) on line \d+ and before this (read|write) on line \d+/);
  }
  await shotOf(driver, engine, 'check-waves');
  await noneRefused(driver, 'the check view across waves');
}

const shotOf = (driver, engine, name) => driver.screenshot(`${SHOTS}${engine}-${name}.png`);

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
  await noneRefused(driver, 'the step-through');
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
    // The program is drawn again as the view changes back and as each answer arrives: the button
    // clicked is one that has stayed in the page for half a second (WebKitWebDriver calls a button
    // replaced under its click "not interactable", as it was now and then on a loaded machine).
    await waitFor(driver, 'the count buttons, drawn and left', () => {
      const b = document.querySelector('#program .line.sec-body button.count-step[data-delta="1"]');
      if (!b) return false;
      b.seenAt ??= performance.now();
      return performance.now() - b.seenAt > 500;
    });
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
  await noneRefused(driver, 'the TVM view, the check view, a race stepped to');
}
