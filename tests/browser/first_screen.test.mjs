// The first screen of perfx's flame graphs, in headless Chromium at 1400x900: the graph
// must be in view when the file opens (a screenshot of the area below the controls has
// at least 8 distinct colours, where an empty page has one or two), even for a recording
// with one garbage 128-frame stack. Then the SVG's flamegraph.pl-style interactivity:
// click to zoom, Reset Zoom, Search (through its prompt) with the matched share.
// usage: node first_screen.test.mjs FILE.html FILE.svg --function NAME --percent P
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage, check, args } from './lib.mjs';

const a = args(process.argv.slice(2));
const html = pathToFileURL(path.resolve(a._[0])).href;
const svg = pathToFileURL(path.resolve(a._[1])).href;
const fn = a.function;
const viewport = { width: 1400, height: 900 };

// Distinct colours in rows [top, bottom) of a PNG screenshot, decoded by the browser.
async function coloursBelow(browser, png, top) {
  const { page } = await openPage(browser, viewport);
  const n = await page.evaluate(async ({ data, top }) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + data;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const px = g.getImageData(0, top, img.width, img.height - top).data;
    const seen = new Set();
    for (let i = 0; i < px.length; i += 4) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    return seen.size;
  }, { data: png.toString('base64'), top: Math.round(top) });
  await page.close();
  return n;
}

const browser = await launch();
try {
  // ---- HTML: the graph is on the first screen
  {
    const { page, errors } = await openPage(browser, viewport);
    await page.goto(html);
    await page.waitForSelector('#chart .frame');
    const below = await page.locator('#legend').evaluate((e) => e.getBoundingClientRect().bottom);
    const colours = await coloursBelow(browser, await page.screenshot(), below);
    check(colours >= 8, `HTML: ${colours} distinct colours below the controls on the first screen`);
    const depth = Number(await page.locator('#chart').getAttribute('data-depth'));
    check(depth < 40, `HTML: the chart is as deep as what is drawn (${depth} rows, not 128)`);
    const fnBox = await page.locator(`#chart .frame[data-name="${fn}"]`).first().boundingBox();
    check(fnBox !== null && fnBox.y >= 0 && fnBox.y + fnBox.height <= viewport.height,
      `HTML: ${fn} is in view (y ${fnBox && fnBox.y.toFixed(0)})`);
    check(errors.length === 0, `HTML: no page errors ${JSON.stringify(errors)}`);
    await page.close();
  }
  // ---- SVG: first screen, zoom, search
  {
    const { page, errors } = await openPage(browser, viewport);
    await page.goto(svg);
    await page.waitForSelector('#frames > g');
    const colours = await coloursBelow(browser, await page.screenshot(), 50);
    check(colours >= 8, `SVG: ${colours} distinct colours below the title on the first screen`);
    const height = Number(await page.evaluate(() => document.documentElement.getAttribute('height')));
    check(height <= viewport.height, `SVG: ${height}px tall, within the first screen`);
    const chart = await page.evaluate(() => CHART);  // eslint-disable-line no-undef
    const frame = (name) => page.locator('#frames > g', {
      has: page.locator('title', { hasText: new RegExp(`^${name} \\(`) }) }).first();
    const width = async (loc) => Number(await loc.locator('rect').getAttribute('width'));
    const before = await width(frame(fn));
    await frame(fn).click();
    const after = await width(frame(fn));
    check(Math.abs(after - chart) < 0.5 && after > before,
      `SVG: click zooms ${fn} from ${before.toFixed(1)}px to the chart width ${after.toFixed(1)}px`);
    const hidden = await page.locator('#frames > g[style*="display: none"]').count();
    check(hidden > 0, `SVG: zoom hides ${hidden} frames outside ${fn}`);
    const parents = await page.locator('#frames > g.parent').count();
    check(parents >= 2, `SVG: ${parents} callers of ${fn} stay as full-width bars`);
    check(await page.locator('#unzoom').isVisible(), 'SVG: Reset Zoom is shown');
    await page.click('#unzoom');
    check(Math.abs(await width(frame(fn)) - before) < 0.01, 'SVG: Reset Zoom restores the layout');
    check(await page.locator('#frames > g[style*="display: none"]').count() === 0,
      'SVG: every frame is back');

    page.once('dialog', (d) => d.accept(`^${fn}$`));
    await page.click('#search');
    const painted = await page.locator('#frames > g > rect[fill="rgb(230,0,230)"]').count();
    check(painted > 0, `SVG: search paints ${painted} frames of ${fn}`);
    const names = await page.locator('#frames > g:has(> rect[fill="rgb(230,0,230)"]) > title')
      .allTextContents();
    check(names.every((t) => t.startsWith(`${fn} (`)), 'SVG: only matching frames are painted');
    const matched = await page.locator('#matched').textContent();
    const m = /Matched: ([\d.]+)%/.exec(matched);
    check(m !== null, `SVG: matched share shown: "${matched}"`);
    const want = Number(a.percent);
    check(Math.abs(Number(m[1]) - want) < 0.2,
      `SVG: matched ${m[1]}% is the folded export's ${want.toFixed(2)}%`);
    await page.click('#search');  // now "Reset Search"
    check(await page.locator('#frames > g > rect[fill="rgb(230,0,230)"]').count() === 0,
      'SVG: Reset Search clears the highlight');
    check(errors.length === 0, `SVG: no page errors ${JSON.stringify(errors)}`);
  }
} finally {
  await browser.close();
}
