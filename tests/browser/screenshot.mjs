// Screenshots of an HTML report as a person sees it, for looking at by eye (not a test:
// report_test.mjs asserts the layout). Opens REPORT.html in headless Chromium in a window
// WIDTH px wide (default 1400), optionally at #sample=ID, and writes into OUT_DIR the
// whole page (page.png), the page a window (1000 px) at a time (window-01.png, ...) and
// each section of it (scores.png, runs.png, paper.png, plots.png, browser.png), with
// the page's width and the window's on stdout.
//   node tests/browser/screenshot.mjs REPORT.html OUT_DIR [WIDTH] [SAMPLE_ID]
import {existsSync, mkdirSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const puppeteer = createRequire(path.join(here, '..', '..', 'web', 'package.json'))('puppeteer-core');
const [file, out, width = '1400', sample] = process.argv.slice(2);
if (!file || !out) {
  console.error('usage: node tests/browser/screenshot.mjs REPORT.html OUT_DIR [WIDTH] [SAMPLE_ID]');
  process.exit(2);
}
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromium) {
  console.error('screenshot: error: no chromium (scripts/install-deps --test installs it)');
  process.exit(2);
}
mkdirSync(out, {recursive: true});
const browser = await puppeteer.launch({executablePath: chromium, headless: true, timeout: 180000,
                                        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']});
try {
  const page = await browser.newPage();
  await page.setViewport({width: Number(width), height: 1000});
  await page.goto(pathToFileURL(file).href + (sample ? `#sample=${encodeURIComponent(sample)}` : ''));
  await page.waitForSelector('body[data-ready]', {timeout: 300000});
  console.log(JSON.stringify(await page.evaluate(() => ({
    page_width: document.scrollingElement.scrollWidth, window_width: innerWidth,
    page_height: document.scrollingElement.scrollHeight}))));
  await page.screenshot({path: path.join(out, 'page.png'), fullPage: true});
  // The page a window at a time, from the top, each at full size.
  const height = await page.evaluate(() => document.scrollingElement.scrollHeight);
  for (let y = 0, k = 1; y < height; y += 1000, k++) {
    await page.screenshot({path: path.join(out, `window-${String(k).padStart(2, '0')}.png`),
                           clip: {x: 0, y, width: Number(width), height: Math.min(1000, height - y)},
                           captureBeyondViewport: true});
  }
  for (const id of ['scores', 'runs', 'paper', 'plots', 'browser']) {
    const el = await page.$(`#${id}`);
    if (el) await el.screenshot({path: path.join(out, `${id}.png`)});
  }
} finally {
  await browser.close();
}
