// Loads a perfx speedscope export into the real speedscope app (npm `speedscope`,
// which ships the built app) in headless Chromium and checks that it imports the file
// and renders its profiles.
// usage: node speedscope.test.mjs FILE.speedscope.json --profile "NAME SUBSTRING" [--count N]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { launch, openPage, check, args } from './lib.mjs';

const a = args(process.argv.slice(2));
const file = path.resolve(a._[0]);
const require = createRequire(import.meta.url);
const app = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist/release/index.html');
check(fs.existsSync(app), `speedscope app at ${app}`);

const browser = await launch();
try {
  const { page, requests, errors } = await openPage(browser);
  await page.goto(pathToFileURL(app).href);
  await page.waitForSelector('input[type=file]', { state: 'attached' });
  await page.setInputFiles('input[type=file]', file);
  // After import speedscope shows the profile name ("<name> (i/N)") in its toolbar.
  const want = a.profile || '';
  await page.waitForFunction((w) => document.body.innerText.includes(w) &&
    !/Something went wrong|Unrecognized format/i.test(document.body.innerText), want, { timeout: 20000 })
    .catch(() => {});
  const text = await page.evaluate(() => document.body.innerText);
  check(!/Unrecognized format|Something went wrong|error/i.test(text.slice(0, 2000)),
    'speedscope reports no import error');
  check(text.includes(want), `speedscope shows the profile "${want}"`);
  if (a.count) {
    check(text.includes(`/${a.count})`), `speedscope lists ${a.count} profiles`);
  }
  const canvases = await page.locator('canvas').count();
  check(canvases > 0, `speedscope drew ${canvases} canvases`);
  check(errors.length === 0, `no page errors ${JSON.stringify(errors)}`);
  const remote = requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:'));
  check(remote.length === 0, `no network requests (${JSON.stringify(remote)})`);
  if (a.screenshot) await page.screenshot({ path: a.screenshot });
} finally {
  await browser.close();
}
