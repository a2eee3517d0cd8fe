// Typing while the worker computes a heavy loop (docs/benchmarks.md, worst keystroke → paint): a
// Chromium trace of pasting LOOP (a file, or a generated loop such as `heavy-159-64-64`) and
// typing a comment after it, 30 ms a key; then every keystroke the Event Timing API saw over 16
// ms (its duration: from the key to the frame that painted it) and the page's main-thread tasks
// over MIN_MS (4) that ran meanwhile, with what they did. Serve a release build and run:
//   node e2e/trace-typing.mjs heavy-159-64-64
import { chromium } from 'playwright-core';
import { url, executablePath, args, viewport, explored, paste, loopText } from './fresh.mjs';

const text = loopText(process.argv[2] || 'heavy-159-64-64');
const minMs = Number(process.env.MIN_MS || 4);
const browser = await chromium.launch({ executablePath, args });
const page = await browser.newPage({ viewport });
await page.goto(url);
await explored(page);
await page.evaluate(() => {
  window.__events = [];
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) window.__events.push([e.name, e.startTime, e.processingStart, e.processingEnd, e.duration]);
  }).observe({ type: 'event', durationThreshold: 16, buffered: false });
});
await browser.startTracing(page, { categories: ['devtools.timeline', 'toplevel', 'blink.user_timing', 'disabled-by-default-devtools.timeline'] });
const t0 = await page.evaluate(() => performance.mark('trace:origin').startTime);
await paste(page, text);
await page.locator('#source').focus();
await page.keyboard.press('Control+End');
await page.keyboard.type('\n# typed while it computes', { delay: 30 });
const last = await page.evaluate(() => performance.now());
await page.waitForFunction(t => performance.getEntriesByName('stagecraft:ran').some(e => e.startTime > t), last, { timeout: 120000 });
await page.waitForTimeout(300);
const raw = (await browser.stopTracing()).toString();
const events = (await page.evaluate(() => window.__events)).filter(([n]) => /^key|^input|^beforeinput/.test(n));
await browser.close();
const trace = JSON.parse(raw).traceEvents;
const mark = trace.find(e => e.name?.startsWith('stagecraft:'));
const main = trace.find(e => e.name === 'thread_name' && e.args.name === 'CrRendererMain' && e.pid === mark.pid);
const onMain = trace.filter(e => e.pid === main.pid && e.tid === main.tid).sort((a, b) => a.ts - b.ts);
console.log(`keystrokes over 16 ms (name start processing-start processing-end duration, page ms from the paste):`);
for (const [n, s, ps, pe, d] of events) console.log(`  ${n} ${(s - t0).toFixed(0)} +${(ps - s).toFixed(1)} +${(pe - s).toFixed(1)} ${d.toFixed(0)}`);
const interesting = new Set(['EventDispatch', 'TimerFire', 'FireAnimationFrame', 'FunctionCall', 'ParseHTML', 'UpdateLayoutTree',
  'Layout', 'Paint', 'Commit', 'RunMicrotasks', 'HandlePostMessage', 'ProxyMain::BeginMainFrame']);
const inside = (task, min) => onMain.filter(x => x.ph === 'X' && x.ts >= task.ts && x.ts + x.dur <= task.ts + task.dur && interesting.has(x.name) && x.dur > min)
  .map(x => ({ ...x, dur: x.tdur ?? x.dur }))
  .map(x => `${x.name}${x.args?.data?.type ? ':' + x.args.data.type : ''} ${(x.dur / 1000).toFixed(1)}`);
// The worst keystroke and every main-thread task between it and the frame that painted it (page
// times are the trace's less the `trace:origin` mark's).
const origin = trace.find(e => e.name === 'trace:origin' && e.pid === main.pid);
const worst = events.reduce((w, e) => (!w || e[4] > w[4] ? e : w), null);
if (worst && origin) {
  const from = origin.ts + (worst[1] - t0) * 1000, to = from + worst[4] * 1000;
  console.log(`the worst keystroke, ${worst[0]} at ${(worst[1] - t0).toFixed(0)}: ${worst[4].toFixed(0)} ms; the main thread's tasks meanwhile (ms from the key):`);
  for (const task of onMain.filter(e => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && e.ts + e.dur >= from && e.ts <= to && e.dur > 200)) {
    console.log(`  +${((task.ts - from) / 1000).toFixed(1)} ${(task.dur / 1000).toFixed(1)} ms (CPU ${((task.tdur ?? 0) / 1000).toFixed(1)}): ${inside(task, 100).slice(0, 14).join(', ')}`);
  }
}
const first = onMain.find(e => e.name === 'stagecraft:recompute');
console.log(`main-thread tasks over ${minMs} ms (trace ms from the first request):`);
for (const task of onMain.filter(e => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && e.dur >= minMs * 1000 && e.ts >= first.ts)) {
  const marks = onMain.filter(e => e.name.startsWith('stagecraft:') && e.ph !== 'e' && e.ts >= task.ts && e.ts <= task.ts + task.dur).map(e => e.name.slice(11));
  console.log(`  +${((task.ts - first.ts) / 1000).toFixed(0)} ${(task.dur / 1000).toFixed(1)} ms (CPU ${((task.tdur ?? 0) / 1000).toFixed(1)}): ${inside(task, 300).slice(0, 10).join(', ')}${marks.length ? ' | ' + [...new Set(marks)].join(' ') : ''}`);
}
