// Measures an HTML report in headless Chromium (not a test: speed is measured, never
// asserted): the file's size, the time until its tables and plots are drawn, the time
// of the verdict filter and of a search (the page's own count of its filtering work,
// and until the next frame is drawn), and how smoothly the sample list scrolls (frames
// drawn per second and long tasks while it scrolls, one screen a frame). Prints one
// line of JSON. bench/html_report_bench.sh makes a 10-run report and runs it.
//   node bench/html_report_measure.mjs REPORT.html [SEARCH_TEXT]
import {existsSync, statSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const puppeteer = createRequire(path.join(here, '..', 'web', 'package.json'))('puppeteer-core');
const [file, search = 'expected'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/html_report_measure.mjs REPORT.html [SEARCH_TEXT]');
  process.exit(2);
}
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromium) {
  console.error('html_report_measure: error: no chromium (scripts/install-deps --test installs it)');
  process.exit(2);
}
const browser = await puppeteer.launch({executablePath: chromium, headless: true,
                                        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']});
try {
  const page = await browser.newPage();
  await page.setViewport({width: 1400, height: 1000});
  const t0 = Date.now();
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready]', {timeout: 300000});
  const wall = Date.now() - t0;
  const own = await page.$eval('body', (b) => b.dataset.ready);
  // The page's own time in applyFilters, and the time from the event to the next frame.
  const timeOf = (act) => page.evaluate(async (act) => {
    const t = performance.now();
    if (act.select) {
      const el = document.getElementById(act.select);
      el.value = act.value;
      el.dispatchEvent(new Event('change'));
    } else {
      const el = document.getElementById('f-search');
      el.value = act.search;
      el.dispatchEvent(new Event('input'));
    }
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return {own_ms: Number(document.getElementById('browser-count').dataset.ms),
            to_frame_ms: +(performance.now() - t).toFixed(1),
            count: Number(document.getElementById('browser-count').dataset.count)};
  }, act);
  const samples = await page.evaluate(() => items.length);
  const filter = await timeOf({select: 'f-verdict', value: 'fail'});
  const filterOff = await timeOf({select: 'f-verdict', value: ''});
  // The search index is built in idle slices after the page is drawn (a search before
  // that finishes it first): how long that takes, then the first search.
  await page.waitForSelector('body[data-search-indexed]', {timeout: 300000});
  const indexMs = await page.$eval('body', (b) => Number(b.dataset.searchIndexed) - Number(b.dataset.readyAt));
  const firstSearch = await timeOf({search});
  const searchAgain = await timeOf({search: search + 'x'});
  const searchOff = await timeOf({search: ''});
  // Scrolling the whole list (every sample of every run) one screen a frame for 3 s.
  const scroll = await page.evaluate(async () => {
    const list = document.getElementById('list');
    list.scrollIntoView();
    const long = [];
    const observer = new PerformanceObserver((l) => { for (const e of l.getEntries()) long.push(e.duration); });
    observer.observe({type: 'longtask', buffered: false});
    const gaps = [];
    const t0 = performance.now();
    let last = t0;
    await new Promise((done) => {
      const step = (now) => {
        gaps.push(now - last);
        last = now;
        list.scrollTop = (list.scrollTop + list.clientHeight) % Math.max(1, list.scrollHeight - list.clientHeight);
        if (now - t0 < 3000) requestAnimationFrame(step); else done();
      };
      requestAnimationFrame(step);
    });
    await new Promise((r) => setTimeout(r, 100));
    observer.disconnect();
    gaps.shift();
    gaps.sort((a, b) => a - b);
    const seconds = (last - t0) / 1000;
    return {frames: gaps.length, fps: +(gaps.length / seconds).toFixed(1),
            frame_ms_p50: +gaps[Math.floor(gaps.length * 0.5)].toFixed(1),
            frame_ms_p95: +gaps[Math.floor(gaps.length * 0.95)].toFixed(1),
            frame_ms_max: +gaps[gaps.length - 1].toFixed(1),
            long_tasks: long.length, long_task_ms: +long.reduce((a, b) => a + b, 0).toFixed(0),
            rows_in_document: document.querySelectorAll('#list .row').length};
  });
  console.log(JSON.stringify({file, megabytes: +(statSync(file).size / 1e6).toFixed(2), samples,
                              load_to_drawn_ms: wall, page_drawn_ms: Number(own),
                              filter_fail: filter, filter_off: filterOff,
                              search_index_ms: indexMs, first_search: firstSearch, search: searchAgain, search_off: searchOff,
                              scroll}));
} finally {
  await browser.close();
}
