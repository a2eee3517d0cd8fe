// What the browser tests (explorer.test.mjs) and the measuring scripts (bench.mjs, trace-load.mjs,
// trace-edit.mjs, stress.mjs, shot.mjs) share: a fresh Chromium per run (V8 may keep optimized
// code with a profile's resources), the generated loops, the app's saved state of a text, opening
// a page with that state in its storage or link, and pasting.

import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The served release build (scripts/e2e.sh sets it; by hand: scripts/build-web.sh, then
 * `scripts/serve-dist.py 8791`). */
export const url = process.env.STAGECRAFT_URL || 'http://127.0.0.1:8791/';

export const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';

/** Headless, and without the background work a first run of a profile starts. */
export const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  // CHROMIUM_ARGS='--flag …': an experiment's flags, e.g. V8's (`--js-flags=--no-wasm-tier-up`).
  ...(process.env.CHROMIUM_ARGS ? process.env.CHROMIUM_ARGS.split(' ') : [])];

export const viewport = { width: 1500, height: 900 };

/** A browser context in a profile of its own, never used before. In a browser of its own too,
 * launched for it; with SHARED_BROWSER=1 in one browser launched once and left running, as a
 * person's browser is when they open a link (its own processes and caches are then warm, the
 * page's renderer and storage still new). */
export async function launchFresh() {
  let ctx;
  if (process.env.SHARED_BROWSER !== '1') {
    ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'sc-fresh-')), {
      executablePath, args, viewport,
    });
  } else {
    sharedBrowser ??= await chromium.launch({ executablePath, args });
    ctx = await sharedBrowser.newContext({ viewport });
  }
  // The page of the app's origin that is not the app, from which tests set up its storage. Served
  // here rather than left a 404: a 404's console error may arrive after the test's own listener
  // is attached and be counted as the app's.
  await ctx.route('**/no-app-here.txt', route => route.fulfill({ status: 200, contentType: 'text/plain', body: '' }));
  return ctx;
}
let sharedBrowser;

/** Closes the browser `launchFresh` shares, if it launched one (else node waits for it). */
export const closeShared = () => sharedBrowser?.close();

/** A generated loop, from core's generators (`stagecraft workload heavy N STAGES [EXTENT]`, the
 * loops of docs/limits.md, "The heaviest inputs within the limits"; `stagecraft workload synthetic N`, the benchmarks'). */
export const workload = (kind, ...numbers) => execFileSync('cargo',
  ['run', '-q', '--release', '-p', 'stagecraft-core', '--bin', 'stagecraft', '--', 'workload', kind, ...numbers.map(String)],
  { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8' });

/** The text a measuring script is given: a file, or a generated loop written as
 * `heavy-159-64-64` (`workload('heavy', 159, 64, 64)`) or `synthetic-128`. */
export function loopText(arg) {
  const [kind, ...numbers] = arg.split('-');
  return (kind === 'heavy' || kind === 'synthetic') && numbers.length && numbers.every(n => /^\d+$/.test(n))
    ? workload(kind, ...numbers)
    : readFileSync(arg, 'utf8');
}

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
  // The app saves the document 300 ms after the last change, and the URL's hash follows it.
  await page.waitForTimeout(1500);
  const state = await page.evaluate(() => location.hash.slice(1));
  await ctx.close();
  return state;
}

/** Writes `state` to the app's storage as its only document, from a page of the same origin that
 * is not the app. */
export async function store(page, state) {
  await page.goto(url + 'no-app-here.txt');
  await page.evaluate(s => {
    localStorage.clear();
    localStorage.setItem('stagecraft.document.e2e', JSON.stringify({ document: 1, name: 'stored', saved: Date.now(), revision: 1, state: s }));
  }, state);
}

/** A new page of `ctx` opened at `to` (the app by default) and explored (or `ready`): its
 * storage cleared first (from a page of the same origin that is not the app, so nothing writes
 * it back) unless `clear` is false, the intro marked seen when `introSeen`; script errors (and,
 * with `console`, console errors) collected into `errors` when given. */
export async function openPage(ctx, {
  to = url, size = null, errors = null, console: consoleErrors = true, introSeen = false,
  clear = true, ready = 'body[data-explored]',
} = {}) {
  const page = await ctx.newPage();
  if (size) await page.setViewportSize(size);
  if (clear) {
    await page.goto(url + 'no-app-here.txt');
    await page.evaluate(seen => {
      localStorage.clear();
      if (seen) localStorage.setItem('stagecraft.intro.seen', '1');
    }, introSeen);
  }
  if (errors) {
    page.on('pageerror', e => errors.push(String(e)));
    if (consoleErrors) page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  }
  await page.goto(to);
  await page.waitForSelector(ready, { timeout: 30000, state: 'attached' });
  return page;
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

/** Pastes `text` over the editor's, as the browser does: a `paste` event, which the page may
 * cancel, then the text in one input event (Playwright's `fill` types it through the editor
 * instead, which in Chromium takes ~0.6 s even in a bare textarea). Resolves to when it was
 * pasted, on the page's clock, or null if the page refused the paste. */
export const paste = (page, text) => page.$eval('#source', (el, v) => {
  el.select();
  const data = new DataTransfer();
  data.setData('text/plain', v);
  if (!el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))) return null;
  el.value = v;
  el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
  return performance.now();
}, text);

const max = 64 * 1024 - 16;
const lines = 4095;

/** Texts of nearly the largest size Stagecraft reads (64 KiB, 4 096 lines), each bad in its own
 * way, and two beyond it, which a paste must not bring in. */
/** The counts `counted` on `<body>` (`data-explored`: explorations published; `data-ran`: with
 * their verification and timeline), and a wait until every one has grown past what it was. */
