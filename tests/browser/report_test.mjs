// Browser test of the HTML report (html_report.h), in real headless Chromium through
// puppeteer-core: run by ctest (tests/CMakeLists.txt) as
//   node report_test.mjs STRUCTTEST_BINARY WORK_DIR
// It makes two runs of builtin/oracle on 162 html and math samples, the second with
// wrong and missing targets, writes their report, opens it from file:// and checks: no
// request leaves the page (none but the file itself is made), no console error, every
// figure of the score table equals report.json's, the verdict filters "fail" and "error"
// and "different verdicts" list exactly those samples of `structtest export`, search
// finds answers and reasons, a #sample= link opens that sample with both runs' answers,
// and run's own report.html opens too; the error rate is plotted against math_hard's
// reference steps. A third run, of summarization and code against a loopback
// OpenAI-style server the test starts (reporting token usage), checks the tokens and
// cost of its report.html and of `report --format html` against report.json's usage
// block, and its ranks in the paper's Tables 2 and 3. A fourth run, of one summarization
// subtask, shows its summarization Easy as "from 1 of 4 subtasks", and the complete
// runs show no such mark. A report of five runs (the four, and builtin/loophole on run
// 3's samples) checks issue 27 §5 at 1400 px: nothing wider than the window, no label
// cut short, the built-in responders' runs listed apart and unranked (run 3 keeps its
// ranks), the pills in the sample list numbered by run, the target shown as text; and
// the built-in runs' report leaves out the token and latency histograms with a line
// saying why, as it does every parameter of one value. A sixth run, builtin/noisy-0.1
// over composed math samples at every K, draws accuracy by rules per sample beside
// (1 - 0.1)^K; a report without composed subtasks says why it has no such plot. Exits 77 (ctest's
// skip) with a message when Chromium or web/node_modules is missing. Where Firefox is
// installed, the page is opened there too (no console error, the same figures, plots).
import {execFile, execFileSync} from 'node:child_process';
import http from 'node:http';
import {promisify} from 'node:util';
import {existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const web = path.join(here, '..', '..', 'web');
const [binary, work] = process.argv.slice(2);
if (!binary || !work) {
  console.error('usage: node report_test.mjs STRUCTTEST_BINARY WORK_DIR');
  process.exit(2);
}

function skip(why) {
  console.log(`SKIPPED: ${why}`);
  process.exit(77);
}
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromium) skip('no chromium (scripts/install-deps --test installs Debian\'s chromium)');
let puppeteer;
try {
  puppeteer = createRequire(path.join(web, 'package.json'))('puppeteer-core');
} catch (e) {
  skip(`puppeteer-core is not installed in web/node_modules (run scripts/install-deps --test): ${e.message}`);
}

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (!ok) failures++;
}

// Every figure of the score table against report.json.
async function checkTable(page, browserName) {
  const cells = await page.$$eval('#scores-grid td.acc', (tds) => tds.map((td) =>
      ({run: Number(td.dataset.run), key: td.dataset.key, text: td.textContent})));
  let compared = 0;
  const wrong = [];
  for (const c of cells) {
    const rep = reportJson[c.run];
    let v;
    if (c.key.includes('/')) {
      v = rep.subtasks.find((s) => `${s.domain}/${s.subtask}` === c.key).accuracy;
    } else if (c.key.includes(':')) {
      const [d, part] = c.key.split(':');
      v = rep.domains[d][part];
    } else {
      v = rep[c.key];
    }
    compared++;
    if (v.toFixed(2) !== c.text) wrong.push(`${c.run} ${c.key}: page ${c.text}, report.json ${v}`);
  }
  // Every subtask and the html and math Easy and Hard, of both runs.
  const expected = reportJson.reduce((n, r) => n + r.subtasks.length + 4, 0);
  check(compared === expected && wrong.length === 0,
        `${browserName}: ${compared} table figures (of ${expected}) equal report.json (${wrong.join('; ')})`);
}

