// The floor under edit → painted (docs/benchmarks.md): the same measure as bench.mjs's, on a page
// that does nothing but the round trip. A textarea holding PRESET's text (the editor's size and
// font), whose input handler posts the text to a worker that answers at once; the answer is
// written into a pane beside it; "painted" is the end of the first frame after that, marked as
// the app marks it (a timeout set in an animation frame). Keys are typed as bench.mjs types them:
// into a comment after the loop, EDITS (15) times. What the browser itself does for a keystroke
// (editing the textarea, its frame, its own tasks) is all that is left in this figure; the app's
// own median cannot be below it.
//   node e2e/floor.mjs [FILE]         (EDITS; bench.mjs imports `floor`)
import { readFileSync } from 'node:fs';
import { closeShared, launchFresh } from './fresh.mjs';

const worker = `onmessage = e => postMessage(e.data.length);`;
const page_ = `<!doctype html><meta charset=utf-8><style>
body{display:flex;gap:1em;font:14px monospace;margin:0}
textarea{width:45vw;height:90vh;font:inherit;line-height:1.5}
#pane{white-space:pre}</style>
<textarea id=source spellcheck=false autocomplete=off></textarea><div id=pane></div>
<script>
const w = new Worker('/worker.js');
const area = document.getElementById('source'), pane = document.getElementById('pane');
let n = 0;
w.onmessage = e => {
  pane.textContent = 'answer ' + e.data + ' (' + (++n) + ')';
  requestAnimationFrame(() => setTimeout(() => {
    performance.mark('painted');
    performance.measure('edit-to-painted', 'edit', 'painted');
    document.body.dataset.painted = n;
  }));
};
area.addEventListener('input', () => { performance.mark('edit'); w.postMessage(area.value); });
</script>`;
/** The edit → painted figures of `edits` keys typed after `text` on the bare page, sorted. */
export async function floor(text, edits = 15) {
  const ctx = await launchFresh();
  await ctx.route('http://floor.test/', r => r.fulfill({ contentType: 'text/html', body: page_ }));
  await ctx.route('http://floor.test/worker.js', r => r.fulfill({ contentType: 'text/javascript', body: worker }));
  const page = ctx.pages()[0] ?? await ctx.newPage();
  await page.goto('http://floor.test/');
  await page.$eval('#source', (el, t) => { el.value = t; }, text + '\n# ');
  await page.focus('#source');
  await page.keyboard.press('Control+End');
  const painted = [];
  for (let k = 0; k < edits; k++) {
    const before = Number(await page.evaluate(() => document.body.dataset.painted || 0));
    await page.keyboard.press('x');
    await page.waitForFunction(b => Number(document.body.dataset.painted || 0) > b, before);
    painted.push(await page.evaluate(() => performance.getEntriesByName('edit-to-painted').at(-1).duration));
    await page.waitForTimeout(50);
  }
  await ctx.close();
  return painted.sort((a, b) => a - b);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2] || new URL('../examples/rfc_a_async_copy.py', import.meta.url).pathname;
  const edits = Number(process.env.EDITS || 15);
  const painted = await floor(readFileSync(file, 'utf8'), edits);
  const median = painted[painted.length >> 1];
  console.log(`floor, ${file.split('/').pop()}: edit → painted median of ${edits} ${median.toFixed(1)} ms (${painted.map(x => x.toFixed(1)).join(' ')})`);
  await closeShared();
}
