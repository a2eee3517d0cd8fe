import { url as BASE, launchFresh, paste } from '/work/main/e2e/fresh.mjs';
import { readFileSync } from 'node:fs';
const ctx = await launchFresh();
const page = await ctx.newPage();
page.on('pageerror', e => console.log('pageerror', String(e)));
await page.goto(BASE);
await page.waitForSelector('body[data-ran]', { state: 'attached', timeout: 60000 });
const text = readFileSync(process.argv[2], 'utf8');
await page.evaluate(() => performance.mark('probe:paste'));
await paste(page, text);
await page.locator("#source").focus(); await page.keyboard.press("Control+End"); await page.keyboard.type("# typed while it computes", { delay: 30 });
await page.evaluate(() => performance.mark('probe:typed'));
await page.waitForTimeout(8000);
const s = await page.evaluate(() => {
  const t0 = performance.getEntriesByName('probe:paste')[0].startTime;
  return { e: document.body.dataset.explored, r: document.body.dataset.ran,
    marks: performance.getEntries().filter(m => (m.entryType === 'mark' || m.entryType === 'measure') && m.startTime >= t0 - 1 && !/decode-(start|end)/.test(m.name))
      .map(m => `${(m.startTime - t0).toFixed(0)} ${m.name.replace('stagecraft:', '')}${m.entryType === 'measure' ? '=' + m.duration.toFixed(0) : ''}`) };
});
console.log(s.e, s.r, s.marks.join('\n'));
await ctx.close();
