import { launchFresh, openPage } from './fresh.mjs';
import { readFileSync } from 'node:fs';
const link = process.argv[2];
const ctx = await launchFresh();
const page = await openPage(ctx, { to: link, introSeen: true });
await page.waitForTimeout(1500);
console.log(await page.$eval('#verification', e => e.innerText));
await ctx.close();