// Every token and cost figure of the usage table against report.json's usage block.
async function checkUsage(page, what, rep) {
  const cells = await page.$$eval('#usage-grid td.usage', (tds) => tds.map((td) =>
      ({key: td.dataset.key, field: td.dataset.field, text: td.textContent})));
  const wrong = [];
  for (const c of cells) {
    const u = c.key === 'total' ? rep.usage : rep.usage.subtasks.find((t) => `${t.domain}/${t.subtask}` === c.key);
    if (c.field === 'cost_usd') {
      if (c.text !== `$${u.cost_usd.toFixed(4)}`) wrong.push(`${c.key} cost: page ${c.text}, report.json ${u.cost_usd}`);
    } else if (Number(c.text.replace(/,/g, '')) !== u.tokens[c.field]) {
      wrong.push(`${c.key} ${c.field}: page ${c.text}, report.json ${u.tokens[c.field]}`);
    }
  }
  const expected = 4 * (rep.usage.subtasks.length + 1);
  check(cells.length === expected && wrong.length === 0 && rep.usage.tokens.input > 0,
        `${what}: ${cells.length} token and cost figures (of ${expected}) equal report.json's usage (${wrong.join('; ')})`);
}

// The rank a run's row shows in a paper table: one more than the models whose mean over
// the run's subtasks is higher.
function expectedRank(csv, rep) {
  const [head, ...lines] = csv.trim().split(/\r?\n/);
  const names = head.split(',').slice(1);
  const mine = names.map((n) => (rep.subtasks.find((s) => s.subtask === n) || {}).accuracy)
      .map((v, i) => [names[i], v]).filter(([, v]) => v !== undefined);
  const mean = (vals) => vals.reduce((a, b) => a + b, 0) / vals.length;
  const score = mean(mine.map(([, v]) => v));
  const models = lines.map((l) => Object.fromEntries(l.split(',').slice(1).map((v, i) => [names[i], Number(v)])));
  return 1 + models.filter((m) => mean(mine.map(([n]) => m[n])) > score).length;
}

// The page in a 1400 px window (open() sets it): nothing wider than the window (wide
// tables and plots scroll in boxes of their own), no plot label cut short ("…" is how
// Vega shortens one), every subtask named in full on the accuracy plot, and no subtask
// label in the sample list cut off by its row.
async function checkLayout(page, what, subtasks) {
  const r = await page.evaluate(() => ({
    width: document.scrollingElement.scrollWidth, window: innerWidth,
    cut: [...document.querySelectorAll('#plots svg text')].map((t) => t.textContent)
        .filter((t) => t.includes('…')),
    axis: [...document.querySelectorAll('#plot-accuracy svg text')].map((t) => t.textContent),
    rows: document.querySelectorAll('#list .row').length,
    rowsCut: [...document.querySelectorAll('#list .row')].filter((row) => {
      const sub = row.querySelector('.sub');
      return !sub || sub.getBoundingClientRect().right > row.getBoundingClientRect().right;
    }).length,
    // a header whose text is wider than its cell runs into the next one
    headersOver: [...document.querySelectorAll('table.paper th')]
        .filter((th) => th.scrollWidth > th.clientWidth).map((th) => th.textContent),
  }));
  check(r.headersOver.length === 0,
        `${what}: every column name of the paper's tables fits its cell (${JSON.stringify(r.headersOver)})`);
  check(r.window === 1400 && r.width <= r.window,
        `${what}: the page is no wider than the 1400 px window (${r.width})`);
  check(r.cut.length === 0, `${what}: no plot label cut short (${JSON.stringify(r.cut.slice(0, 5))})`);
  const missing = subtasks.filter((k) => !r.axis.includes(k));
  check(missing.length === 0, `${what}: the accuracy plot names every subtask in full (missing ${missing})`);
  check(r.rows > 0 && r.rowsCut === 0, `${what}: every sample row shows its subtask (${r.rowsCut} of ${r.rows} cut)`);
}
const subtasksOf = (...reps) => [...new Set(reps.flatMap((rep) => rep.subtasks.filter((s) => s.ci)
    .map((s) => `${s.domain}/${s.subtask}`)))];

rmSync(work, {recursive: true, force: true});
mkdirSync(work, {recursive: true});
// Run 1: builtin/oracle on a generated samples file (every sample passes). Run 2: the
// oracle on the same samples with a third of the targets made wrong (those fail) and a
// tenth removed (the oracle has nothing to return: request errors), so the run mixes
// pass, fail and error.
const samples = path.join(work, 'samples.jsonl'), mixed = path.join(work, 'mixed.jsonl');
execFileSync(binary, ['generate', '--tasks', 'html,math', '--size', '0.05', '--out', samples],
             {stdio: ['ignore', 'ignore', 'inherit']});
