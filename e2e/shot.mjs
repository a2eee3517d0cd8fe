// Ad-hoc screenshot: node e2e/shot.mjs URL OUT.png [PANE]
import { launchFresh } from './fresh.mjs';

const [url, out, pane] = process.argv.slice(2);
const ctx = await launchFresh();
const page = await ctx.newPage();
const errors = [];
page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
page.on('pageerror', e => errors.push(String(e)));
await page.goto(url);
await page.waitForSelector('#program .line', { timeout: 20000 });
if (pane) { await page.click(`#tab-${pane}`); await page.waitForTimeout(300); }
await page.screenshot({ path: out });
console.log(errors.length ? errors.join('\n') : 'no console errors');
await ctx.close();
