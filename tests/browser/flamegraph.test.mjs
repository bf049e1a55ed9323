// Opens a perfx HTML flame graph in headless Chromium and checks that it renders, that
// search highlights a function and shows the matched percentage, that clicking zooms,
// that the callees/icicle toggles work, and that the page makes no network request.
// usage: node flamegraph.test.mjs FILE.html --function NAME [--percent P] [--diff 1]
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage, check, args } from './lib.mjs';

const a = args(process.argv.slice(2));
const file = path.resolve(a._[0]);
const fn = a.function || 'main';
const url = pathToFileURL(file).href;

const browser = await launch();
try {
  const { page, requests, errors } = await openPage(browser);
  await page.goto(url);
  await page.waitForSelector('#chart .frame');
  const frames = await page.locator('#chart .frame').count();
  check(frames > 3, `flame graph rendered ${frames} frames`);
  const named = page.locator(`#chart .frame[data-name="${fn}"]`);
  check(await named.count() > 0, `a frame named ${fn} is drawn`);
  const title = await page.title();
  check(title.length > 0, `page title "${title}"`);

  // Tooltip on hover: name, samples, percent.
  await named.first().hover();
  const tip = await page.locator('#tooltip').innerText();
  check(tip.includes(fn) && /\d[\d,]* samples/.test(tip) && /%/.test(tip),
    `tooltip shows samples and percent: ${JSON.stringify(tip.split('\n')[1] || tip)}`);

  // Search: highlight + matched percentage.
  await page.fill('#search', `^${fn}$`);
  await page.press('#search', 'Enter');
  const matches = page.locator('#chart .frame.match');
  const nmatch = await matches.count();
  check(nmatch > 0, `search highlights ${nmatch} frames of ${fn}`);
  const names = await matches.evaluateAll((els) => els.map((e) => e.dataset.name));
  check(names.every((n) => n === fn), 'only matching frames are highlighted');
  const others = await page.locator(`#chart .frame.match:not([data-name="${fn}"])`).count();
  check(others === 0, 'no other frame is highlighted');
  const matchedText = await page.locator('#matched').innerText();
  const m = /Matched: ([\d.]+)%/.exec(matchedText);
  check(m !== null, `matched percentage shown: "${matchedText}"`);
  if (a.percent !== undefined) {
    const want = Number(a.percent);
    check(Math.abs(Number(m[1]) - want) < 0.02, `matched ${m[1]}% equals the expected ${want.toFixed(2)}%`);
  }
  const bg = await matches.first().evaluate((e) => getComputedStyle(e).backgroundColor);
  check(bg === 'rgb(230, 0, 230)', `highlight colour ${bg}`);

  // Click zooms: the clicked frame spans the whole chart width.
  const chartWidth = await page.locator('#chart').evaluate((e) => e.clientWidth);
  const before = await named.first().boundingBox();
  await named.first().click();
  const zoomed = page.locator(`#chart .frame[data-name="${fn}"]:not(.ancestor)`).first();
  const after = await zoomed.boundingBox();
  const state = await page.evaluate(() => window.perfxFlameGraph.state());
  check(state.zoom === fn, `zoomed to ${state.zoom}`);
  check(Math.abs(after.width - chartWidth) < 2 && after.width >= before.width,
    `clicked frame widened from ${before.width.toFixed(1)}px to ${after.width.toFixed(1)}px`);
  await page.click('#reset-zoom');
  check((await page.evaluate(() => window.perfxFlameGraph.state())).zoom === 'all', 'reset zoom');

  // Orientation and callee toggles.
  // The root row goes from the bottom to the top (a frame in the middle row legitimately
  // stays put, which made measuring the searched function flaky).
  const root = page.locator('#chart .frame[data-name="all"]').first();
  const yFlame = (await root.boundingBox()).y;
  await page.click('#toggle-orientation');
  const yIcicle = (await root.boundingBox()).y;
  const icicle = (await page.evaluate(() => window.perfxFlameGraph.state())).icicle;
  check(icicle === true && yIcicle < yFlame,
    `icicle toggle moves the root from the bottom to the top (y ${yFlame} -> ${yIcicle})`);
  await page.click('#toggle-inverted');
  const st = await page.evaluate(() => window.perfxFlameGraph.state());
  check(st.inverted === true && await page.locator('#chart .frame').count() > 3, 'callees view renders');

  check(errors.length === 0, `no page errors ${JSON.stringify(errors)}`);
  const network = requests.filter((u) => u !== url);
  check(network.length === 0, `no network requests besides the file itself (${JSON.stringify(network)})`);
  if (a.screenshot) await page.screenshot({ path: a.screenshot });
} finally {
  await browser.close();
}
