import { launchFresh, paste } from './fresh.mjs';
const url = process.env.STAGECRAFT_URL;
const src = `# Two queues feeding one consumer
A_sh = alloc([1])
B_sh = alloc([1])
for i in range(12):
    A_sh[0] = A[i]
    B_sh[0] = B[i]
    C[i] = A_sh[0] + B_sh[0]
sch.annotate(i, "software_pipeline_stage", [0, 1, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
`;
for (const [w, h] of [[1500, 900], [900, 700]]) {
  const ctx = await launchFresh();
  const page = await ctx.newPage();
  await page.setViewportSize({ width: w, height: h });
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('body[data-explored]');
  await paste(page, src);
  await page.waitForTimeout(1500);
  for (const pane of ['program', 'verification', 'timeline', 'code']) {
    await page.click(`#tab-${pane}`);
    if (pane === 'code') { await page.selectOption('#target', 'ptx'); }
    await page.waitForTimeout(900);
    await page.screenshot({ path: `/tmp/walk/${w}-${pane}.png` });
  }
  const note = await page.evaluate(() => document.querySelector('#sequence-note')?.textContent ?? '(none)');
  console.log(w, 'sequence note:', note.slice(0, 400));
  console.log(w, errors.length ? errors : 'no errors');
  await ctx.close();
}
process.exit(0);
