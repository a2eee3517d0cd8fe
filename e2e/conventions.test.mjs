// The three "Three stages" presets (docs/conventions.md) in the page: each loads from "Load an
// example…", and its program pane shows the body's waits and barriers of the doc's table, every
// barrier with its reason. Screenshots of each program pane at 1500×900.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync } from 'node:fs';
import { launchFresh, openPage } from './fresh.mjs';

const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

/** docs/conventions.md's table: each preset's file, Stagecraft's body waits and barriers. */
function table() {
  const doc = readFileSync(new URL('../docs/conventions.md', import.meta.url), 'utf8').split('\n');
  const cells = l => l.trim().replace(/^\||\|$/g, '').split('|').map(c => c.trim());
  const at = doc.findIndex(l => l.startsWith('| preset |'));
  const header = cells(doc[at]);
  const col = name => { const i = header.indexOf(name); assert.ok(i >= 0, name); return i; };
  const rows = [];
  for (const line of doc.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    const c = cells(line);
    rows.push({
      file: c[col('preset')].replaceAll('`', ''),
      waits: c[col("Stagecraft's waits")].split(',').map(w => Number(w.trim())),
      barriers: Number(c[col("Stagecraft's barriers")]),
    });
  }
  return rows;
}

let ctx;
const errors = [];
before(async () => { ctx = await launchFresh(); });
after(async () => { await ctx?.close(); });

test('each "Three stages" preset shows the waits and barriers of docs/conventions.md, with their reasons', async () => {
  const rows = table();
  assert.equal(rows.length, 3);
  const page = await openPage(ctx, { errors });
  const options = await page.$$eval('#presets option', os => os.map(o => [o.value, o.textContent]));
  for (const row of rows) {
    const convention = row.file.match(/conventions_(\w+)\.py/)[1];
    const [value] = options.find(([, name]) => name.toLowerCase().startsWith(`three stages: ${convention}`)) ?? [];
    assert.ok(value, `no preset for ${row.file} in ${JSON.stringify(options)}`);
    const text = readFileSync(new URL(`../${row.file}`, import.meta.url), 'utf8');
    await page.selectOption('#presets', value);
    await page.waitForFunction(t => document.querySelector('#source').value === t, text, { timeout: 30000 });
    await page.waitForFunction(() => (document.querySelector('#program')?.innerText ?? '').includes('barrier()'),
      null, { timeout: 30000 });
    const program = (await page.locator('#program').innerText()).split('\n');
    const body = program.slice(program.indexOf('# body'), program.indexOf('# epilogue'));
    assert.ok(body.length > 1, program.join('\n'));
    const waits = body.map(l => l.match(/with async_wait_queue\(0, (\d+)\):/)).filter(Boolean).map(m => Number(m[1]));
    const barriers = body.filter(l => l.trim().startsWith('barrier()'));
    assert.deepEqual(waits, row.waits, `${row.file}:\n${body.join('\n')}`);
    assert.equal(barriers.length, row.barriers, `${row.file}:\n${body.join('\n')}`);
    for (const b of barriers) assert.match(b, /# .*(reads|refills) [AB]_smem/, b);
    await page.screenshot({ path: `${SHOTS}conventions-${convention}.png` });
  }
  assert.deepEqual(errors, []);
  await page.close();
});
