// What drawing costs per unit drawn (`budget::drawn_units`), as the app learns it, and edit →
// painted, per preset: loads each preset, types EDITS trailing comments (one input event each, as
// a keystroke makes) and prints, after each, the app's drawing rate (ms per unit, the median it
// estimates with), the units of the program and edit → painted. Serve a release build and run:
//   node e2e/drawing-rate.mjs [PANE]
import { chromium } from 'playwright-core';
import { url, executablePath, args, viewport, explored } from './fresh.mjs';

const [pane = 'program'] = process.argv.slice(2);
const edits = Number(process.env.EDITS || 5);
const browser = await chromium.launch({ executablePath, args });
const page = await browser.newPage({ viewport });
await page.goto(url);
await explored(page);
await page.click(`#tab-${pane}`);
const presets = await page.locator('#presets option').evaluateAll(os => os.map(o => o.value).filter(v => v));
const rows = [];
for (const preset of presets) {
  await page.selectOption('#presets', preset);
  await page.waitForTimeout(600);
  const base = await page.inputValue('#source');
  for (let k = 0; k < edits; k++) {
    await page.evaluate(() => performance.clearMeasures());
    await page.$eval('#source', (el, v) => {
      el.value = v;
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
    }, `${base}\n# edit ${k}\n`);
    await page.waitForTimeout(400);
    const m = await page.evaluate(() => ({
      rate: document.body.getAttribute('data-drawing-rate') ?? '',
      painted: performance.getEntriesByName('stagecraft:edit-to-painted').at(-1)?.duration ?? NaN,
    }));
    const [rate, units] = m.rate.split(' ');
    rows.push({ preset: preset.slice(0, 28), edit: k, rate_ms_per_unit: rate, units, painted_ms: m.painted.toFixed(1) });
  }
}
console.table(rows);
await browser.close();