const counts = (page, counted) => page.evaluate(as => as.map(a => Number(document.body.getAttribute(a) ?? 0)), counted);
const grown = (page, counted, before) => page.waitForFunction(([as, ns]) =>
  as.every((a, k) => Number(document.body.getAttribute(a) ?? 0) > ns[k]), [counted, before], { timeout: 60000 });
const list = counted => Array.isArray(counted) ? counted : [counted];

/** Replaces the editor's text with `text` in one input event, as a paste of the whole text makes
 * (Playwright's fill makes many); resolves once the count or counts `counted` have grown. */
export async function replaceText(page, text, counted = 'data-explored') {
  const before = await counts(page, list(counted));
  await page.$eval('#source', (el, v) => {
    el.value = v;
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
  }, text);
  await grown(page, list(counted), before);
}

/** Puts the editor's caret at the end of its text, with the keyboard's focus, for `keystroke`. */
export async function caretAtEnd(page) {
  await page.$eval('#source', el => {
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  });
}

/** Types `key` (one character) where the editor's caret is, as a person does: a key press through
 * the browser's input pipeline, which edits the textarea's text in place (a replacement of the
 * whole text, `replaceText`, makes the browser rebuild and lay out all of it); resolves as
 * `replaceText` does. */
export async function keystroke(page, key, counted = 'data-explored') {
  const before = await counts(page, list(counted));
  await page.keyboard.press(key);
  await grown(page, list(counted), before);
}

/** The edits of the benchmarks on a text `base`: edit `k` types a key into a comment after it, as
 * a person types (the caret put there first), or with REPLACE=1 (EDIT_BY=replace) replaces the
 * whole text in one input event; each resolves once `counted` has grown. */
export async function commentEdits(page, base, counted = 'data-explored') {
  const replacing = process.env.REPLACE || process.env.EDIT_BY === 'replace';
  if (replacing) return k => replaceText(page, `${base}\n# edit ${k}\n`, counted);
  await replaceText(page, `${base}\n# edit `, 'data-ran');
  await caretAtEnd(page);
  return k => keystroke(page, String(k % 10), counted);
}

export const hostileTexts = {
  'unknown-run': '@'.repeat(max),
  'unknown-spaced': '@ '.repeat(max / 2),
  'unknown-lines': '@\n'.repeat(lines),
  'open-brackets': 'x = (\n'.repeat(lines),
  'long-sum': 'x = ' + '1 + '.repeat(max / 4 - 2) + '1\n',
  'long-name': 'a'.repeat(max),
  'long-comment': '# ' + 'x'.repeat(max - 2),
  'unclosed-string': '"' + 'x'.repeat(max - 1),
  'blank-lines': '\n'.repeat(lines),
  'many-lines-of-names': 'abcdefghijklmn\n'.repeat(lines),
  'deep-blocks': Array.from({ length: 40 }, (_, d) => ' '.repeat(4 * d) + 'for i in range(4):').join('\n') + '\n',
  'many-allocs': Array.from({ length: 2000 }, (_, k) => `T${k} = alloc([1048576])`).join('\n') + '\n',
  'many-annotations': 'for i in range(4):\n    C[i] = A[i]\n' + 'sch.annotate(i, "k", [0])\n'.repeat(2000),
  'beyond-lines': '\n'.repeat(max),
  'beyond-bytes': '#'.repeat(max + 100),
};

/** A task of a thread in a Chromium trace (category `toplevel`): what the Long Tasks API
 * measures, give or take. */
export const TASK_EVENT = 'ThreadControllerImpl::RunTask';

/** Starts a trace of `page`'s tasks (Chromium's `toplevel` category, which hardly slows it):
 * `stop()` then resolves to its main thread's tasks of at least `minMs` as [start, wall, cpu]
 * (ms; the start from the page's last navigation), in order. A task long by the clock but short
 * on the CPU waited for a core: on a 2-core machine a fresh browser's own processes take them
 * while the page loads (docs/benchmarks.md reports both). */
export async function traceTasks(page, minMs = 50) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', e => events.push(...e.value));
  const complete = new Promise(resolve => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['toplevel', 'blink.user_timing'] },
  });
  return {
    async stop() {
      await cdp.send('Tracing.end');
      await complete;
      // The app's renderer: the process whose main thread has the app's performance marks.
      const mark = events.find(e => e.name?.startsWith('stagecraft:'));
      const main = events.find(e => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && e.pid === mark?.pid);
      if (!main) return null;
      // From the navigation of the page's app, as the page's own clock counts.
      const nav = events.filter(e => e.name === 'navigationStart' && e.pid === main.pid).at(-1);
      const t0 = nav?.ts ?? 0;
      return events
        .filter(e => e.pid === main.pid && e.tid === main.tid && e.ph === 'X'
          && e.name === TASK_EVENT && e.dur >= minMs * 1000)
        .sort((a, b) => a.ts - b.ts)
        .map(e => [Math.round((e.ts - t0) / 1000), Math.round(e.dur / 1000),
          e.tdur === undefined ? null : Math.round(e.tdur / 1000)]);
    },
  };
}

// A Chromium on the page with PRESET loaded and PANE shown, settled: where the trace scripts
// (trace-edit.mjs, trace-frames.mjs) start. Returns the browser, the page and the preset's text.
export async function openPreset(preset, pane = 'program') {
  const browser = await chromium.launch({ executablePath, args });
  const page = await browser.newPage({ viewport });
  await page.goto(url);
  await explored(page);
  await page.selectOption('#presets', preset);
  await page.click(`#tab-${pane}`);
  await page.waitForTimeout(1500);
  return { browser, page, base: await page.inputValue('#source') };
}
