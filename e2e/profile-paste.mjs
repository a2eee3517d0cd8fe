// A CPU profile (Chrome DevTools protocol) of pasting LOOP into a page that has explored the default
// example: the functions that took the most self time, JavaScript, DOM bindings and WebAssembly
// (by index unless the build kept names). Serve a release build and run:
//   node e2e/profile-paste.mjs LOOP [PANE]
import { url, launchFresh, closeShared, explored, paste, loopText } from './fresh.mjs';

const text = loopText(process.argv[2]);
const pane = process.argv[3] || 'program';
const ctx = await launchFresh();
const page = await ctx.newPage();
await page.goto(url);
await explored(page);
await page.click(`#tab-${pane}`);
await page.waitForTimeout(1500);
const cdp = await ctx.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
await cdp.send('Profiler.start');
const before = await page.evaluate(() => Number(document.body.getAttribute('data-explored') ?? 0));
await paste(page, text);
await page.waitForFunction(n => Number(document.body.getAttribute('data-explored') ?? 0) > n, before, { timeout: 60000 });
await page.waitForTimeout(1000);
const { profile } = await cdp.send('Profiler.stop');
const dt = new Map();
for (let i = 0; i < profile.samples.length; i++) dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + profile.timeDeltas[i] / 1000);
const self = new Map();
for (const n of profile.nodes) {
  const name = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}`;
  self.set(name, (self.get(name) ?? 0) + (dt.get(n.id) ?? 0));
}
for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(ms.toFixed(1).padStart(7), name);
await ctx.close();
await closeShared();
