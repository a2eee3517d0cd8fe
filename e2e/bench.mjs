// The browser budgets of docs/benchmarks.md, measured in Chromium on a served release build and
// printed as the rows of that document's browser table (scripts/bench.sh --web runs it):
//   - first load, cold cache: the editor's text visible and editable, the default example's full
//     results drawn — at 10 Mbit/s with a 40 ms round trip, the same with the CPU 4× slower, and on
//     loopback;
//   - edit → painted (the program pane, the worker's round trip included), median of EDITS edits,
//     on every preset; and edit → the verification and timeline drawn; and the floor under it, the
//     same keys and measure on a bare textarea whose text a worker echoes (floor.mjs);
//   - the longest task of the page's main thread (wall and CPU, from a trace) while each preset
//     loads and is edited, and while the heaviest loops within the limits are pasted and computed;
//   - typing while the worker computes the heaviest loop: the worst keystroke → paint (Event Timing);
//   - with PARTS=threads: the worker's verification (across the threads) and machine-level check
//     of the cooperative presets (CUTLASS, CDNA4), as the header's timing reports them;
//   - with PARTS=search (scripts/bench.sh --search): the schedule search of each preset in the page,
//     from the click to its last answer, and the longest main-thread task while it runs.
// Serve a release build (scripts/build-web.sh; `scripts/serve-dist.py 8791`) and run
//   node e2e/bench.mjs            (STAGECRAFT_URL, LOAD_RUNS=3, EDITS=15, PARTS=load,presets,heavy)
import { readFileSync } from 'node:fs';
import { url as BASE, launchFresh, workload, paste, traceTasks, replaceText, commentEdits } from './fresh.mjs';
import { floor } from './floor.mjs';

const LOAD_RUNS = Number(process.env.LOAD_RUNS ?? 3);
const EDITS = Number(process.env.EDITS ?? 15);
const PARTS = (process.env.PARTS ?? 'load,presets,heavy').split(',');
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
const row = (what, figure, budget, ok) => rows.push(`| ${what} | ${figure} | ${budget} | ${ok === undefined ? '' : ok ? 'ok' : '**over**'} |`);

// ---- first load ------------------------------------------------------------------------------
const watchEditable = () => {
  const frame = () => {
    const el = document.getElementById('source');
    if (el?.value && !el.disabled && el.offsetParent !== null) window.__editable = performance.now();
    else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
};
for (const c of !PARTS.includes('load') ? [] : [
  { name: '10 Mbit/s, 40 ms', network: { latency: 40, down: 10e6 / 8, up: 10e6 / 8 }, cpu: 1 },
  { name: '10 Mbit/s, 40 ms, CPU 4× slower', network: { latency: 40, down: 10e6 / 8, up: 10e6 / 8 }, cpu: 4 },
  { name: 'loopback', network: null, cpu: 1 },
]) {
  const editable = [], results = [], longest = [];
  for (let r = 0; r < LOAD_RUNS; r++) {
    const ctx = await launchFresh();
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    if (c.network) {
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false, latency: c.network.latency, downloadThroughput: c.network.down, uploadThroughput: c.network.up,
      });
    }
    if (c.cpu > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: c.cpu });
    await page.addInitScript(watchEditable);
    const trace = c.cpu === 1 ? await traceTasks(page, 0) : null;
    await page.goto(BASE);
    await page.waitForFunction(() => window.__editable, null, { timeout: 60000 });
    await page.waitForSelector('body[data-ran]', { state: 'attached', timeout: 60000 });
    const t = await page.evaluate(() => ({ editable: window.__editable, ran: performance.getEntriesByName('stagecraft:ran')[0]?.startTime }));
    editable.push(t.editable);
    results.push(t.ran);
    const tasks = trace ? await trace.stop() : null;
    if (tasks?.length) longest.push(Math.max(...tasks.map(([, , cpu]) => cpu ?? 0)));
    await ctx.close();
  }
  const e = median(editable), f = median(results);
  row(`first load, ${c.name}: editor editable (median of ${LOAD_RUNS})`, `${e.toFixed(0)} ms`, c.cpu === 1 && c.network ? '800 ms' : '—', c.cpu === 1 && c.network ? e <= 800 : undefined);
  row(`first load, ${c.name}: full results drawn`, `${f.toFixed(0)} ms`, c.cpu === 1 && c.network ? '1.5 s' : '—', c.cpu === 1 && c.network ? f <= 1500 : undefined);
  if (longest.length) row(`first load, ${c.name}: longest main-thread task (CPU, worst run)`, `${Math.max(...longest)} ms`, '50 ms', Math.max(...longest) <= 50);
}

// ---- presets: edit → painted, and the longest task --------------------------------------------
const ctx = await launchFresh();
const page = await ctx.newPage();
await page.goto(BASE);
await page.waitForSelector('body[data-ran]', { state: 'attached', timeout: 60000 });
const presets = !PARTS.includes('presets') ? []
  : await page.$$eval('#presets option', os => os.map(o => o.value).filter(Boolean));
