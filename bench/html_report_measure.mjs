// Measures an HTML report in headless Chromium (not a test: speed is measured, never
// asserted in timed tests): the file's size, the time until its tables and plots are
// drawn, and the time of the verdict filter and of a search.
//   node tests/browser/measure.mjs REPORT.html [SEARCH_TEXT]
import {existsSync, statSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const puppeteer = createRequire(path.join(here, '..', '..', 'web', 'package.json'))('puppeteer-core');
const [file, search = 'expected'] = process.argv.slice(2);
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const browser = await puppeteer.launch({executablePath: chromium, headless: true,
                                        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']});
try {
  const page = await browser.newPage();
  await page.setViewport({width: 1400, height: 1000});
  const t0 = Date.now();
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready]', {timeout: 120000});
  const wall = Date.now() - t0;
  const own = await page.$eval('body', (b) => b.dataset.ready);
  const timeOf = async (act) => {
    await act();
    return Number(await page.$eval('#browser-count', (p) => p.dataset.ms));
  };
  const filter = await timeOf(() => page.select('#f-verdict', 'fail'));
  const searchMs = await timeOf(async () => {
    await page.$eval('#f-search', (el, q) => { el.value = q; el.dispatchEvent(new Event('input')); }, search);
  });
  const searchAgain = await timeOf(async () => {
    await page.$eval('#f-search', (el, q) => { el.value = q + 'x'; el.dispatchEvent(new Event('input')); }, search);
  });
  console.log(JSON.stringify({file, megabytes: +(statSync(file).size / 1e6).toFixed(2),
                              load_to_drawn_ms: wall, page_drawn_ms: Number(own),
                              filter_ms: filter, first_search_ms: searchMs, search_ms: searchAgain}));
} finally {
  await browser.close();
}
