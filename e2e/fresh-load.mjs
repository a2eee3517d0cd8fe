// Long tasks of opening a page whose text is already a loop, RUNS times per file (a browser of its
// own per run, so that V8 has optimized nothing yet): docs/limits.md, "The first large exploration of
// a page". The state comes from this browser's storage (a reload of saved work) or, with `:link`,
// from the URL's hash (a shared link). Serve a release build (scripts/build-web.sh, then
// `python3 -m http.server 8791 -d dist`) and run:
//   RUNS=5 node e2e/fresh-load.mjs LOOP[:pane[:storage|link[:target]]] ...
// LOOP is a file or a generated loop, e.g. `heavy-159-64-64` (fresh.mjs, `loopText`); `default`
// opens a page with nothing saved: the default example.
// With PASTE_AFTER=ms it instead opens the default example and pastes LOOP that many
// milliseconds after the page is first drawn (before the warm-up has finished).
// Prints, per run: long tasks from navigation on (start:duration, ms), when the text is first
// drawn, when the first exploration's result is written (`data-explored`) and when its verification
// and timeline are (`data-ran`), ms from navigation, the warm-up steps, and the header's timing.
import { url, loopText, launchFresh, closeShared, savedState, openWith, explored, paste } from './fresh.mjs';

const runs = Number(process.env.RUNS || 5);
const pasteAfter = process.env.PASTE_AFTER === undefined ? null : Number(process.env.PASTE_AFTER);

// Installed before the app's script: every long task, and when the text, the results and the runs
// first reach the page (the times a user would see them, less the paint).
const observe = () => {
  window.__lt = [];
  window.__at = {};
  window.__last = {};
  new PerformanceObserver(l => {
    for (const e of l.getEntries()) window.__lt.push([Math.round(e.startTime), Math.round(e.duration)]);
  }).observe({ type: 'longtask', buffered: true });
  const seen = () => {
    const now = performance.now();
    const source = document.getElementById('source');
    if (window.__at.text === undefined && source && source.value.length > 0) window.__at.text = now;
    for (const a of ['data-explored', 'data-ran']) {
      if (document.body?.hasAttribute(a) && document.body.getAttribute(a) !== window.__last[a]?.[1]) {
        window.__at[a] ??= now;
        window.__last[a] = [now, document.body.getAttribute(a)];
      }
    }
  };
  // The textarea's value is a property, not a mutation: looked at before each frame is drawn.
  const frame = () => { seen(); if (window.__at.text === undefined) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  new MutationObserver(seen).observe(document, { subtree: true, childList: true, attributes: true,
    attributeFilter: ['data-explored', 'data-ran'] });
};

for (const arg of process.argv.slice(2)) {
  const [file, pane = 'program', how = 'storage', target] = arg.split(':');
  // `default`: a page with nothing saved, which opens the default example.
  const text = file === 'default' ? null : loopText(file);
  const state = pasteAfter === null && text !== null ? await savedState(text, pane, target) : null;
  for (let r = 0; r < runs; r++) {
    const ctx = await launchFresh();
    const page = await ctx.newPage();
    await page.addInitScript(observe);
    await openWith(page, state, how);
    let before = 0;
    if (pasteAfter !== null) {
      await page.waitForFunction(() => window.__at.text !== undefined, null, { polling: 'raf' });
      await page.waitForTimeout(pasteAfter);
      before = await page.evaluate(() => Number(document.body.getAttribute('data-explored') ?? 0));
      await paste(page, text);
    }
    // Done once an exploration after the paste (if any) is written and its runs are too.
    await explored(page, before);
    await page.waitForTimeout(1500);
    const { lt, at, last, warm, pasted, dom } = await page.evaluate(() => ({
      lt: window.__lt, at: window.__at, last: window.__last,
      warm: performance.getEntriesByName('stagecraft:warm-up-step').map(e => `${Math.round(e.startTime)}+${e.duration.toFixed(0)}`).join(' '),
      pasted: performance.getEntriesByName('stagecraft:recompute').at(-1)?.startTime,
      dom: performance.getEntriesByName('stagecraft:dom').at(-1)?.startTime,
    }));
    const timing = await page.locator('.timing').getAttribute('title');
    const ms = v => (v === undefined ? '-' : Math.round(v));
    const long = lt.filter(([, d]) => d > 50).map(([s, d]) => `${s}:${d}`).join(' ') || 'none';
    console.log(`${file.split('/').pop()}:${pane}${target ? `/${target}` : ''}:${pasteAfter === null ? how : `paste@${pasteAfter}`} #${r} long tasks [${long}] text ${ms(at.text)} last recompute ${ms(pasted)}, its DOM ${ms(dom)}, explored ${ms(at['data-explored'])}${pasteAfter === null ? '' : `…${ms(last['data-explored'][0])}`} ran ${ms(at['data-ran'])}${pasteAfter === null ? '' : `…${ms(last['data-ran'][0])}`} | warm-up [${warm}] | ${timing}`);
    await ctx.close();
  }
}
await closeShared();
