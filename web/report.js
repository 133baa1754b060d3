// structtest's HTML report: inflates the data structtest embedded (html_report.h), then
// draws the runs, the score table with intervals, the paper's tables, the plots (Vega-Lite
// through vega-embed, embedded too) and the sample browser. Nothing is fetched.
'use strict';

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? '').replace(/[&<>"']/g,
    (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
const fmt = (x, d = 2) => (x === null || x === undefined || Number.isNaN(x)) ? '—' : Number(x).toFixed(d);
const STATUSES = ['pass', 'fail', 'error', 'unscored', 'unasked'];
// Row fields (html_report.h).
const R = {sample: 0, status: 1, answer: 2, reasoning: 3, reason: 4, finish: 5, input: 6,
           output: 7, reasoning_tokens: 8, latency: 9};

async function inflate() {
  const b64 = $('report-data').textContent.trim();
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
}

let D;  // the data
const textCache = new Map();
function text(parts) {
  if (!parts || parts.length === 0) return '';
  if (parts.length === 1) return typeof parts[0] === 'number' ? D.chunks[parts[0]] : parts[0];
  return parts.map((p) => typeof p === 'number' ? D.chunks[p] : p).join('\n\n');
}

// "run 2: MODEL", with the directory's name where another run has the same model.
function runLabel(i) {
  const model = (r) => (r.report.manifest || {}).model || r.dir;
  const m = model(D.runs[i]);
  const twice = D.runs.some((r, k) => k !== i && model(r) === m);
  return `run ${i + 1}: ${m}${twice ? ` (${D.runs[i].dir.split('/').filter(Boolean).pop()})` : ''}`;
}
// A run of --model builtin/NAME (html_report.h's "builtin"): a built-in responder, not a
// model, so never ranked among the paper's models, and labelled wherever runs are listed.
const isBuiltin = (i) => !!D.runs[i].builtin;
const builtinTag = (i) => isBuiltin(i) ? ' <span class="tag-builtin" title="a built-in responder ' +
    '(structtest run --model builtin/NAME), not a model: not ranked among the paper\'s models">' +
    'built-in, not ranked</span>' : '';
// A table in a box of its own that scrolls sideways when wider than the page.
const scroll = (html) => `<div class="scroll">${html}</div>`;
const range = (ci) => ci ? `${fmt(ci.low)} to ${fmt(ci.high)}` : '';
// An aggregate over fewer subtasks than the paper's figure of its name (report.json's
// and compare's {scored, of, complete}): said next to it; nothing for a complete one.
const isPartial = (count) => !!count && count.complete === false;
const partialMark = (count) => isPartial(count) ?
    `<span class="partial" title="the paper's figure of this name is the mean of all ${count.of} ` +
    `subtasks">from ${count.scored} of ${count.of} subtasks</span>` : '';
const kPartialNote = 'A figure marked "from k of m subtasks" is the mean of the k subtasks scored; ' +
    'the paper\'s figure of that name is the mean of all m, so the two are not comparable.';
const pValue = (p) => p === null || p === undefined ? '—' : p >= 0.001 ? p.toFixed(4) : p.toExponential(1);

function percentile(sorted, q) {
  if (sorted.length === 0) return null;
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[at];
}

// ---- Runs
// The request settings of a run's manifest (the model aside): the token limit, the
// temperature and each control given (--top-p, --stop, ..., header names only).
function requestText(m) {
  const shown = (v) => {
    const t = typeof v === 'string' ? v : JSON.stringify(v);
    return t.length > 200 ? t.slice(0, 200) + '…' : t;
  };
  const parts = [`max_tokens ${m.max_tokens ? m.max_tokens : 'the provider\'s default'}`,
    `temperature ${m.temperature === null || m.temperature === undefined ? 'the provider\'s default' : m.temperature}`];
  for (const k of ['top_p', 'stop', 'sampling_seed', 'reasoning_effort', 'thinking_budget', 'system',
    'extra_body', 'headers']) {
    if (m[k] !== undefined) parts.push(`${k} ${shown(m[k])}`);
  }
  return parts.join('; ');
}
// The models the server says answered, when they are not the one asked for.
const servedText = (r) => r.report.served_models ?
    Object.entries(r.report.served_models).map(([k, v]) => `${k} (${v} answers)`).join(', ') : 'the model asked for';

function drawRuns() {
  const fields = [
    ['model', (r, m) => m.model],
    ...(D.runs.some((r) => r.report.served_models) ? [['served by (the server says)', servedText]] : []),
    ['endpoint', (r, m) => m.endpoint], ['request', (r, m) => r.builtin ? 'none: a built-in responder answers in process' : requestText(m)],
    ['structtest', (r, m) => m.structtest_version], ['rules', () => D.rules],
    ['checker versions', (r, m) => Object.entries(m.rules_versions || {}).map(([k, v]) => `${k} ${v}`).join(', ')],
    ['suite', (r, m) => m.samples ? `samples file ${m.samples}` :
        `${m.suite} (size ${m.size}${m.limit ? `, limit ${m.limit}` : ''}; tasks ${(m.tasks || []).join(',') || 'all'})`],
    ['seed', (r, m) => m.seed], ['directory', (r) => r.dir], ['date (run.db last written)', (r) => r.date],
    ['samples', (r) => r.report.samples], ['answered', (r) => r.report.answered],
    ['coverage', (r) => fmt(r.report.samples ? 100 * r.report.answered / r.report.samples : 0) + '%'],
    ['errored requests', (r) => r.report.errored],
    ['answered, not scored', (r) => r.rows.filter((x) => x[R.status] === 'unscored').length],
    ['not asked yet', (r) => r.rows.filter((x) => x[R.status] === 'unasked').length],
    ['cut off by the token limit', (r) => r.report.truncated],
    ['input tokens', (r) => tokens(usageOf(r).tokens, 'input')],
    ['output tokens (with reasoning)', (r) => tokens(usageOf(r).tokens, 'output')],
    ['reasoning tokens', (r) => tokens(usageOf(r).tokens, 'reasoning')],
    // A built-in responder answers in process: no server, no tokens, nothing to pay.
    ['token usage', (r) => r.builtin ? 'none: a built-in responder answers in process, with no model and no tokens' :
        usageNote(usageOf(r), r.report.answered)],
    ['cost', (r) => r.builtin && usageOf(r).cost_usd === null ? 'none (a built-in responder)' :
        costText(usageOf(r).cost_usd) + priceNote(usageOf(r).price)],
    ['latency p50 / p90 / p99 (ms)', (r) => {
      const l = r.rows.filter((x) => x[R.status] !== 'unasked' && x[R.status] !== 'error')
          .map((x) => x[R.latency]).sort((a, b) => a - b);
      return l.length ? [0.5, 0.9, 0.99].map((q) => percentile(l, q)).join(' / ') : '—';
    }],
  ];
  let h = '<table id="runs-info"><tr><th class="l"></th>' +
      D.runs.map((r, i) => `<th class="l">${esc(runLabel(i))}${builtinTag(i)}</th>`).join('') + '</tr>';
  for (const [name, f] of fields) {
    h += `<tr><th class="l">${esc(name)}</th>` +
        D.runs.map((r) => `<td class="l">${esc(f(r, r.report.manifest || {}))}</td>`).join('') + '</tr>';
  }
  $('runs-table').innerHTML = scroll(h + '</table>') +
      `<p class="note">Charts: ${esc(D.chart_libraries)}.</p>`;
  drawUsage();
}

// Token totals and cost: report.json's usage block (cost.h), as the server reported them.
const usageOf = (r) => r.report.usage;
// '—' where no answer came with usage: not known, rather than 0.
const tokens = (t, k) => !t || t[k] === undefined || (t.no_usage > 0 && !t.input && !t.output) ? '—' :
    Number(t[k]).toLocaleString('en-US');
const costText = (c) => c === null || c === undefined ? 'no price known' : `$${Number(c).toFixed(4)}`;
function priceNote(p) {
  if (!p) return ' (give run --price-in/--price-out, or --prices FILE)';
  return ` (USD ${p.input_usd_per_mtok} in / ${p.output_usd_per_mtok} out per million tokens` +
      `${p.model ? `, ${p.model}` : ''}${p.date ? `, listed ${p.date}` : ''}${p.source ? `, ${p.source}` : ''})`;
}
// `answered`: the run's answers (errored requests carry no usage).
function usageNote(u, answered) {
  const t = u.tokens;
  if (answered === 0) return 'no answers yet';
  let n = t.no_usage === 0 ? `reported for all ${answered} answers` :
      t.no_usage >= answered ? `the server reported no token usage for any of its ${answered} answers: ` +
          'the figures above are not known, not zero' :
      `${t.no_usage} of ${answered} answers came with no token usage (counted as 0)`;
  if (t.cached) n += `; ${t.cached} from the response cache (cost nothing)`;
  return n;
}

function drawUsage() {
  const keys = new Map();
  for (const r of D.runs) for (const s of usageOf(r).subtasks) keys.set(`${s.domain}/${s.subtask}`, true);
  const fields = [['input', 'input'], ['output', 'output'], ['reasoning', 'reasoning']];
  const cells = (u, i, key) => {
    if (!u) return '<td></td><td></td><td></td><td></td>';
    return fields.map(([f]) => `<td class="usage" data-run="${i}" data-key="${esc(key)}" data-field="${f}">${tokens(u.tokens, f)}</td>`).join('') +
        `<td class="usage" data-run="${i}" data-key="${esc(key)}" data-field="cost_usd">${u.cost_usd === null ? '—' : costText(u.cost_usd)}</td>`;
  };
  let h = '<table id="usage-grid"><tr><th class="l" rowspan="2">subtask</th>' +
      D.runs.map((r, i) => `<th colspan="4">${esc(runLabel(i))}</th>`).join('') + '</tr><tr>' +
      D.runs.map(() => '<th>input</th><th>output</th><th>reasoning</th><th>cost</th>').join('') + '</tr>';
  for (const key of keys.keys()) {
    h += `<tr><td class="l">${esc(key)}</td>` + D.runs.map((r, i) =>
        cells(usageOf(r).subtasks.find((s) => `${s.domain}/${s.subtask}` === key), i, key)).join('') + '</tr>';
  }
  h += '<tr class="agg"><td class="l">total</td>' + D.runs.map((r, i) => cells(usageOf(r), i, 'total')).join('') + '</tr>';
  $('usage-table').innerHTML = scroll(h + '</table>') + '<p class="note">Tokens as the server reported them ' +
      '(output includes reasoning); cost at the price shown above, none where no price is known. ' +
      'Answers from the response cache cost nothing.</p>';
}

// ---- Scores
function scoreRows() {
  // Union of subtasks in the order of the first run that has them.
  const seen = new Map();
  for (const r of D.runs) {
    for (const s of r.report.subtasks) {
      const key = `${s.domain}/${s.subtask}`;
      if (!seen.has(key)) seen.set(key, {key, label: key, split: s.split, get: (rep) =>
          rep.subtasks.find((t) => `${t.domain}/${t.subtask}` === key)});
    }
  }
  const rows = [...seen.values()].map((s) => ({...s, agg: false,
      value: (rep) => { const t = s.get(rep); return t ? [t.accuracy, t.ci, t.ci ? t.ci.n : t.scored] : null; }}));
  // Domains in the order of their subtasks (the registry's), not the JSON's key order.
  const domains = [...new Set([...seen.keys()].map((k) => k.split('/')[0]))];
  for (const d of domains) {
    if (D.runs.every((r) => !r.report.domains[d] || (r.report.domains[d].easy === null && r.report.domains[d].hard === null))) continue;
    for (const part of ['easy', 'hard']) {
      rows.push({key: `${d}:${part}`, label: `${d} ${part}`, agg: true,
                 value: (rep) => rep.domains && rep.domains[d] ?
                     [rep.domains[d][part], rep.domains[d][part + '_ci'], null,
                      rep.domains[d][part + '_subtasks']] : null});
    }
  }
  for (const [k, label] of [['overall_easy', 'overall easy'], ['overall_hard', 'overall hard'], ['all', 'All']]) {
    if (D.runs.every((r) => r.report[k] === null)) continue;
    rows.push({key: k, label, agg: true,
               value: (rep) => [rep[k], rep[k + '_ci'], null, rep[k + '_subtasks']]});
  }
  return rows;
}

// The headline: each run's figures as the paper's Table 1 gives a model's (All, overall
// Easy and Hard, each domain's Easy and Hard), with their intervals and partial marks.
const DOMAINS = ['summarization', 'code', 'html', 'math'];
function drawHeadline() {
  const cols = [['all', 'All'], ['overall_easy', 'Easy'], ['overall_hard', 'Hard']];
  for (const d of DOMAINS) cols.push([`${d}:easy`, 'Easy'], [`${d}:hard`, 'Hard']);
  const figure = (rep, key) => {
    if (!key.includes(':')) return [rep[key], rep[key + '_ci'], rep[key + '_subtasks']];
    const [d, part] = key.split(':');
    const x = (rep.domains || {})[d];
    return x ? [x[part], x[part + '_ci'], x[part + '_subtasks']] : [null];
  };
  let h = '<table id="headline-grid"><tr><th class="l" rowspan="2">run</th><th colspan="3">overall</th>' +
      DOMAINS.map((d) => `<th colspan="2">${esc(d)}</th>`).join('') + '</tr><tr>' +
      cols.map(([, label]) => `<th>${label}</th>`).join('') + '</tr>';
  let anyPartial = false;
  D.runs.forEach((r, i) => {
    h += `<tr class="${isBuiltin(i) ? 'builtin' : ''}" data-run="${i}"><td class="l">${esc(runLabel(i))}` +
        `${isBuiltin(i) ? `<br>${builtinTag(i)}` : ''}</td>`;
    for (const [key] of cols) {
      const [v, ci, count] = figure(r.report, key);
      if (v === null || v === undefined) { h += '<td>—</td>'; continue; }
      anyPartial = anyPartial || isPartial(count);
      h += `<td><span class="hl" data-run="${i}" data-key="${esc(key)}">${fmt(v)}</span>` +
          `<span class="ci hl-ci">${ci ? `${fmt(ci.low)}–${fmt(ci.high)}` : ''}</span>${partialMark(count)}</td>`;
    }
    h += '</tr>';
  });
  $('headline').innerHTML = scroll(h + '</table>') +
      '<p class="note">Accuracy in %, with its 95% interval, as the paper\'s Table 1 gives each model\'s: ' +
      'All and overall Easy and Hard appear when a run covers all four domains; the subtasks ' +
      'are below, the paper\'s models under Published numbers.' +
      (anyPartial ? ` ${kPartialNote}` : '') + '</p>';
}

function drawScores() {
  const rows = scoreRows();
  let h = '<table id="scores-grid"><tr><th class="l" rowspan="2">subtask</th><th rowspan="2">split</th>' +
      D.runs.map((r, i) => `<th colspan="3">${esc(runLabel(i))}${builtinTag(i)}</th>`).join('') + '</tr><tr>' +
      D.runs.map(() => '<th>%</th><th>95% interval</th><th>n</th>').join('') + '</tr>';
  let anyPartial = false;
  for (const row of rows) {
    h += `<tr class="${row.agg ? 'agg' : ''}"><td class="l">${esc(row.label)}</td><td>${esc(row.split || '')}</td>`;
    D.runs.forEach((r, i) => {
      const v = row.value(r.report);
      if (!v || v[0] === null || v[0] === undefined) { h += '<td>—</td><td></td><td></td>'; return; }
      const ci = v[1];
      anyPartial = anyPartial || isPartial(v[3]);
      h += `<td class="acc" data-run="${i}" data-key="${esc(row.key)}">${fmt(v[0])}</td>` +
          `<td class="ci">${range(ci)}${partialMark(v[3])}</td><td>${v[2] ?? (ci ? ci.n : '')}</td>`;
    });
    h += '</tr>';
  }
  const iv = D.runs[0].report.intervals || {};
  $('scores-table').innerHTML = scroll(h + '</table>') +
      `<p class="note">Intervals (${esc(iv.confidence * 100)}%): subtasks, ${esc(iv.subtasks)}; aggregates, ` +
      `${esc(iv.aggregates)}. ` +
      'n counts the units the interval is over: samples, or tasks where a subtask counts tasks. ' +
      'Overall and All appear ' +
      'when a run covers all four domains.' + (anyPartial ? ` ${kPartialNote}` : '') + '</p>' +
      repeatsHtml();
  drawCompareChooser();
}

// Runs of repeated samples (run --repeats K): per subtask, the samples with all K repeats
// scored, the share whose K verdicts agree, pass@k and pass^k for k = 1..K, from
// report.json's "repeats". '' when no run repeats its samples.
function repeatsHtml() {
  const runs = D.runs.map((r, i) => [r, i]).filter(([r]) => r.report.repeats);
  if (!runs.length) return '';
  let h = '<h3>Repeated samples</h3>';
  for (const [r, i] of runs) {
    const k = r.report.repeats.k;
    const ks = Array.from({length: k}, (_, j) => j + 1);
    h += `<p>${esc(runLabel(i))}: each sample asked ${esc(k)} times</p><table class="repeats">` +
        '<tr><th class="l">subtask</th><th>samples</th><th>incomplete</th><th>consistent %</th>' +
        ks.map((j) => `<th>pass@${j}</th>`).join('') + ks.map((j) => `<th>pass^${j}</th>`).join('') +
        '</tr>';
    for (const s of r.report.subtasks) {
      const x = s.repeats;
      if (!x) continue;
      const cells = (v) => ks.map((j) => `<td class="acc">${v.length ? fmt(v[j - 1]) : '—'}</td>`).join('');
      h += `<tr><td class="l">${esc(s.domain)}/${esc(s.subtask)}</td><td>${esc(x.samples)}</td>` +
          `<td>${esc(x.incomplete)}</td><td class="acc">${x.consistency === null ? '—' : fmt(x.consistency)}</td>` +
          cells(x.pass_at_k) + cells(x.pass_hat_k) + '</tr>';
    }
    h += '</table>';
  }
  return scroll(h) + '<p class="note">pass % above is then the mean over the repeats, and its ' +
      'interval counts a sample\'s repeats as one cluster. Over the samples (tasks where a ' +
      'subtask counts tasks) with all repeats scored: consistent, all K verdicts agree; pass@k ' +
      'and pass^k, the unbiased estimates (Chen et al. 2021) of the chance that some, or all, ' +
      'of k answers to a sample pass.</p>';
}

// Rule-level accuracy (rules passed / rules listed, the mean partial credit) and the
// rules that fail most, per subtask and run, from report.json's "rule_accuracy" and
// "rules" (runs scored before verdicts listed their rules have none).
function drawRules() {
  const keys = [];
  for (const r of D.runs) {
    for (const s of r.report.subtasks) {
      const key = `${s.domain}/${s.subtask}`;
      if (s.rules && !keys.includes(key)) keys.push(key);
    }
  }
  if (!keys.length) {
    $('rules-table').innerHTML = '<p class="note">No verdict of these runs lists its rules ' +
        '(scored by an older structtest: <code>structtest rescore</code> adds them).</p>';
    return;
  }
  const worst = (s) => s.rules.filter((x) => x.failed > 0)
      .sort((a, b) => b.failed - a.failed).slice(0, 3)
      .map((x) => `${esc(x.name)} ${fmt(100 * x.failed / (x.passed + x.failed + x.not_checked), 1)}%`)
      .join(', ') || '—';
  let h = '<table id="rules-grid"><tr><th class="l" rowspan="2">subtask</th>' +
      D.runs.map((r, i) => `<th colspan="2">${esc(runLabel(i))}${builtinTag(i)}</th>`).join('') +
      '</tr><tr>' + D.runs.map(() => '<th>rule %</th><th class="l">failing most (share of samples)</th>').join('') +
      '</tr>';
  for (const key of keys) {
    h += `<tr><td class="l">${esc(key)}</td>`;
    for (const r of D.runs) {
      const s = r.report.subtasks.find((t) => `${t.domain}/${t.subtask}` === key);
      h += s && s.rules ? `<td class="acc">${fmt(s.rule_accuracy)}</td><td class="l">${worst(s)}</td>`
                        : '<td>—</td><td></td>';
    }
    h += '</tr>';
  }
  $('rules-table').innerHTML = scroll(h + '</table>') +
      '<p class="note">rule %: rules passed / rules listed (IFEval\'s instruction-level accuracy ' +
      'beside the sample-level % above), which is also the samples\' mean partial credit. A ' +
      'checker stops at a failing rule\'s stage: the rules after it are listed as not checked ' +
      'and count as not passed. <code>structtest tasks --rules</code> lists each subtask\'s rules.</p>';
}

function drawCompareChooser() {
  if (D.runs.length < 2) { $('compare').innerHTML = ''; return; }
  $('compare').innerHTML = '<h3>Compared with a baseline</h3><label>baseline <select id="baseline">' +
      D.runs.map((r, i) => `<option value="${i}">${esc(runLabel(i))}</option>`).join('') +
      '</select></label><div id="compare-table"></div>';
  $('baseline').addEventListener('change', drawCompare);
  drawCompare();
}

function drawCompare() {
  const base = Number($('baseline').value);
  const entry = D.compare.find((c) => c.baseline === base);
  if (!entry) { $('compare-table').innerHTML = ''; return; }
  if (entry.error) {
    $('compare-table').innerHTML = `<p class="error">${esc(entry.error)}</p>`; return;
  }
  const diffRow = (label, x, agg) => {
    const ci = x.ci;
    return `<tr class="${agg ? 'agg' : ''}"><td class="l">${esc(label)}</td>` +
        `<td>${agg ? '' : `${x.n} ${esc(x.unit)}s`}</td><td>${fmt(x.a)}</td><td>${fmt(x.b)}</td>` +
        `<td class="diff">${fmt(x.difference)}</td><td class="ci">${range(ci)}${agg ? partialMark(x.subtasks) : ''}</td>` +
        (agg ? '<td></td><td></td><td></td>' :
            `<td>${x.pass_to_fail}</td><td>${x.fail_to_pass}</td><td>${pValue(x.holm_p)}</td>`) + '</tr>';
  };
  let h = '';
  let anyPartial = false;
  // One pair a block, the first open: with many runs the tables would push the rest of
  // the page far down.
  entry.result.comparisons.forEach((c, k) => {
    h += `<details class="pair"${k === 0 ? ' open' : ''}><summary>A = ${esc(c.a.model || c.a.dir)}, ` +
        `B = ${esc(c.b.model || c.b.dir)}: ${c.paired} paired ` +
        `samples (scored in both) of ${c.shared} shared; ${c.only_a} only in A, ${c.only_b} only in B, ` +
        `${c.differing} with the same id but another sample.</summary>`;
    h += '<div class="scroll"><table class="cmp"><tr><th class="l"></th><th>units</th><th>A %</th><th>B %</th>' +
        '<th>B − A</th><th>95% interval</th><th>pass→fail</th><th>fail→pass</th><th>McNemar p (Holm)</th></tr>';
    for (const sub of c.subtasks) h += diffRow(`${sub.domain}/${sub.subtask}`, sub, false);
    const shown = [];
    for (const [d, parts] of Object.entries(c.domains)) {
      for (const part of ['easy', 'hard']) if (parts[part].a !== null) shown.push([`${d} ${part}`, parts[part]]);
    }
    for (const [k, label] of [['overall_easy', 'overall easy'], ['overall_hard', 'overall hard'], ['all', 'All']]) {
      if (c[k] && c[k].a !== null) shown.push([label, c[k]]);
    }
    for (const [label, x] of shown) {
      h += diffRow(label, x, true);
      anyPartial = anyPartial || isPartial(x.subtasks);
    }
    h += '</table></div></details>';
  });
  if (anyPartial) h += `<p class="note">${kPartialNote}</p>`;
  $('compare-table').innerHTML = h;
}

// ---- The paper's tables
function parseCsv(csv) {
  const lines = csv.trim().split(/\r?\n/);
  const head = lines[0].split(',');
  return lines.slice(1).map((l) => {
    const cells = l.split(',');
    const o = {};
    head.forEach((h, i) => { o[h] = i === 0 ? cells[i] : Number(cells[i]); });
    return o;
  });
}

function paperSuiteNote(i) {
  const m = D.runs[i].report.manifest || {};
  if (m.suite === 'paper' && !m.samples && m.size === 1 && !m.limit) {
    return `${esc(runLabel(i))}: suite paper at full size, the paper's test set built from the data files given to it.`;
  }
  return `<span class="warn">${esc(runLabel(i))}: its suite (${esc(m.samples ? 'samples file' :
      `${m.suite}, size ${m.size}${m.limit ? `, limit ${m.limit}` : ''}`)}) is not the paper's ` +
      `test set: its rank compares scores on other questions.</span>`;
}

function drawPaper() {
  const t1 = parseCsv(D.paper.table1);
  const mine = D.runs.map((r, i) => {
    const rep = r.report, d = rep.domains || {};
    const o = {model: runLabel(i), mine: true, builtin: isBuiltin(i), run: i, all: rep.all, easy: rep.overall_easy, hard: rep.overall_hard,
               counts: {all: rep.all_subtasks, easy: rep.overall_easy_subtasks, hard: rep.overall_hard_subtasks}};
    for (const dom of ['summarization', 'code', 'html', 'math']) {
      o[`${dom}_easy`] = d[dom] ? d[dom].easy : null;
      o[`${dom}_hard`] = d[dom] ? d[dom].hard : null;
      o.counts[`${dom}_easy`] = d[dom] ? d[dom].easy_subtasks : null;
      o.counts[`${dom}_hard`] = d[dom] ? d[dom].hard_subtasks : null;
    }
    return o;
  });
  const cols = Object.keys(t1[0]);
  const has = (v) => v !== null && v !== undefined && !Number.isNaN(v);
  const mean = (r, names) => {
    const v = names.map((n) => r[n]).filter(has);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
  // rankBy: the columns a row is ranked by (their mean). A run is placed among the paper's
  // models by the columns it has: a run without some of a table's subtasks is ranked
  // against the models' mean over the same subtasks.
  const table = (id, title, rows, columns, rankBy) => {
    const score = (r, names) => names.length === 1 ? (has(r[names[0]]) ? r[names[0]] : null) : mean(r, names);
    const paper = rows.filter((r) => !r.mine);
    for (const r of rows) {
      r.rankCols = r.mine ? rankBy.filter((n) => has(r[n])) : rankBy;
      r.score = score(r, r.rankCols);
    }
    // The built-in responders are not models: listed after the ranked rows, apart.
    const sorted = rows.filter((r) => !r.builtin).sort((a, b) => (b.score ?? -1) - (a.score ?? -1));
    const apart = rows.filter((r) => r.builtin);
    const avg = rankBy.length > 1;
    const cells = (r) => columns.map((c) => `<td class="${c === 'model' ? 'l' : ''}">` +
        `${c === 'model' ? esc(r[c]) : fmt(r[c])}` +
        `${r.counts && r[c] !== null && r[c] !== undefined ? partialMark(r.counts[c]) : ''}</td>`).join('') +
        (avg ? `<td>${fmt(r.score)}</td>` : '');
    let h = `<h3>${esc(title)}</h3><div class="scroll"><table class="paper" id="${id}"><tr><th>rank</th>` +
        columns.map((c) => `<th class="${c === 'model' ? 'l' : 'wrap'}">${esc(c).replace(/_/g, '_<wbr>')}</th>`).join('') +
        (avg ? '<th>mean</th>' : '') + '</tr>';
    let rank = 0;
    for (const r of sorted) {
      if (!r.mine) rank++;
      // A run's rank: the place it would take among the paper's models.
      const shown = r.mine ? (r.score === null ? null :
          paper.filter((x) => (score(x, r.rankCols) ?? -1) > r.score).length + 1) : rank;
      const partial = r.mine && r.rankCols.length > 0 && r.rankCols.length < rankBy.length;
      h += `<tr class="${r.mine ? 'mine' : ''}" ${r.mine ? `data-rank="${shown ?? ''}" data-run="${r.run}"` : ''}>` +
          `<td${partial ? ` title="ranked by the mean of its ${r.rankCols.length} of ${rankBy.length} subtasks"` : ''}>` +
          `${shown ?? '—'}${partial ? '*' : ''}</td>` + cells(r) + '</tr>';
    }
    if (apart.length) {
      h += `<tr class="apart"><td class="l" colspan="${columns.length + 1 + (avg ? 1 : 0)}">Built-in ` +
          'responders: structtest\'s own answers (the oracle\'s are the targets), not a model\'s: ' +
          'shown for reference, not ranked</td></tr>';
      for (const r of apart) {
        h += `<tr class="mine builtin" data-unranked="builtin" data-run="${r.run}"><td>not ranked</td>` +
            cells(r) + '</tr>';
      }
    }
    h += '</table></div>';
    const anyPartial = rows.some((r) => r.counts && columns.some((c) =>
        r[c] !== null && r[c] !== undefined && isPartial(r.counts[c])));
    return h + (avg ? '<p class="note">Ranked by the mean of the subtasks; ' +
        '* a run without some of them is ranked by the mean of those it has, against the ' +
        'models\' mean over the same ones.</p>' : '') +
        (anyPartial ? `<p class="note">${kPartialNote} A run's rank by such a figure is not ` +
                      'a rank among the paper\'s models.</p>' : '');
  };
  const sub = (csv, names) => {
    const paper = parseCsv(csv);
    const runs = D.runs.map((r, i) => {
      const o = {model: runLabel(i), mine: true, builtin: isBuiltin(i), run: i};
      for (const n of names) {
        const t = r.report.subtasks.find((s) => s.subtask === n);
        o[n] = t ? t.accuracy : null;
      }
      return o;
    }).filter((o) => names.some((n) => o[n] !== null));  // runs without these subtasks: left out
    return [...paper, ...runs];
  };
  const t2cols = Object.keys(parseCsv(D.paper.table2)[0]);
  const t3cols = Object.keys(parseCsv(D.paper.table3)[0]);
  const builtins = D.runs.map((r, i) => i).filter(isBuiltin);
  $('paper-notes').innerHTML = D.runs.map((r, i) => isBuiltin(i) ? '' : `<p>${paperSuiteNote(i)}</p>`).join('') +
      (builtins.length ? `<p>${builtins.map((i) => esc(runLabel(i))).join(', ')}: ` +
          `${builtins.length > 1 ? 'built-in responders' : 'a built-in responder'}, not ` +
          `${builtins.length > 1 ? 'models' : 'a model'}: listed below each table, not ranked.</p>` : '');
  $('paper-tables').innerHTML =
      table('paper-table1', 'Table 1: overview, ranked by All', [...t1, ...mine], cols, ['all']) +
      table('paper-table2', 'Table 2: summarization subtasks, ranked by their mean',
            sub(D.paper.table2, t2cols.slice(1)), t2cols, t2cols.slice(1)) +
      table('paper-table3', 'Table 3: code subtasks (_v2: Hard), ranked by their mean',
            sub(D.paper.table3, t3cols.slice(1)), t3cols, t3cols.slice(1));
}

// ---- Plots
// Labels are never cut short (Vega's default limits are 160-180 px: a subtask's or a
// run's name would end in "…").
const embedOpts = {actions: false, renderer: 'svg',
                   config: {axis: {labelLimit: 0}, legend: {labelLimit: 0}, title: {limit: 0}}};
// Every plot colours a run alike and lists the runs in their order: with its own domain
// a plot sorted "run 10" before "run 1", and a plot without some run gave the others
// other colours.
const runColor = () => ({field: 'run', type: 'nominal', scale: {domain: D.runs.map((r, i) => runLabel(i))}});
// A plot left out, with the line saying why, in place of the plot.
const omitted = (why) => `<p class="note omitted">${esc(why)}</p>`;
async function drawPlots() {
  const acc = [];
  D.runs.forEach((r, i) => {
    for (const s of r.report.subtasks) {
      if (!s.ci) continue;
      acc.push({run: runLabel(i), subtask: `${s.domain}/${s.subtask}`, accuracy: s.accuracy,
                low: s.ci.low, high: s.ci.high});
    }
  });
  const order = [...new Set(acc.map((a) => a.subtask))];
  const jobs = [];
  if (acc.length === 0) {
    $('plot-accuracy').innerHTML = omitted('Left out: no subtask has a scored sample yet.');
  } else {
    jobs.push(vegaEmbed('#plot-accuracy', {
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json', data: {values: acc},
      width: Math.max(600, order.length * 18 * Math.max(1, D.runs.length / 2)), height: 220,
      encoding: {x: {field: 'subtask', type: 'nominal', sort: order, axis: {labelAngle: -45}},
                 xOffset: {field: 'run'}, color: runColor()},
      layer: [{mark: 'rule', encoding: {y: {field: 'low', type: 'quantitative', title: 'accuracy %',
                                               scale: {domain: [0, 100]}}, y2: {field: 'high'}}},
              {mark: {type: 'point', filled: true}, encoding: {y: {field: 'accuracy', type: 'quantitative'},
                                                            tooltip: [{field: 'run'}, {field: 'subtask'}, {field: 'accuracy'}, {field: 'low'}, {field: 'high'}]}}],
    }, embedOpts));
  }

  // The composed suite's dial (docs/composed.md): accuracy by K, the rules per sample,
  // one panel per domain, with each K's interval; for a run of builtin/noisy-P, the
  // (1 - P)^K its accuracy should follow, dashed.
  const byK = [];
  const expected = new Map();  // "domain K series" -> row
  D.runs.forEach((r, i) => {
    const noisy = /^builtin\/noisy-([0-9.]+)$/.exec((r.report.manifest || {}).model || '');
    for (const s of r.report.subtasks) {
      const m = /^(.+)_composed_k([0-9]+)$/.exec(s.subtask);
      if (!m || !s.ci) continue;
      const k = Number(m[2]);
      byK.push({series: runLabel(i), domain: s.domain, k, accuracy: s.accuracy, low: s.ci.low,
                high: s.ci.high, expected: false});
      if (noisy) {
        const p = Number(noisy[1]);
        const series = `(1 - ${p})^K`;
        expected.set(`${s.domain} ${k} ${series}`, {series, domain: s.domain, k,
            accuracy: 100 * Math.pow(1 - p, k), expected: true});
      }
    }
  });
  if (byK.length === 0) {
    $('plot-composed').innerHTML = omitted('Left out: no subtask of the composed suite ' +
        '(<domain>_composed_k<K>, docs/composed.md) is in these runs.');
  } else {
    const values = [...byK, ...expected.values()];
    const series = [...D.runs.map((r, i) => runLabel(i)),
                    ...new Set([...expected.values()].map((e) => e.series))];
    jobs.push(vegaEmbed('#plot-composed', {
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json', data: {values},
      facet: {column: {field: 'domain', type: 'nominal', title: null}},
      spec: {
        width: 260, height: 200,
        encoding: {x: {field: 'k', type: 'quantitative', title: 'rules per sample (K)',
                       scale: {domain: [1, 8]}, axis: {tickMinStep: 1}},
                   color: {field: 'series', type: 'nominal', title: null, scale: {domain: series}}},
        layer: [
          {transform: [{filter: '!datum.expected'}], mark: 'rule',
           encoding: {y: {field: 'low', type: 'quantitative', title: 'accuracy %', scale: {domain: [0, 100]}},
                      y2: {field: 'high'}}},
          {transform: [{filter: '!datum.expected'}], mark: {type: 'line', point: true},
           encoding: {y: {field: 'accuracy', type: 'quantitative'},
                      tooltip: [{field: 'series'}, {field: 'k'}, {field: 'accuracy'}, {field: 'low'}, {field: 'high'}]}},
          {transform: [{filter: 'datum.expected'}], mark: {type: 'line', strokeDash: [4, 3]},
           encoding: {y: {field: 'accuracy', type: 'quantitative'}}},
        ],
      },
    }, embedOpts));
  }

  // Answer length, output tokens and latency of the answers. A run whose server reported
  // no token usage (the built-in responders: none) has no token counts, and one whose
  // every answer took 0 ms (the built-in responders answer in process) no latency: its
  // answers are left out of that histogram rather than drawn as a bar at 0, and a
  // histogram with no answer left is not drawn; a line says which and why.
  const answered = (r) => r.rows.filter((x) => x[R.status] !== 'unasked' && x[R.status] !== 'error');
  const hists = [
    {field: 'chars', title: 'answer length (characters)', value: answerLength, has: () => true},
    {field: 'tokens', title: 'output tokens', value: (x) => x[R.output],
     has: (r) => usageOf(r).tokens.no_usage < r.report.answered,
     why: 'no token usage was reported for their answers (built-in responders report none)'},
    {field: 'latency', title: 'latency (ms)', value: (x) => x[R.latency],
     has: (r) => answered(r).some((x) => x[R.latency] > 0),
     why: 'every answer is stored as taking 0 ms (built-in responders answer in process, with no request)'},
  ];
  const charts = [], notes = [];
  for (const h of hists) {
    const values = [], without = [];
    D.runs.forEach((r, i) => {
      const rows = answered(r);
      if (rows.length === 0) return;
      if (!h.has(r)) { without.push(i); return; }
      for (const x of rows) values.push({run: runLabel(i), [h.field]: h.value(x)});
    });
    if (without.length) {
      notes.push(`${h.title[0].toUpperCase()}${h.title.slice(1)}: ` +
          `${values.length ? 'drawn without' : 'left out, nothing to draw for'} ` +
          `${without.map(runLabel).join(', ')}: ${h.why}.`);
    }
    if (values.length === 0) continue;
    charts.push({data: {values}, width: 260, height: 140, mark: 'bar',
                 encoding: {x: {field: h.field, bin: {maxbins: 40}, title: h.title},
                            y: {aggregate: 'count', title: 'answers'},
                            color: runColor()}});  // stacked by run
  }
  const dist = $('plot-distributions');
  if (charts.length === 0) {
    dist.innerHTML = omitted('Left out: no run has an answer yet.');
  } else {
    const div = document.createElement('div');
    dist.appendChild(div);
    jobs.push(vegaEmbed(div, {$schema: 'https://vega.github.io/schema/vega-lite/v5.json',
                              hconcat: charts}, embedOpts));
  }
  dist.insertAdjacentHTML('beforeend', notes.map(omitted).join(''));

  // Error rate (fail / scored) against every parameter of every subtask that takes more
  // than one value; a line for each parameter left out.
  const holder = $('plot-params');
  const groups = paramGroups();
  if (groups.length === 0) holder.innerHTML = omitted('Left out: no sample is scored yet.');
  // Subtasks without a parameter (most of code's): one line for them all, at the end.
  const none = groups.filter(([, g]) => g.params.length === 0 && g.omitted.length === 0).map(([key]) => key);
  for (const [key, group] of groups) {
    if (group.params.length === 0 && group.omitted.length === 0) continue;
    const div = document.createElement('div');
    div.className = 'plot';
    div.dataset.subtask = key;
    holder.appendChild(div);
    const why = group.omitted.map((o) => `${o.name}: ${o.why}`).join('; ');
    if (group.params.length === 0) {
      div.innerHTML = `<p class="note omitted"><b>${esc(key)}</b>: no plot: ${esc(why)}.</p>`;
      continue;
    }
    const charts = group.params.map((p) => ({
      title: p.name, width: 160, height: 110,
      data: {values: p.values},
      mark: p.numeric ? {type: 'line', point: true} : 'bar',
      encoding: {x: {field: 'value', type: p.numeric ? 'quantitative' : 'nominal', title: p.name},
                 y: {field: 'rate', type: 'quantitative', title: 'error rate %', scale: {domain: [0, 100]}},
                 color: runColor(),
                 ...(p.numeric ? {} : {xOffset: {field: 'run'}}),
                 tooltip: [{field: 'run'}, {field: 'value'}, {field: 'rate'}, {field: 'n'}]},
    }));
    const chart = document.createElement('div');
    div.appendChild(chart);
    if (why) div.insertAdjacentHTML('beforeend', `<p class="note omitted">Not plotted: ${esc(why)}.</p>`);
    jobs.push(vegaEmbed(chart, {$schema: 'https://vega.github.io/schema/vega-lite/v5.json',
                                title: key, hconcat: charts}, embedOpts));
  }
  if (none.length) {
    holder.insertAdjacentHTML('beforeend', `<p class="note omitted no-params">No plot for ` +
        `${none.length > 1 ? 'these subtasks, which have' : 'this subtask, which has'} no parameter: ` +
        `${none.map(esc).join(', ')}.</p>`);
  }
  await Promise.all(jobs);
}

function answerLength(x) {
  let n = 0;
  for (const p of x[R.answer]) n += (typeof p === 'number' ? D.chunks[p].length : p.length) + 2;
  return Math.max(0, n - 2);
}

// Per subtask: every scalar param, the length of every list param, the total of every
// object of counts, and what structtest read off the sample (derived: math's steps,
// answer phrase and step style).
function paramGroups() {
  const groups = new Map();
  D.runs.forEach((r, i) => {
    for (const x of r.rows) {
      const st = x[R.status];
      if (st !== 'pass' && st !== 'fail') continue;
      const s = D.samples[x[R.sample]];
      const key = `${s.domain}/${s.subtask}`;
      if (!groups.has(key)) groups.set(key, new Map());
      const g = groups.get(key);
      for (const [name, v] of Object.entries(paramsOf(s))) {
        if (!g.has(name)) g.set(name, new Map());
        const k = `${i}\u0000${typeof v === 'number' ? v : JSON.stringify(v)}`;
        const cell = g.get(name).get(k) || {run: runLabel(i), value: v, n: 0, failed: 0};
        cell.n++;
        if (st === 'fail') cell.failed++;
        g.get(name).set(k, cell);
      }
    }
  });
  const out = [];
  for (const [key, g] of groups) {
    const params = [], omitted = [];
    for (const [name, cells] of g) {
      let list = [...cells.values()];
      const distinct = new Set(list.map((v) => String(v.value))).size;
      const numeric = list.every((v) => typeof v.value === 'number');
      // One value: no error rate to set against another.
      if (distinct < 2) {
        omitted.push({name, why: `one value (${String(list[0].value)}) in every scored sample`});
        continue;
      }
      if (!numeric && distinct > 30) {
        omitted.push({name, why: `${distinct} distinct values, too many to plot`});
        continue;
      }
      // Many distinct numbers (tag totals): ten bins, each shown at its lower edge.
      if (numeric && distinct > 12) {
        const lo = Math.min(...list.map((c) => c.value)), hi = Math.max(...list.map((c) => c.value));
        const width = (hi - lo) / 10;
        const bins = new Map();
        for (const c of list) {
          const edge = lo + width * Math.min(9, Math.floor((c.value - lo) / width));
          const k = `${c.run}\u0000${edge}`;
          const b = bins.get(k) || {run: c.run, value: edge, n: 0, failed: 0};
          b.n += c.n;
          b.failed += c.failed;
          bins.set(k, b);
        }
        list = [...bins.values()];
      }
      const values = list.map((c) => ({...c, rate: 100 * c.failed / c.n}));
      params.push({name: numeric && distinct > 12 ? `${name} (binned)` : name, numeric, values});
    }
    out.push([key, {params, omitted}]);
  }
  return out;
}

function paramsOf(s) {
  const o = {};
  for (const [k, v] of Object.entries(s.params || {})) {
    if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') o[k] = v;
    else if (Array.isArray(v)) o[`${k} (count)`] = v.length;
    // Counts by kind (html's tags): their total.
    else if (v && typeof v === 'object' && Object.values(v).length &&
             Object.values(v).every((x) => typeof x === 'number')) {
      o[`${k} (total)`] = Object.values(v).reduce((a, b) => a + b, 0);
    }
  }
  for (const [k, v] of Object.entries(s.derived || {})) o[k] = v;
  return o;
}

// ---- Sample browser
let items = [];     // [{s: sample index, rows: [row or undefined per run]}]
let shown = [];     // filtered items
const ROW_H = 24;

function buildItems() {
  const bySample = new Map();
  D.runs.forEach((r, i) => {
    r.rows.forEach((x, k) => {
      let it = bySample.get(x[R.sample]);
      if (!it) {
        it = {s: x[R.sample], rows: new Array(D.runs.length), ri: new Int32Array(D.runs.length)};
        bySample.set(x[R.sample], it);
        items.push(it);
      }
      it.rows[i] = x;
      it.ri[i] = k;
    });
  });
}

function options(values) { return values.map((v) => `<option value="${esc(v)}">${esc(v)}</option>`).join(''); }

function drawFilters() {
  const uniq = (f) => [...new Set(items.map(f))];
  const splitOf = splitTable();
  let h = `<label>run <select id="f-run"><option value="">any</option>${D.runs.map((r, i) =>
      `<option value="${i}">${esc(runLabel(i))}</option>`).join('')}</select></label>` +
      `<label>domain <select id="f-domain"><option value="">any</option>${options(uniq((it) => D.samples[it.s].domain))}</select></label>` +
      `<label>subtask <select id="f-subtask"><option value="">any</option>${options(uniq((it) => D.samples[it.s].subtask))}</select></label>` +
      `<label>split <select id="f-split"><option value="">any</option>${options([...new Set(Object.values(splitOf))])}</select></label>` +
      `<label>verdict <select id="f-verdict"><option value="">any</option>${options(STATUSES)}</select></label>` +
      `<label>params <input id="f-params" placeholder="n_points=5 symbol=*" size="18"></label>` +
      `<label>search <input id="f-search" placeholder="in answers and reasons" size="24"></label>`;
  if (D.runs.length >= 2) h += '<label><input type="checkbox" id="f-different"> different verdicts</label>';
  $('filters').innerHTML = h;
  for (const el of $('filters').querySelectorAll('select, input')) {
    el.addEventListener(el.tagName === 'INPUT' && el.type !== 'checkbox' ? 'input' : 'change', applyFilters);
  }
}

function splitTable() {
  const o = {};
  for (const r of D.runs) for (const s of r.report.subtasks) o[`${s.domain}/${s.subtask}`] = s.split;
  return o;
}

// Search: the query comes from a one-line input, so a match never spans the blank line
// between two paragraphs of a text, and a shared paragraph (a chunk) is searched once per
// query whichever answers hold it. The short paragraphs and the reason of every row of a
// run are lower-cased once into a few long strings (segments of at most SEGMENT
// characters, rows separated by \u0000 and their pieces by \u0001): a query is one
// indexOf scan per segment, a hit is mapped to its row by binary search, and the scan
// goes on from the next row. The strings are built in slices when the page is idle
// after it is drawn (indexSearchWhenIdle); a search before that finishes them first.
const SEGMENT = 1 << 25;
const INDEX_SLICE = 4000;  // rows lower-cased per idle slice
let chunkLower = null;
// Per run: [{text, first row, starts: Int32Array (one past the last)}], and the rows
// already taken into its segments.
const runText = [];
let indexed = null;  // per run: {segments, parts, starts, at, first, done}
function indexRows(limit) {
  if (!indexed) indexed = D.runs.map(() => ({segments: [], parts: [], starts: [], at: 0, first: 0, next: 0}));
  const close = (ix, next) => {
    ix.starts.push(ix.at);
    ix.segments.push({text: ix.parts.join(''), first: ix.first, starts: Int32Array.from(ix.starts)});
    ix.parts = []; ix.starts = []; ix.at = 0; ix.first = next;
  };
  let budget = limit;
  D.runs.forEach((r, i) => {
    const ix = indexed[i];
    if (runText[i]) return;
    for (; ix.next < r.rows.length && budget > 0; ix.next++, budget--) {
      const x = r.rows[ix.next];
      const inline = [];
      for (const p of x[R.answer]) if (typeof p !== 'number') inline.push(p);
      inline.push(x[R.reason]);
      const t = inline.join('\u0001').toLowerCase() + '\u0000';
      if (ix.at > 0 && ix.at + t.length > SEGMENT) close(ix, ix.next);
      ix.starts.push(ix.at);
      ix.parts.push(t);
      ix.at += t.length;
    }
    if (ix.next === r.rows.length) {
      close(ix, r.rows.length);
      runText[i] = ix.segments;
    }
  });
  return runText.filter(Boolean).length === D.runs.length;
}
function indexSearchWhenIdle() {
  const step = () => {
    if (!indexRows(INDEX_SLICE)) setTimeout(step, 0);
    else document.body.dataset.searchIndexed = performance.now().toFixed(0);
  };
  setTimeout(step, 0);
}
let lastQuery = null, rowHit = null;  // per run: Uint8Array, 1 where the row matches
function searchAll(q) {
  if (!chunkLower) chunkLower = D.chunks.map((c) => c.toLowerCase());
  indexRows(Infinity);
  const chunkHit = new Uint8Array(chunkLower.length);
  for (let k = 0; k < chunkLower.length; k++) chunkHit[k] = chunkLower[k].includes(q) ? 1 : 0;
  rowHit = D.runs.map((r, i) => {
    const hit = new Uint8Array(r.rows.length);
    for (const {text, first, starts} of runText[i]) {
      const rows = starts.length - 1;
      for (let pos = text.indexOf(q); pos >= 0;) {
        let lo = 0, hi = rows - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (starts[mid] <= pos) lo = mid; else hi = mid - 1;
        }
        hit[first + lo] = 1;
        pos = lo + 1 < rows ? text.indexOf(q, starts[lo + 1]) : -1;
      }
    }
    r.rows.forEach((x, k) => {
      if (hit[k]) return;
      for (const p of x[R.answer]) if (typeof p === 'number' && chunkHit[p]) { hit[k] = 1; return; }
    });
    return hit;
  });
  lastQuery = q;
}
function matches(it, i, q) {
  if (q !== lastQuery) searchAll(q);
  return it.rows[i] !== undefined && rowHit[i][it.ri[i]] === 1;
}

function applyFilters() {
  const t0 = performance.now();
  const run = $('f-run').value === '' ? null : Number($('f-run').value);
  const domain = $('f-domain').value, subtask = $('f-subtask').value, split = $('f-split').value;
  const verdict = $('f-verdict').value;
  const q = $('f-search').value.trim().toLowerCase();
  const different = $('f-different') && $('f-different').checked;
  const splitOf = splitTable();
  const params = $('f-params').value.trim().split(/\s+/).filter(Boolean).map((p) => {
    const at = p.indexOf('=');
    return at < 0 ? [p, null] : [p.slice(0, at), p.slice(at + 1)];
  });
  const runs = run === null ? D.runs.map((r, i) => i) : [run];
  shown = items.filter((it) => {
    const s = D.samples[it.s];
    if (domain && s.domain !== domain) return false;
    if (subtask && s.subtask !== subtask) return false;
    if (split && splitOf[`${s.domain}/${s.subtask}`] !== split) return false;
    if (run !== null && !it.rows[run]) return false;
    for (const [k, v] of params) {
      const pv = paramsOf(s)[k];
      if (pv === undefined || (v !== null && String(pv) !== v)) return false;
    }
    if (verdict && !runs.some((i) => it.rows[i] && it.rows[i][R.status] === verdict)) return false;
    if (different) {
      const st = new Set(it.rows.map((x) => x ? x[R.status] : 'absent'));
      if (st.size < 2) return false;
    }
    if (q && !runs.some((i) => matches(it, i, q))) return false;
    return true;
  });
  $('browser-count').textContent = `${shown.length} of ${items.length} samples`;
  $('browser-count').dataset.count = shown.length;
  $('browser-count').dataset.ms = (performance.now() - t0).toFixed(1);
  $('list-spacer').style.height = `${shown.length * ROW_H}px`;
  $('list').scrollTop = 0;
  drawVisibleRows();
}

// A verdict's pill in the sample list: which run it is of (its number, with several runs;
// its full label on hover) and the status; "absent" where the run lacks the sample.
function pill(i, status) {
  const several = D.runs.length > 1;
  return `<span class="badge b-${status || 'unasked'}" data-run="${i}" data-status="${status || 'absent'}" ` +
      `title="${esc(runLabel(i))}: ${status || 'not in this run'}">${several ? `${i + 1}: ` : ''}${status || '—'}</span>`;
}
function drawPillLegend() {
  $('pill-legend').innerHTML = D.runs.length < 2 ? '' : 'One pill per run, with its number: ' +
      D.runs.map((r, i) => `<span class="legend-run">${esc(runLabel(i))}${isBuiltin(i) ? ' (built-in)' : ''}</span>`)
          .join(' · ');
}

// Only the rows in view are in the document.
function drawVisibleRows() {
  const list = $('list');
  const first = Math.max(0, Math.floor(list.scrollTop / ROW_H) - 5);
  const last = Math.min(shown.length, Math.ceil((list.scrollTop + list.clientHeight) / ROW_H) + 5);
  let h = '';
  for (let k = first; k < last; k++) {
    const it = shown[k], s = D.samples[it.s];
    // Array.from, not map: a run without the sample is a hole in it.rows, which map skips.
    const badges = Array.from(it.rows, (x, i) => pill(i, x ? x[R.status] : null)).join('');
    const reason = (it.rows.find((x) => x && x[R.status] !== 'pass') || it.rows.find((x) => x) || [])[R.reason] || '';
    h += `<div class="row" style="top:${k * ROW_H}px" data-sample="${esc(s.id)}">${badges}` +
        `<b>${esc(s.id)}</b> <span class="sub">${esc(s.domain)}/${esc(s.subtask)}</span> <span class="ci">${esc(reason.slice(0, 160))}</span></div>`;
  }
  $('list-spacer').innerHTML = h;
}

function showSample(id) {
  const found = items.filter((it) => D.samples[it.s].id === id);
  if (!found.length) { $('detail').innerHTML = `<p class="error">no sample ${esc(id)} in this report</p>`; return; }
  let h = '';
  for (const it of found) {
    const s = D.samples[it.s];
    h += `<h3 id="sample-title">sample ${esc(s.id)}: ${esc(s.domain)}/${esc(s.subtask)}</h3>` +
        `<p>params: <code>${esc(JSON.stringify(s.params))}</code> · <a href="#sample=${encodeURIComponent(s.id)}">link</a></p>` +
        '<details open><summary>prompt</summary>' +
        s.messages.map((m) => `<div class="msg-role">${esc(m[0])}</div><pre>${esc(text(m[1]))}</pre>`).join('') +
        '</details><div class="side">';
    it.rows.forEach((x, i) => {
      if (!x) return;
      h += `<div class="answer" data-run="${i}"><h4>${esc(runLabel(i))}: <span class="badge b-${x[R.status]}">${x[R.status]}</span></h4>` +
          `<p class="verdict-reason">${esc(x[R.reason])}</p><div>answer:</div><pre class="answer-text">${esc(text(x[R.answer]))}</pre>` +
          (x[R.reasoning].length && text(x[R.reasoning]) ? `<details><summary>reasoning</summary><pre>${esc(text(x[R.reasoning]))}</pre></details>` : '') +
          `<p class="ci">finish ${esc(x[R.finish])} · ${x[R.input]} in / ${x[R.output]} out tokens · ${x[R.latency]} ms</p></div>`;
    });
    h += '</div><div class="targets">';
    // The target as text (html_report.h): the answer in full, other fields on a line each.
    for (const [name, parts] of s.target) {
      const t = text(parts);
      h += name === 'answer' || name === '' ?
          `<div>target answer:</div><pre class="target">${esc(t)}</pre>` :
          `<div class="target-field">target ${esc(name)}: ${t.includes('\n') ? `<pre>${esc(t)}</pre>` : `<code>${esc(t)}</code>`}</div>`;
    }
    h += '</div>';
  }
  $('detail').innerHTML = h;
}

function onHash() {
  const m = location.hash.match(/^#sample=(.*)$/);
  if (!m) return;
  showSample(decodeURIComponent(m[1]));
  $('detail').scrollIntoView();
}

async function main() {
  const t0 = performance.now();
  D = await inflate();
  drawHeadline();
  drawRuns();
  drawScores();
  drawRules();
  drawPaper();
  buildItems();
  drawFilters();
  drawPillLegend();
  applyFilters();
  $('list').addEventListener('scroll', () => requestAnimationFrame(drawVisibleRows));
  $('list').addEventListener('click', (e) => {
    const row = e.target.closest('.row');
    if (row) location.hash = `sample=${encodeURIComponent(row.dataset.sample)}`;
  });
  window.addEventListener('hashchange', onHash);
  await drawPlots();
  onHash();
  $('status').textContent = '';
  document.body.dataset.ready = (performance.now() - t0).toFixed(0);
  document.body.dataset.readyAt = performance.now().toFixed(0);
  indexSearchWhenIdle();
}

main().catch((e) => {
  $('status').innerHTML = `<span class="error">structtest report: ${esc(e && e.stack || e)}</span>`;
  console.error(e);
});