const count = a => page.evaluate(a => Number(document.body.getAttribute(a) ?? 0), a);
/** Replaces the editor's text; resolves once its exploration is painted and run. */
const edit = text => replaceText(page, text, ['data-explored', 'data-ran']);
if (presets.length) {
  // What the browser alone takes, typed between the app's runs so the machine's load is alike.
  const bare = median(await floor(readFileSync(new URL('../examples/rfc_a_async_copy.py', import.meta.url), 'utf8'), EDITS));
  row(`edit → painted on a bare textarea whose text a worker echoes, RFC (a)'s text: the floor (median of ${EDITS})`, `${bare.toFixed(1)} ms`, '—');
}
for (const preset of presets) {
  const trace = await traceTasks(page, 0);
  await page.selectOption('#presets', preset);
  await page.waitForTimeout(1000);
  const base = await page.inputValue('#source');
  // Each edit is a key typed into a comment after the loop, as a person types: every preset takes
  // it, and the panes redraw what it changes (EDIT_BY=replace: the whole text replaced instead).
  const typed = await commentEdits(page, base, ['data-explored', 'data-ran']);
  const painted = [], ran = [];
  for (let k = 0; k < EDITS; k++) {
    await page.evaluate(() => performance.clearMeasures());
    const t0 = await page.evaluate(() => performance.now());
    await typed(k);
    const m = await page.evaluate(t0 => ({
      painted: performance.getEntriesByName('stagecraft:edit-to-painted').at(-1)?.duration,
      ran: performance.getEntriesByName('stagecraft:ran').filter(e => e.startTime > t0).at(-1)?.startTime - t0,
    }), t0);
    if (m.painted !== undefined) painted.push(m.painted);
    if (Number.isFinite(m.ran)) ran.push(m.ran);
    await page.waitForTimeout(50);
  }
  const tasks = await trace.stop() ?? [];
  const cpu = Math.max(0, ...tasks.map(([, , c]) => c ?? 0));
  const p = median(painted);
  if (process.env.EACH) console.error(preset, painted.map(x => x.toFixed(1)).join(' '));
  row(`edit → program painted, ${preset} (median of ${painted.length})`, `${p.toFixed(1)} ms`, '16 ms', p <= 16);
  row(`edit → verification and timeline drawn, ${preset} (median)`, `${median(ran).toFixed(1)} ms`, '—');
  row(`longest main-thread task, ${preset} loaded and edited ${EDITS}× (CPU)`, `${cpu} ms`, '50 ms', cpu <= 50);
}

// ---- across threads: the worker's verification and machine-level check of cooperative presets ---
// The worker's own milliseconds for each part, as the header's timing says them (its title).
const workerMs = what => page.evaluate(w => {
  const m = (document.querySelector('header .timing')?.title ?? '').match(new RegExp(`${w} (?:took )?(\\d+(?:\\.\\d+)?) ms`));
  return m ? Number(m[1]) : undefined;
}, what);
const threadPresets = !PARTS.includes('threads') ? []
  : await page.$$eval('#presets option', os => os.map(o => o.value).filter(v => /^(CUTLASS|CDNA4)/.test(v)));
for (const preset of threadPresets) {
  await page.click('#tab-program');
  await page.selectOption('#presets', preset);
  await page.waitForTimeout(1000);
  const base = await page.inputValue('#source');
  const verify = [];
  for (let k = 0; k < 3; k++) {
    await edit(`${base}\n# run ${k}\n`);
    const ms = await workerMs('then verifying');
    if (ms !== undefined) verify.push(ms);
  }
  const who = preset.startsWith('CDNA4') ? '512 threads in 8 waves' : '128 threads';
  row(`verification in the worker, ${preset} (the interpreter, across its ${who}; median of ${verify.length})`, `${median(verify)} ms`, '—');
  await page.click('#tab-code');
  const targets = await page.$$eval('#target option', os => os.map(o => o.value));
  for (const target of targets.filter(t => /^(ptx|amdgpu-gfx950)$/.test(t))) {
    const machine = [];
    for (let k = 0; k < 3; k++) {
      await page.selectOption('#target', target);
      await edit(`${base}\n# ${target} ${k}\n`);
      // The header's timing is that of the newest exploration: the figure is this check's.
      await page.waitForFunction(() => /checking the kernel on the machine took/.test(document.querySelector('header .timing')?.title ?? ''), null, { timeout: 60000 });
      const ms = await workerMs('checking the kernel on the machine');
      if (ms !== undefined) machine.push(ms);
    }
    const said = await page.locator('#code .machine').textContent();
    const executed = /executed: same outputs/.test(said);
    row(`machine-level check in the worker, ${preset}, ${target} (${executed ? 'executed, same outputs' : said.trim().slice(0, 60)}; median of ${machine.length})`, `${median(machine)} ms`, '—');
  }
  await page.click('#tab-program');
}

