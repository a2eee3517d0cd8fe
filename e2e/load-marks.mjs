// The app's performance marks and the long tasks of RUNS loads of the default example, each a new
// page of one running browser (docs/limits.md, "The page's own load"): per load, the long tasks
// (start, ms) and the marks (name@ms from navigation); then, for each pair of consecutive marks,
// the median time between them and every run's. No tracing, so no tracing's overhead. Serve a
// release build (scripts/build-web.sh, `python3 -m http.server 8791 -d dist`) and run:
//   RUNS=8 node e2e/load-marks.mjs
import { chromium } from 'playwright-core';
import { url, executablePath, args, viewport, explored } from './fresh.mjs';
const runs = Number(process.env.RUNS || 8);
const browser = await chromium.launch({ executablePath, args });
const segs = {};
for (let r = 0; r < runs; r++) {
  const ctx = await browser.newContext({ viewport });
  const page = await ctx.newPage();
  await page.addInitScript(() => {
    window.__lt = [];
    new PerformanceObserver(l => { for (const e of l.getEntries()) window.__lt.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(url);
  await explored(page);
  await page.waitForTimeout(1200);
  const { marks, lt } = await page.evaluate(() => ({
    marks: performance.getEntriesByType('mark').filter(m => m.name.startsWith('stagecraft:')).map(m => [m.name.slice(11), Math.round(m.startTime)]),
    lt: window.__lt,
  }));
  console.log(`#${r} long tasks ${JSON.stringify(lt)}`);
  console.log('   ' + marks.filter(([n]) => !n.startsWith('warm')).slice(0, 30).map(([n, t]) => `${n}@${t}`).join(' '));
  for (let i = 1; i < marks.length; i++) {
    const k = `${marks[i - 1][0]}→${marks[i][0]}`;
    (segs[k] ??= []).push(marks[i][1] - marks[i - 1][1]);
  }
  await ctx.close();
}
await browser.close();
const med = a => [...a].sort((x, y) => x - y)[a.length >> 1];
for (const [k, v] of Object.entries(segs)) if (v.length >= runs / 2 && !k.includes('warm')) console.log(`${String(med(v)).padStart(5)} ${k} [${v.join(',')}]`);
