import { launchFresh } from './fresh.mjs';
const BASE = process.env.U ?? 'http://127.0.0.1:8791/';
const ctx = await launchFresh();
const page = await ctx.newPage();
await page.goto(BASE);
await page.waitForSelector('body[data-ran]', { state: 'attached', timeout: 60000 });
const presets = await page.$$eval('#presets option', os => os.map(o => o.value).filter(Boolean));
const count = a => page.evaluate(a => Number(document.body.getAttribute(a) ?? 0), a);
for (const p of presets) {
  await page.selectOption('#presets', p); await page.waitForTimeout(500);
  const base = await page.inputValue('#source');
  const rt = [], eng = [];
  for (let k = 0; k < 9; k++) {
    await page.evaluate(() => { performance.clearMeasures(); performance.clearMarks(); });
    const [explored, ran] = [await count('data-explored'), await count('data-ran')];
    await page.$eval('#source', (el, v) => { el.value = v; el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' })); }, `${base}\n# edit ${k}\n`);
    await page.waitForFunction(([e, r]) => Number(document.body.getAttribute('data-explored')) > e && Number(document.body.getAttribute('data-ran')) > r, [explored, ran]);
    const m = await page.evaluate(() => {
      const r = performance.getEntriesByName('stagecraft:recompute')[0]?.startTime, d = performance.getEntriesByName('stagecraft:decode-start')[0]?.startTime;
      const t = [...document.querySelectorAll('[title]')].map(e => e.title).find(t => /exploring/.test(t)) ?? '';
      return { rt: d - r, t };
    });
    rt.push(m.rt); eng.push((m.t.match(/exploring ([\d.]+) ms/) ?? [])[1]);
    await page.waitForTimeout(30);
  }
  rt.sort((a, b) => a - b);
  console.log(p.padEnd(28), 'roundtrip median', rt[4].toFixed(1), 'engine exploring', eng.join(','));
}
await ctx.close();