writeFileSync(mixed, readFileSync(samples, 'utf8').trim().split('\n').map((line, i) => {
  const s = JSON.parse(line);
  if (i % 3 === 1) s.target.answer = 'not the answer';
  if (i % 10 === 5) delete s.target.answer;
  return JSON.stringify(s);
}).join('\n') + '\n');
const runs = [[samples, path.join(work, 'oracle')], [mixed, path.join(work, 'mixed')]];
for (const [file, dir] of runs) {
  try {
    execFileSync(binary, ['run', '--model', 'builtin/oracle', '--samples', file, '--out', dir, '--quiet'],
                 {stdio: ['ignore', 'ignore', 'inherit']});
  } catch (e) {
    // Exit 1: finished with errors, still a run.
    if (e.status !== 1) throw e;
  }
}
// Run 2's verdicts, from `structtest export --all`.
const exported = execFileSync(binary, ['export', runs[1][1], '--all'], {stdio: ['ignore', 'pipe', 'ignore']})
    .toString().trim().split('\n').map((l) => JSON.parse(l));
const idsWhere = (f) => exported.filter(f).map((r) => r.id).sort();
const failingIds = idsWhere((r) => r.verdict && !r.verdict.pass);
const erroredIds = idsWhere((r) => r.status === 'error');
const reportFile = path.join(work, 'report.html');
execFileSync(binary, ['report', runs[0][1], runs[1][1], '--format', 'html', '--output', reportFile]);
const reportJson = runs.map(([, dir]) => JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')));

// Run 3: summarization and code against a loopback server that answers half the prompts
// with their target and reports usage for every answer.
const apiSamples = path.join(work, 'api.jsonl'), apiRun = path.join(work, 'api');
execFileSync(binary, ['generate', '--tasks', 'summarization,code', '--limit', '3', '--out', apiSamples],
             {stdio: ['ignore', 'ignore', 'inherit']});
const targetOf = new Map();
for (const line of readFileSync(apiSamples, 'utf8').trim().split('\n')) {
  const s = JSON.parse(line);
  targetOf.set(s.messages[s.messages.length - 1].content, s.target.answer);
}
let asked = 0;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    const prompt = JSON.parse(body).messages.at(-1).content;
    const answer = asked++ % 2 === 0 && targetOf.has(prompt) ? targetOf.get(prompt) : 'I would rather not.';
    const output = 10 + (prompt.length % 90);
    res.writeHead(200, {'content-type': 'application/json'});
    res.end(JSON.stringify({id: 'x', object: 'chat.completion', model: 'fake-model',
      choices: [{index: 0, message: {role: 'assistant', content: answer}, finish_reason: 'stop'}],
      usage: {prompt_tokens: Math.ceil(prompt.length / 4) + 7, completion_tokens: output,
              completion_tokens_details: {reasoning_tokens: Math.floor(output / 3)}}}));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
try {
  await promisify(execFile)(binary, ['run', '--model', 'openai/fake-model', '--base-url',
      `http://127.0.0.1:${server.address().port}/v1`, '--samples', apiSamples, '--out', apiRun,
      '--no-cache', '--quiet', '--price-in', '2', '--price-out', '8'],
      {env: {...process.env, OPENAI_API_KEY: 'sk-test'}});
} catch (e) {
  if (e.code !== 1) throw e;  // 1: finished with failures
} finally {
  server.close();
}
const apiJson = JSON.parse(readFileSync(path.join(apiRun, 'report.json'), 'utf8'));

// Run 4: two of summarization's Easy subtasks, so that its Easy figure is partial, one
// sample each: questions has no parameter, length's one parameter has one value.
const partialRun = path.join(work, 'partial');
execFileSync(binary, ['run', '--model', 'builtin/oracle', '--tasks', 'questions,length', '--limit', '1',
                      '--out', partialRun, '--no-cache', '--quiet'], {stdio: ['ignore', 'ignore', 'inherit']});
const partialJson = JSON.parse(readFileSync(path.join(partialRun, 'report.json'), 'utf8'));
const apiReportFile = path.join(work, 'api-report.html');
execFileSync(binary, ['report', apiRun, '--format', 'html', '--output', apiReportFile]);
// Run 5: a cheater (builtin/loophole) on run 3's samples: it beats the paper's models on
// the paper rules, and must not be ranked among them.
const loopholeRun = path.join(work, 'loophole');
try {
  execFileSync(binary, ['run', '--model', 'builtin/loophole', '--samples', apiSamples, '--out', loopholeRun,
                        '--no-cache', '--quiet'], {stdio: ['ignore', 'ignore', 'inherit']});
} catch (e) {
  if (e.status !== 1) throw e;
}
const loopholeJson = JSON.parse(readFileSync(path.join(loopholeRun, 'report.json'), 'utf8'));
const manyRuns = [runs[0][1], runs[1][1], apiRun, loopholeRun, partialRun];
const manyReportFile = path.join(work, 'many.html');
execFileSync(binary, ['report', ...manyRuns, '--format', 'html', '--output', manyReportFile]);

// Run 6: builtin/noisy-0.1 over composed math samples at every K (issue 52): the plot of
// accuracy by rules per sample, with (1 - 0.1)^K dashed beside it.
const composedSamples = path.join(work, 'composed.jsonl');
let composedLines = '';
for (let k = 1; k <= 8; k++) {
  const file = path.join(work, `composed-k${k}.jsonl`);
  execFileSync(binary, ['generate', '--suite', 'composed', '--tasks', 'math', '--rules-per-sample', String(k),
                        '--limit', '30', '--out', file], {stdio: ['ignore', 'ignore', 'inherit']});
  composedLines += readFileSync(file, 'utf8');
}
writeFileSync(composedSamples, composedLines);
const composedRun = path.join(work, 'noisy');
try {
  execFileSync(binary, ['run', '--model', 'builtin/noisy-0.1', '--samples', composedSamples, '--out', composedRun,
                        '--no-cache', '--quiet'], {stdio: ['ignore', 'ignore', 'inherit']});
} catch (e) {
  if (e.status !== 1) throw e;
}

// A browser's first start on a loaded machine (CI runs tests in parallel) can take
// longer than puppeteer's default 30 s to print its endpoint: wait up to 3 minutes.
const LAUNCH_TIMEOUT_MS = 180000;
const browser = await puppeteer.launch({
  executablePath: chromium, headless: true, timeout: LAUNCH_TIMEOUT_MS,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});

async function open(file) {
  const page = await browser.newPage();
  const requests = [], errors = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    requests.push(req.url());
    // Anything but the page itself would be a request the report must not make.
    if (req.url() === pathToFileURL(file).href) req.continue(); else req.abort();
  });
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewport({width: 1400, height: 1000});
  const t0 = Date.now();
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready]', {timeout: 30000});
  return {page, requests, errors, ms: Date.now() - t0};
}

