// Long tasks of hostile and degenerate texts within the limits (e2e/fresh.mjs, `hostileTexts`):
// each is pasted into a page that has explored the default example, with the pane given shown, and
// the page is watched until its results and runs are written and a second after. Serve a release
// build (scripts/build-web.sh, `scripts/serve-dist.py 8791`) and run:
//   RUNS=2 node e2e/stress.mjs [NAME[:pane]] ...   (no NAME: every text in the program pane)
// Prints, per run: long tasks from the paste on (start:duration, ms, from the paste), how many
// problems the page lists, and the header's timing.
import { url, launchFresh, closeShared, explored, paste, hostileTexts as texts } from './fresh.mjs';

const runs = Number(process.env.RUNS || 2);
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(texts);
for (const arg of chosen) {
  const [name, pane = 'program'] = arg.split(':');
  const text = texts[name];
  if (text === undefined) throw new Error(`no text ${name}; there are: ${Object.keys(texts).join(', ')}`);
  for (let r = 0; r < runs; r++) {
    const ctx = await launchFresh();
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    await page.goto(url);
    await explored(page);
    await page.click(`#tab-${pane}`);
    await page.waitForTimeout(1500);
    await page.evaluate(() => {
      window.__lt = [];
      new PerformanceObserver(l => { for (const e of l.getEntries()) window.__lt.push([e.startTime, e.duration]); })
        .observe({ type: 'longtask' });
    });
    const before = await page.evaluate(() => Number(document.body.getAttribute('data-explored') ?? 0));
    const at = await paste(page, text);
    if (at === null) {
      await page.waitForTimeout(1000);
      const tasks = await page.evaluate(() => window.__lt);
      const banner = await page.locator('.banner').textContent().catch(() => '(no banner)');
      console.log(`${name}:${pane} #${r} refused; long tasks [${tasks.map(([, d]) => Math.round(d)).join(' ') || 'none'}] | ${banner}`);
      await ctx.close();
      continue;
    }
    // An invalid text is explored but has no runs to wait for.
    const t0 = Date.now();
    await page.waitForFunction(n => Number(document.body.getAttribute('data-explored') ?? 0) > n, before, { timeout: 60000 });
    const waited = Date.now() - t0;
    await page.waitForTimeout(1500);
    const tasks = await page.evaluate(() => window.__lt);
    const long = tasks.map(([s, d]) => `${Math.round(s - at)}:${Math.round(d)}`).join(' ') || 'none';
    const problems = await page.locator('.problems li').count();
    const timing = await page.locator('.timing').getAttribute('title');
    console.log(`${name}:${pane} #${r} long tasks [${long}] problems listed ${problems}, explored after ${waited} ms | ${timing}${errors.length ? ` | errors: ${errors.join('; ')}` : ''}`);
    await ctx.close();
  }
}
await closeShared();
