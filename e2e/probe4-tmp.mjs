import { launchFresh } from './fresh.mjs';
const BASE = process.env.U ?? 'http://127.0.0.1:8791/';
const ctx = await launchFresh();
const page = await ctx.newPage();
await page.addInitScript(() => {
  window.__loaf = [];
  new PerformanceObserver(l => { for (const e of l.getEntries()) window.__loaf.push(e.toJSON()); }).observe({ type: 'long-animation-frame', buffered: true });
});
await page.goto(BASE);
await page.waitForSelector('body[data-ran]', { state: 'attached', timeout: 60000 });
const want = process.env.P ?? 'CDNA4';
const presets = await page.$$eval('#presets option', os => os.map(o => o.value).filter(Boolean));
await page.selectOption('#presets', presets.find(p => p.includes(want))); await page.waitForTimeout(800);
const base = await page.inputValue('#source');
const count = a => page.evaluate(a => Number(document.body.getAttribute(a) ?? 0), a);
for (let k = 0; k < 6; k++) {
  await page.evaluate(() => { performance.clearMeasures(); performance.clearMarks(); window.__loaf = []; });
  const [explored, ran] = [await count('data-explored'), await count('data-ran')];
  await page.$eval('#source', (el, v) => { el.value = v; el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' })); }, `${base}\n# edit ${k}\n`);
  await page.waitForFunction(([e, r]) => Number(document.body.getAttribute('data-explored')) > e && Number(document.body.getAttribute('data-ran')) > r, [explored, ran]);
  await page.waitForTimeout(100);
  const m = await page.evaluate(() => {
    const g = n => performance.getEntriesByName(n)[0]; const e = g('stagecraft:edit-to-painted'), d = g('stagecraft:edit-to-dom'), r = g('stagecraft:recompute'), ds = g('stagecraft:decode-start');
    return { painted: e?.duration.toFixed(1), dom: d?.duration.toFixed(1), rt: (ds?.startTime - r?.startTime).toFixed(1),
      loaf: window.__loaf.map(l => ({ start: (l.startTime - (e?.startTime ?? 0)).toFixed(0), dur: l.duration.toFixed(0), block: l.blockingDuration, render: (l.renderStart ? (l.startTime + l.duration - l.renderStart) : 0).toFixed(0), style: (l.styleAndLayoutStart ? l.startTime + l.duration - l.styleAndLayoutStart : 0).toFixed(0), scripts: l.scripts.map(s => s.invoker + ':' + s.duration.toFixed(0)).join(' ') })) };
  });
  console.log(JSON.stringify(m));
}
await ctx.close();
