// Long tasks of pasting a loop into a fresh page, RUNS times per file (a browser of its own per run,
// as V8 may keep optimized code with the page's resources): the tables of docs/limits.md, "The first
// large exploration of a page". Serve a release build (scripts/build-web.sh, then
// `python3 -m http.server 8791 -d dist`) and run:
//   RUNS=5 node e2e/fresh-paste.mjs LOOP[:pane[:target]] ...   (LOOP: a file or a generated loop such
//   as `heavy-159-64-64`; target: a code target of the code pane, e.g. heavy-159-64-64:code:ptx)
// Prints, per run: the warm-up steps (start + duration, ms), long tasks at load, pasting and typing
// (duration, ms), and the header's timing of the paste.
import { url, loopText, launchFresh, closeShared, paste } from './fresh.mjs';

const runs = Number(process.env.RUNS || 5);

for (const arg of process.argv.slice(2)) {
  const [file, pane = 'program', target] = arg.split(':');
  for (let r = 0; r < runs; r++) {
    const ctx = await launchFresh();
    const page = await ctx.newPage();
    await page.goto(url);
    await page.waitForSelector('#program .line');
    await page.evaluate(() => {
      window.__lt = [];
      new PerformanceObserver(l => { for (const e of l.getEntries()) window.__lt.push([Math.round(e.startTime), Math.round(e.duration)]); })
        .observe({ type: 'longtask', buffered: true });
    });
    const take = () => page.evaluate(() => window.__lt.splice(0));
    await page.click(`#tab-${pane}`);
    if (target) await page.selectOption('#target', target);
    await page.waitForTimeout(Number(process.env.IDLE || 800));
    const load = (await take()).map(([, d]) => d);
    const warm = await page.evaluate(() => performance.getEntriesByName('stagecraft:warm-up-step')
      .map(e => `${Math.round(e.startTime)}+${e.duration.toFixed(1)}`).join(' '));
    await paste(page, loopText(file));
    await page.waitForTimeout(2500);
    const pasted = (await take()).map(([, d]) => d);
    const timing = await page.locator('.timing').getAttribute('title');
    await page.locator('#source').focus();
    await page.keyboard.press('Control+End');
    for (let k = 0; k < 6; k++) await page.keyboard.type(k % 2 ? ' ' : '#', { delay: 30 });
    await page.waitForTimeout(2500);
    const typing = (await take()).map(([, d]) => d);
    console.log(`${file.split('/').pop()}:${pane}${target ? `:${target}` : ''} #${r} warm-up [${warm}] long tasks: load ${JSON.stringify(load)} paste ${JSON.stringify(pasted)} typing ${JSON.stringify(typing)} | ${timing}`);
    await ctx.close();
  }
}
await closeShared();
