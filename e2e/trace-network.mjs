// What a first load at 10 Mbit/s and a 40 ms round trip waits on (docs/benchmarks.md, first
// load): RUNS (3) fresh, cold loads of the served build, each printing every resource's request
// start, first byte and end (Resource Timing, ms from navigation, the worker's own fetches
// included as the page sees them), the app's marks, when the editor became editable and when the
// default example's results were drawn. Serve a release build and run:
//   node e2e/trace-network.mjs            (CPU=4 throttles the CPU too; NET=0 loopback)
import { url, launchFresh } from './fresh.mjs';

const runs = Number(process.env.RUNS || 3);
const cpu = Number(process.env.CPU || 1);
const net = process.env.NET !== '0';
for (let r = 0; r < runs; r++) {
  const ctx = await launchFresh();
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (net) {
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8 });
  }
  if (cpu > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
  await page.addInitScript(() => {
    const frame = () => {
      const el = document.getElementById('source');
      if (el?.value && !el.disabled && el.offsetParent !== null) window.__editable = performance.now();
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  await page.goto(url);
  await page.waitForFunction(() => window.__editable, null, { timeout: 60000 });
  await page.waitForSelector('body[data-ran]', { state: 'attached', timeout: 60000 });
  const t = await page.evaluate(() => ({
    editable: window.__editable,
    resources: performance.getEntriesByType('resource').map(e => [e.name.split('/').pop(), e.startTime, e.responseStart, e.responseEnd, e.encodedBodySize]),
    marks: performance.getEntriesByType('mark').map(e => [e.name, e.startTime]),
    nav: performance.getEntriesByType('navigation').map(e => [e.responseStart, e.responseEnd, e.domContentLoadedEventEnd]),
  }));
  console.log(`run ${r}: editable ${t.editable.toFixed(0)} ms, html ${t.nav[0].map(x => x.toFixed(0)).join('/')}`);
  for (const [n, s, fb, e, b] of t.resources) console.log(`  ${n.slice(0, 48).padEnd(48)} ${s.toFixed(0).padStart(5)} ${fb.toFixed(0).padStart(5)} ${e.toFixed(0).padStart(5)}  ${(b / 1024).toFixed(1)} KB`);
  const seen = new Set();
  for (const [n, s] of t.marks) if (!seen.has(n)) { seen.add(n); console.log(`  mark ${n} ${s.toFixed(0)}`); }
  await ctx.close();
}