// ---- the heaviest loops: pasted, computed, typed into -----------------------------------------
await page.evaluate(() => {
  window.__events = [];
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) window.__events.push([e.name, e.duration]);
  }).observe({ type: 'event', durationThreshold: 16, buffered: false });
});
for (const [n, stages, extent] of !PARTS.includes('heavy') ? [] : [[159, 64, 64], [159, 8, 5000]]) {
  const text = workload('heavy', n, stages, extent);
  await page.evaluate(() => { window.__events.length = 0; });
  const trace = await traceTasks(page, 0);
  await paste(page, text);
  await page.locator('#source').focus();
  await page.keyboard.press('Control+End');
  // On a line of its own: the generated text ends without a newline.
  const typed = '\n# typed while it computes';
  await page.keyboard.type(typed, { delay: 30 });
  // The heavy loop is a slow text: once its exploration is known to be slow, keystrokes pause the
  // worker, and the last text is explored once typing pauses; its verification and timeline are
  // drawn after that.
  const last = await page.evaluate(() => performance.now());
  await page.waitForFunction(t => performance.getEntriesByName('stagecraft:ran').some(e => e.startTime > t), last, { timeout: 120000 });
  await page.waitForTimeout(500);
  const tasks = await trace.stop() ?? [];
  const cpu = Math.max(0, ...tasks.map(([, , c]) => c ?? 0));
  const wall = Math.max(0, ...tasks.map(([, w]) => w));
  const keys = (await page.evaluate(() => window.__events)).filter(([name]) => /^key|^input|^beforeinput/.test(name));
  const worst = keys.length ? Math.max(...keys.map(e => e[1])) : 0;
  const landed = (await page.inputValue('#source')) === text + typed;
  row(`heavy ${n} × ${stages} stages × ${extent}: longest main-thread task, pasted and computed (CPU / wall)`, `${cpu} / ${wall} ms`, '50 ms', cpu <= 50);
  row(`heavy ${n} × ${stages} × ${extent}: worst keystroke → paint while the worker computes${landed ? '' : ' (KEYSTROKES LOST)'}`, keys.length ? `${worst.toFixed(0)} ms` : '< 16 ms', '50 ms', landed && worst <= 50);
}

// ---- the schedule search in the page ---------------------------------------------------------
const searchPresets = !PARTS.includes('search') ? []
  : await page.$$eval('#presets option', os => os.map(o => o.value).filter(v => /^(RFC|CUTLASS|CDNA4)/.test(v)));
if (searchPresets.length) await page.click('#tab-search');
for (const preset of searchPresets) {
  await page.selectOption('#presets', preset);
  await page.waitForTimeout(1500);
  const before = await count('data-searched');
  const trace = await traceTasks(page, 0);
  // The bar's values while it runs, sampled every frame.
  await page.evaluate(() => {
    window.__bar = [];
    const look = () => {
      const v = document.querySelector('#search-progress')?.getAttribute('value');
      if (v !== undefined && v !== null && window.__bar.at(-1) !== v) window.__bar.push(v);
      if (!window.__barStop) requestAnimationFrame(look);
    };
    window.__barStop = false;
    requestAnimationFrame(look);
  });
  const t0 = await page.evaluate(() => performance.now());
  await page.click('#search-start');
  await page.waitForFunction(n => Number(document.body.getAttribute('data-searched') ?? 0) > n, before, { timeout: 120000 });
  const t1 = await page.evaluate(() => { window.__barStop = true; return performance.now(); });
  const tasks = await trace.stop() ?? [];
  const cpu = Math.max(0, ...tasks.map(([, , c]) => c ?? 0));
  const status = await page.locator('#search-status').textContent();
  const tried = status.match(/^(\d+) schedules tried/)?.[1] ?? '?';
  const front = await page.locator('#search-front tr.front-row').count();
  const bar = await page.evaluate(() => window.__bar.length);
  const ms = t1 - t0;
  const exhaustive = /every schedule of the space was tried/.test(status);
  // The budget in the browser is the CUTLASS and CDNA4 presets'; RFC (a)–(e)'s is native.
  const budgeted = /^(CUTLASS|CDNA4)/.test(preset);
  row(`search in the page, ${preset}: ${tried} schedules, front of ${front}${exhaustive ? '' : ' (local search)'}, the bar at ${bar} values`,
    `${ms.toFixed(0)} ms`, budgeted ? '2 s' : '—', budgeted ? ms <= 2000 : undefined);
  row(`longest main-thread task while ${preset} is searched (CPU)`, `${cpu} ms`, '50 ms', cpu <= 50);
}
await ctx.close();

console.log('| browser budget (Chromium) | figure | budget | |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(r);