try {
  const {page, requests, errors, ms} = await open(reportFile);
  console.log(`report of 2 runs painted in ${ms} ms (page's own count ${await page.$eval('body', (b) => b.dataset.ready)} ms)`);
  check(requests.length === 1, `only the file itself is requested (requests: ${JSON.stringify(requests)})`);
  check(errors.length === 0, `no console error (${JSON.stringify(errors)})`);

  await checkTable(page, 'chromium');

  // The error rate against math_hard's reference steps: every scored sample of run 2.
  const steps = await page.evaluate(() => {
    const g = paramGroups().find(([k]) => k === 'math/math_hard');
    const p = g && g[1].params.find((x) => x.name === 'target_steps');
    return p ? {numeric: p.numeric, n: p.values.filter((v) => v.run === runLabel(1)).reduce((a, v) => a + v.n, 0),
                values: p.values.length} : null;
  });
  const hardScored = reportJson[1].subtasks.find((s) => s.subtask === 'math_hard').scored;
  check(steps !== null && steps.numeric && steps.values > 1 && steps.n === hardScored,
        `math_hard's error rate is plotted against its steps (${JSON.stringify(steps)}, ${hardScored} scored)`);
  check((await page.$eval('#plot-params', (d) => d.textContent)).includes('target_steps'),
        'the steps plot is drawn');
  // The built-in runs have no token counts and no latency: those histograms are left
  // out, each with a line saying why, and the answer length is still drawn.
  const dist = await page.$eval('#plot-distributions', (d) => ({
    axes: [...d.querySelectorAll('svg text')].map((t) => t.textContent),
    notes: [...d.querySelectorAll('.omitted')].map((p) => p.textContent)}));
  check(dist.axes.includes('answer length (characters)') && !dist.axes.includes('output tokens') &&
        !dist.axes.includes('latency (ms)'),
        'the built-in runs\' report draws no token or latency histogram, only the answer length');
  check(dist.notes.length === 2 && dist.notes[0].startsWith('Output tokens: left out') &&
        dist.notes[0].includes('no token usage was reported') &&
        dist.notes[1].startsWith('Latency (ms): left out') && dist.notes[1].includes('0 ms'),
        `and says why (${JSON.stringify(dist.notes)})`);
  await checkLayout(page, 'report of 2 runs', subtasksOf(...reportJson));
  // No composed subtask in these runs: the dial's plot is left out, with a line saying why.
  check((await page.$eval('#plot-composed', (d) => d.textContent)).startsWith('Left out: no subtask of the composed suite'),
        'a report without composed subtasks leaves out the plot of accuracy by K, saying why');
  const usageRow = await page.$$eval('#runs-info tr', (trs) =>
      (trs.find((tr) => tr.textContent.startsWith('token usage')) || {}).textContent || '');
  check(usageRow.split('a built-in responder answers in process').length === 3,
        `the built-in responders' runs say why they have no token usage (${usageRow})`);
  // The runs table keeps the errored requests apart from the answers not scored: run 2
  // has errored requests, and every answer of either run has its verdict.
  const infoRow = (name) => page.$$eval('#runs-info tr', (trs, name) => {
    const tr = trs.find((t) => t.querySelector('th') && t.querySelector('th').textContent === name);
    return tr ? [...tr.querySelectorAll('td')].map((td) => td.textContent) : [];
  }, name);
  const notScored = await infoRow('answered, not scored');
  const erroredCells = await infoRow('errored requests');
  check(JSON.stringify(erroredCells) === JSON.stringify(reportJson.map((r) => String(r.errored))) &&
        reportJson[1].errored > 0 && JSON.stringify(notScored) === JSON.stringify(['0', '0']),
        `errored requests ${JSON.stringify(erroredCells)} and answers not scored ${JSON.stringify(notScored)} apart`);

  // The failures filter of run 2: exactly its failing samples.
  const failing = reportJson[1].subtasks.reduce((n, s) => n + s.scored - s.passed, 0);
  await page.select('#f-run', '1');
  await page.select('#f-verdict', 'fail');
  const count = Number(await page.$eval('#browser-count', (p) => p.dataset.count));
  const listed = await page.evaluate(() => shown.map((it) => D.samples[it.s].id).sort());
  check(count === failing && failing > 0 && failing < reportJson[1].samples,
        `"fail" lists ${count} samples of run 2, report.json counts ${failing} failing of ${reportJson[1].samples}`);
  check(JSON.stringify(listed) === JSON.stringify(failingIds), 'they are the samples export gives a failing verdict');
  const badges = await page.$$eval('#list .row', (rows) => rows.map((r) => r.querySelectorAll('.badge')[1].dataset.status));
  check(badges.length > 0 && badges.every((b) => b === 'fail'), `the rows drawn are failing in run 2 (${badges.length} drawn)`);
  check(badges.length < count, `only the visible rows are in the document (${badges.length} of ${count})`);
  await page.select('#f-verdict', 'error');
  const errored = await page.evaluate(() => shown.map((it) => D.samples[it.s].id).sort());
  check(errored.length > 0 && JSON.stringify(errored) === JSON.stringify(erroredIds),
        `"error" lists the ${erroredIds.length} errored samples`);
  // "different": where run 1 (all pass) and run 2 disagree, its failures and errors.
  await page.select('#f-run', '');
  await page.select('#f-verdict', '');
  await page.click('#f-different');
  const different = await page.evaluate(() => shown.map((it) => D.samples[it.s].id).sort());
  check(JSON.stringify(different) === JSON.stringify([...failingIds, ...erroredIds].sort()),
        `"different verdicts" lists the ${different.length} samples run 2 did not pass`);
  await page.click('#f-different');
  await page.select('#f-run', '1');
  // Search finds text of an answer and of a reason, and nothing for absent text.
  const search = async (q) => {
    await page.$eval('#f-search', (el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }, q);
    return Number(await page.$eval('#browser-count', (p) => p.dataset.count));
  };
  const wrongAnswers = exported.filter((r) => r.response === 'not the answer').length;
  check(wrongAnswers > 0 && await search('not the answer') === wrongAnswers,
        'a search for an answer\'s text lists the samples with that answer');
  check(await search('no target.answer') === erroredIds.length, 'a search for a reason\'s text lists those samples');
  await search('');
  // Search narrows to answers holding the text.
  await page.type('#f-search', 'zzqx-no-such-text');
  check(Number(await page.$eval('#browser-count', (p) => p.dataset.count)) === 0, 'a search for absent text lists nothing');

  // A sample link opens that sample.
  const anId = await page.evaluate(() => D.samples[7].id);
  await page.goto(pathToFileURL(reportFile).href + `#sample=${encodeURIComponent(anId)}`);
  await page.waitForSelector('body[data-ready]');
  const title = await page.$eval('#sample-title', (h) => h.textContent).catch(() => '');
  check(title.startsWith(`sample ${anId}:`), `#sample=${anId} opens it (${title})`);
  const answers = await page.$$eval('#detail .answer', (a) => a.length);
  check(answers === 2, `both runs' answers side by side (${answers})`);
  await page.close();

  // run's own report.html, of one run.
  const own = await open(path.join(runs[0][1], 'report.html'));
  check(own.errors.length === 0 && own.requests.length === 1, `run's report.html opens with no request and no error (${JSON.stringify(own.errors)})`);
  const easy = await own.page.$eval('#scores-grid td.acc[data-key="html:easy"]', (td) => td.textContent);
  check(easy === reportJson[0].domains.html.easy.toFixed(2), `its html Easy is report.json's (${easy})`);
  await own.page.close();

  // A complete run's figures carry no partial mark; run 4's summarization Easy does,
  // with the count report.json gives.
  const marks = await (async () => {
    const p = await open(reportFile);
    const n = await p.page.$$eval('.partial', (e) => e.length);
    await p.page.close();
    return n;
  })();
  check(marks === 0, `runs of every html and math subtask show no partial mark (${marks})`);
  {
    const p = await open(path.join(partialRun, 'report.html'));
    const count = partialJson.domains.summarization.easy_subtasks;
    const shown = await p.page.$$eval('#scores-grid .partial', (e) => e.map((x) => x.textContent));
    check(count.complete === false && count.scored === 2 && shown.length === 1 &&
          shown[0] === `from 2 of ${count.of} subtasks`,
          `a run of two summarization subtasks marks its Easy figure (${JSON.stringify(shown)})`);
    const note = await p.page.$eval('#scores-table', (e) => e.textContent);
    check(note.includes('is the mean of the k subtasks scored'), 'and says what the mark means');
    await p.page.close();
  }

  // Every parameter plotted takes two values or more; every one left out has a line.
  for (const file of [reportFile, path.join(partialRun, 'report.html')]) {
    const p = await open(file);
    const params = await p.page.evaluate(() => ({
      groups: paramGroups().map(([key, g]) => ({key, plotted: g.params.map((x) =>
          new Set(x.values.map((v) => String(v.value))).size), omitted: g.omitted})),
      lines: [...document.querySelectorAll('#plot-params .omitted')].map((e) => e.textContent)}));
    const omitted = params.groups.flatMap((g) => g.omitted.map((o) => ({...o, key: g.key})));
    const what = file === reportFile ? 'report of 2 runs' : 'run 4\'s report.html';
    check(params.groups.every((g) => g.plotted.every((n) => n >= 2)),
          `${what}: every parameter plotted has two values or more`);
    check(omitted.every((o) => params.lines.some((l) => l.includes(`${o.name}: ${o.why}`))),
          `${what}: a line for each of the ${omitted.length} parameters left out ` +
          `(${JSON.stringify(params.lines.slice(0, 3))})`);
    if (file !== reportFile) {
      check(JSON.stringify(params.groups) === JSON.stringify([
                {key: 'summarization/length', plotted: [], omitted: [{name: 'n_sentences', why: params.groups[0].omitted[0].why}]},
                {key: 'summarization/questions', plotted: [], omitted: []}]) &&
            params.groups[0].omitted[0].why.startsWith('one value (') &&
            await p.page.$$eval('#plot-params svg', (e) => e.length) === 0,
            `a subtask whose parameter has one value, and one with none, get a line each, no plot (${JSON.stringify(params.groups)})`);
      check(params.lines.length === 2 && params.lines[0].startsWith('summarization/length: no plot: n_sentences: one value') &&
            params.lines[1] === 'No plot for this subtask, which has no parameter: summarization/questions.',
            `the lines say why (${JSON.stringify(params.lines)})`);
      // Its partial figure is marked in the headline too.
      const head = await p.page.$$eval('#headline-grid .partial', (e) => e.map((x) => x.textContent));
      check(head.length === 1 && head[0] === `from 2 of ${partialJson.domains.summarization.easy_subtasks.of} subtasks`,
            `the headline marks the partial summarization Easy (${JSON.stringify(head)})`);
    }
    await p.page.close();
  }

  // Five runs, four of them built-in responders, at 1400 px.
  {
    const many = await open(manyReportFile);
    const page = many.page;
    check(many.errors.length === 0, `report of 5 runs: no console error (${JSON.stringify(many.errors)})`);
    const reps = [reportJson[0], reportJson[1], apiJson, loopholeJson, partialJson];
    await checkLayout(page, 'report of 5 runs', subtasksOf(...reps));
    // Every plot's legend lists every run, in order (so a run has one colour throughout).
    const legends = await page.evaluate(() => {
      const want = JSON.stringify(D.runs.map((r, i) => runLabel(i)));
      const all = [...document.querySelectorAll('#plots svg')].map((svg) =>
          JSON.stringify([...svg.querySelectorAll('.role-legend-label text')].map((t) => t.textContent)));
      return {plots: all.length, wrong: all.filter((l) => l !== want)};
    });
    check(legends.plots > 3 && legends.wrong.length === 0,
          `the ${legends.plots} plots' legends list the 5 runs in order (${legends.wrong.slice(0, 2)})`);
    // The headline comes first: before the runs' settings, which are collapsed.
    const order = await page.evaluate(() => ({
      headline: document.querySelector('#headline-grid').compareDocumentPosition(document.querySelector('#runs-info')),
      open: document.querySelector('#runs-details').open,
      rows: [...document.querySelectorAll('#headline-grid tr[data-run]')].map((tr) =>
          ({run: Number(tr.dataset.run), builtin: tr.classList.contains('builtin'),
            tagged: tr.textContent.includes('built-in, not ranked')})),
      figures: [...document.querySelectorAll('#headline-grid .hl')].map((e) =>
          ({run: Number(e.dataset.run), key: e.dataset.key, text: e.textContent}))}));
    check(order.headline === 4 /* DOCUMENT_POSITION_FOLLOWING */ && order.open === false,
          'the headline figures come before the runs\' settings, which are collapsed');
    const builtins = [true, true, false, true, true];
    check(order.rows.length === 5 && order.rows.every((r) => r.builtin === builtins[r.run] && r.tagged === builtins[r.run]),
          `the headline labels the built-in runs, and only them (${JSON.stringify(order.rows)})`);
    const wrongFigures = order.figures.filter((f) => {
      const rep = reps[f.run];
      const v = f.key.includes(':') ? rep.domains[f.key.split(':')[0]][f.key.split(':')[1]] : rep[f.key];
      return v.toFixed(2) !== f.text;
    });
    check(order.figures.length > 5 && wrongFigures.length === 0,
          `the ${order.figures.length} headline figures are report.json's (${JSON.stringify(wrongFigures)})`);
    // The built-in runs are listed after every model of the paper, not ranked; run 3 keeps
    // the rank it has alone.
    for (const [id, table] of [['paper-table1', null], ['paper-table2', 'table2_summarization'],
                               ['paper-table3', 'table3_code']]) {
      const rows = await page.$$eval(`#${id} tr`, (trs) => trs.slice(1).map((tr) => ({
        mine: tr.classList.contains('mine'), run: tr.dataset.run, rank: tr.dataset.rank,
        unranked: tr.dataset.unranked, first: tr.cells[0].textContent})));
      const lastModel = rows.map((r) => !r.mine && r.unranked === undefined && r.first !== '').lastIndexOf(true);
      const apart = rows.filter((r) => r.unranked === 'builtin');
      check(apart.length > 0 && apart.every((r) => r.rank === undefined && r.first === 'not ranked' &&
                                                   rows.indexOf(r) > lastModel &&
                                                   builtins[Number(r.run)]),
            `${id}: the built-in runs are after the paper's models, not ranked (${JSON.stringify(apart)})`);
      if (table) {
        const rank = rows.find((r) => r.run === '2').rank;
        const want = expectedRank(readFileSync(path.join(here, '..', '..', 'data', 'paper', `${table}.csv`), 'utf8'), apiJson);
        check(rank === String(want), `${id}: run 3 is ranked ${rank} among the models, as alone (${want})`);
      }
    }
    // Each pill says whose it is: numbered by run, the run's label on hover.
    const pills = await page.evaluate(() => [...document.querySelectorAll('#list .row')].map((row) =>
        [...row.querySelectorAll('.badge')].map((b, i) => ({i, run: Number(b.dataset.run), text: b.textContent,
                                                           title: b.title, label: runLabel(i)}))));
    check(pills.length > 0 && pills.every((row) => row.length === 5 && row.every((b) =>
              b.run === b.i && b.text.startsWith(`${b.i + 1}: `) && b.title.startsWith(`${b.label}: `))),
          `the pills of the ${pills.length} rows drawn are numbered by run and titled with its label`);
    const legend = await page.$eval('#pill-legend', (e) => e.textContent);
    check(legend.includes('run 1: builtin/oracle') && legend.includes('run 3: openai/fake-model'),
          `a line says which number is which run (${legend})`);
    // The target of an html sample: its answer as text (real line breaks, no \n), its tag count.
    const html = readFileSync(samples, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
        .find((x) => x.domain === 'html' && x.target.answer.includes('\n'));
    await page.goto(pathToFileURL(manyReportFile).href + `#sample=${encodeURIComponent(html.id)}`);
    await page.waitForSelector('body[data-ready]');
    const target = await page.evaluate(() => ({
      answer: (document.querySelector('#detail pre.target') || {}).textContent,
      fields: [...document.querySelectorAll('#detail .target-field')].map((e) => e.textContent)}));
    check(target.answer === html.target.answer && !target.answer.includes('\\n'),
          `the target answer is shown as its text (${JSON.stringify(target.answer).slice(0, 80)})`);
    check(target.fields.length === 1 && target.fields[0] === `target total_tags: ${html.target.total_tags}`,
          `and its other field as a line (${JSON.stringify(target.fields)})`);
    const wide = await page.evaluate(() => document.scrollingElement.scrollWidth);
    check(wide <= 1400, `a sample's detail is no wider than the window (${wide})`);
    await page.close();
  }

  // Run 3's tokens and cost: its own report.html (written with the run's price) and
  // `report --format html` (the price report.json records), and its ranks.
  for (const [file, what] of [[path.join(apiRun, 'report.html'), 'run\'s report.html'],
                              [apiReportFile, 'report --format html']]) {
    const api = await open(file);
    check(api.errors.length === 0, `${what}: no console error (${JSON.stringify(api.errors)})`);
    await checkUsage(api.page, what, apiJson);
    if (file === apiReportFile) {
      for (const [id, table] of [['paper-table2', 'table2_summarization'], ['paper-table3', 'table3_code']]) {
        const rank = await api.page.$eval(`#${id} tr.mine`, (tr) => tr.dataset.rank).catch(() => 'none');
        const want = expectedRank(readFileSync(path.join(here, '..', '..', 'data', 'paper', `${table}.csv`), 'utf8'), apiJson);
        check(rank === String(want), `${id}: the run's rank is ${rank}, the paper's figures give ${want}`);
      }
    }
    await api.page.close();
  }
  // The composed run's own report.html: accuracy by K in a panel for math, every K from 1
  // to 8 on the axis, the run's points and the dashed (1 - 0.1)^K in the legend.
  {
    const noisy = await open(path.join(composedRun, 'report.html'));
    check(noisy.errors.length === 0, `composed report: no console error (${JSON.stringify(noisy.errors)})`);
    const plot = await noisy.page.$eval('#plot-composed', (d) => ({
      svg: d.querySelectorAll('svg').length,
      texts: [...d.querySelectorAll('svg text')].map((t) => t.textContent),
      points: d.querySelectorAll('svg .mark-symbol.role-mark path').length}));
    check(plot.svg === 1 && plot.texts.includes('rules per sample (K)') && plot.texts.includes('math') &&
          plot.texts.includes('(1 - 0.1)^K') && plot.texts.some((t) => t.startsWith('run 1: builtin/noisy-0.1')),
          `composed report: accuracy by K is plotted for math with (1 - 0.1)^K (${JSON.stringify(plot.texts)})`);
    check(plot.points === 8, `composed report: one point per K (${plot.points})`);
    await noisy.page.close();
  }
} finally {
  await browser.close();
}
// The same page in Firefox, where it is installed (puppeteer-core over WebDriver BiDi).
const firefox = ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find((p) => existsSync(p));
if (!firefox) {
  console.log('SKIPPED (firefox part): no firefox-esr (scripts/install-deps --test installs it)');
} else {
  const ff = await puppeteer.launch({browser: 'firefox', executablePath: firefox, headless: true,
                                    timeout: LAUNCH_TIMEOUT_MS});
  try {
    const page = await ff.newPage();
    const errors = [];
    page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pathToFileURL(reportFile).href);
    await page.waitForSelector('body[data-ready]', {timeout: 30000});
    check(errors.length === 0, `firefox: no console error (${JSON.stringify(errors)})`);
    await checkTable(page, 'firefox');
    const plots = await page.$$eval('#plots svg', (s) => s.length);
    check(plots > 2, `firefox: the plots are drawn (${plots} svg)`);
  } finally {
    await ff.close();
  }
}
if (failures) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('all checks passed');
