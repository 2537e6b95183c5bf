// The Endpoints page: every saved endpoint, a form from its params, the
// call's rows (table or JSON), row count, duration and cache state, a curl
// line and a `logq test` case made from the run.

import { $, h, clear, setText, show } from './dom.js';
import { call, endpointPath, listEndpoints } from './api.js';
import { cellClass, cellText, copyText, fmtCount, fmtMs, stringify, yamlFlow, yamlKey, yamlStr } from './format.js';

let endpoints = null;
let current = null; // the endpoint shown
let last = null; // {endpoint, params, sql, rows, error, now}
let ctrl = null;

export function setEndpoints(list) {
  endpoints = list;
}

export function forgetEndpoints() {
  endpoints = null;
  current = null;
  last = null;
  clear($('ep-list'));
  clear($('ep-params'));
  clearResult();
}

async function load() {
  if (endpoints) return endpoints;
  endpoints = await listEndpoints();
  return endpoints;
}

const hashOf = (name, params) => {
  const qs = new URLSearchParams(params || {}).toString();
  return '#/endpoints/' + encodeURIComponent(name) + (qs ? '?' + qs : '');
};

function renderList() {
  const ul = clear($('ep-list'));
  for (const e of endpoints) {
    const req = e.params.filter((p) => p.required).map((p) => p.name);
    const a = h('a', { href: hashOf(e.name), 'aria-current': current && current.name === e.name ? 'page' : null },
      h('span', { class: 'ep-title' }, e.name),
      h('span', { class: 'muted small' }, e.params.length ? e.params.map((p) => p.name + (p.required ? '*' : '')).join(', ') : 'no parameters'),
    );
    a.title = req.length ? `requires ${req.join(', ')}` : '';
    ul.append(h('li', null, a));
  }
  if (!endpoints.length) ul.append(h('li', { class: 'muted' }, 'No saved endpoints.'));
}

function paramFields(e) {
  const out = e.params.slice();
  if (e.sandboxed && !out.some((p) => p.name === 'sql')) out.push({ name: 'sql', required: false, sandbox: true });
  return out;
}

function renderForm(e, values) {
  const box = clear($('ep-params'));
  paramFields(e).forEach((p, i) => {
    const id = `ep-p-${i}`;
    const lab = h('label', { for: id }, p.name, p.required ? h('span', { class: 'req', 'aria-hidden': 'true' }, ' *') : null);
    let ctl;
    const v = values.get(p.name) ?? '';
    if (Array.isArray(p.one_of) && p.one_of.length) {
      ctl = h('select', { id, name: p.name, required: p.required },
        h('option', { value: '', text: p.required ? '(choose)' : '(none)' }),
        p.one_of.map((o) => h('option', { value: o, text: o })));
      ctl.value = p.one_of.includes(v) ? v : '';
    } else if (p.sandbox) {
      ctl = h('textarea', { id, name: p.name, rows: 3, spellcheck: 'false', placeholder: 'SELECT … over the endpoint’s CTEs (sandboxed)' });
      ctl.value = v;
    } else {
      ctl = h('input', { id, name: p.name, type: 'text', required: p.required, spellcheck: 'false', autocomplete: 'off' });
      ctl.value = v;
    }
    if (p.required) ctl.setAttribute('aria-required', 'true');
    box.append(h('div', { class: 'field' + (p.sandbox ? ' wide' : '') }, lab, ctl));
  });
  if (!e.params.length && !e.sandboxed) box.append(h('p', { class: 'muted small' }, 'This endpoint takes no parameters.'));
}

function formParams() {
  const out = {};
  for (const el of $('ep-params').querySelectorAll('input, select, textarea')) {
    if (el.value !== '') out[el.name] = el.value;
  }
  return out;
}

function shq(s) {
  return "'" + s.replace(/'/g, `'\\''`) + "'";
}

function curlLine(name, params) {
  const url = new URL(endpointPath(name), location.origin);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return `curl -H "X-API-KEY: $KEY" ${shq(url.toString())}`;
}

function updateCurl() {
  if (!current) return;
  setText($('ep-curl'), curlLine(current.name, formParams()));
}

function clearResult() {
  setText($('ep-alert'), '');
  setText($('ep-count'), '–');
  setText($('ep-ms'), '–');
  setText($('ep-cache'), '–');
  $('ep-cache').dataset.state = '';
  clear($('ep-table').tHead);
  clear($('ep-table').tBodies[0]).append(h('tr', null, h('td', { class: 'muted' }, 'Run the endpoint to see its rows.')));
  setText($('ep-json'), '');
  setText($('ep-copy-status'), '');
  $('ep-copy-test').disabled = true;
  show($('ep-test-box'), false);
}

function columnsOf(rows) {
  const cols = [];
  const seen = new Set();
  for (const r of rows.slice(0, 200)) {
    for (const k of Object.keys(r)) {
      if (!seen.has(k)) {
        seen.add(k);
        cols.push(k);
      }
    }
  }
  return cols;
}

function renderRows(rows) {
  const cols = columnsOf(rows);
  const t = $('ep-table');
  clear(t.tHead);
  if (cols.length) t.tHead.append(h('tr', null, cols.map((c) => h('th', { scope: 'col' }, c))));
  const frag = document.createDocumentFragment();
  for (const r of rows) {
    frag.append(h('tr', null, cols.map((c) => {
      const text = cellText(c, r[c]);
      return h('td', { class: cellClass(c, r[c]), title: text.length > 60 ? text.slice(0, 2000) : null }, text.length > 400 ? text.slice(0, 400) + '…' : text);
    })));
  }
  if (!rows.length) frag.append(h('tr', null, h('td', { class: 'muted', colspan: Math.max(1, cols.length) }, 'No rows.')));
  clear(t.tBodies[0]).append(frag);
  setText($('ep-json'), stringify(rows, 2));
}

function applyView() {
  const json = document.querySelector('input[name="ep-view"]:checked').value === 'json';
  show($('ep-table-wrap'), !json);
  show($('ep-json'), json);
}

async function runEndpoint() {
  if (!current) return;
  const e = current;
  for (const el of $('ep-params').querySelectorAll('[required]')) {
    if (!el.value) {
      setText($('ep-alert'), `${el.name} is required.`);
      el.setAttribute('aria-invalid', 'true');
      el.focus();
      return;
    }
    el.removeAttribute('aria-invalid');
  }
  const params = formParams();
  history.replaceState(null, '', hashOf(e.name, params));
  updateCurl();
  if (ctrl) ctrl.abort();
  const c = new AbortController();
  ctrl = c;
  setText($('ep-alert'), '');
  setText($('endpoints-status'), 'Running…');
  $('ep-run').setAttribute('aria-busy', 'true');
  const started = Date.now();
  const t0 = performance.now();
  try {
    const r = await call(endpointPath(e.name), { params, signal: c.signal });
    const ms = performance.now() - t0;
    const rows = r.data && Array.isArray(r.data.result) ? r.data.result : [];
    const cache = (r.headers.get('Logq-Cache') || 'none').toLowerCase();
    setText($('ep-count'), fmtCount(rows.length));
    setText($('ep-ms'), fmtMs(ms));
    setText($('ep-cache'), cache);
    $('ep-cache').dataset.state = cache;
    renderRows(rows);
    last = { endpoint: e.name, params, rows, error: null, now: started };
    setText($('endpoints-status'), `${fmtCount(rows.length)} rows in ${fmtMs(ms)}, cache ${cache}`);
  } catch (err) {
    if (err && err.name === 'AbortError') return;
    const ms = performance.now() - t0;
    setText($('ep-alert'), err.message + (err.location ? ` (${err.location})` : ''));
    setText($('ep-count'), '–');
    setText($('ep-ms'), fmtMs(ms));
    setText($('ep-cache'), '–');
    $('ep-cache').dataset.state = '';
    clear($('ep-table').tHead);
    clear($('ep-table').tBodies[0]);
    setText($('ep-json'), '');
    last = err.status >= 400 ? { endpoint: e.name, params, rows: null, error: { status: err.status, message: err.message }, now: started } : null;
    setText($('endpoints-status'), `failed (${err.status || 'network'})`);
  } finally {
    if (ctrl === c) {
      ctrl = null;
      $('ep-run').removeAttribute('aria-busy');
    }
  }
  $('ep-copy-test').disabled = !last;
  show($('ep-test-box'), false);
  setText($('ep-copy-status'), '');
}

const reEscape = (s) => s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');

// testYAML makes a `logq test` file (docs/testing.md) from the last run.
export function testYAML(run) {
  const now = new Date(run.now).toISOString();
  const params = { ...run.params };
  const sql = params.sql;
  delete params.sql;
  const desc = Object.entries(params).map(([k, v]) => `${k}=${v}`).join(', ');
  const file = run.endpoint.replace(/[^A-Za-z0-9._-]+/g, '_') + '.test.yaml';
  const lines = [
    `# ${file}: what ${run.endpoint} answered on ${location.host} at ${now}`,
    '# (made by logq\'s page). The test runs on an empty store: add the',
    '# events it needs under events: (per source) or events_files:, then',
    `#   logq test ${file}`,
    `now: ${now}`,
    'tests:',
    `  - name: ${yamlStr(run.endpoint + (desc ? ' ' + desc : ''))}`,
    `    endpoint: ${yamlStr(run.endpoint)}`,
  ];
  if (Object.keys(params).length) {
    lines.push(`    params: {${Object.entries(params).map(([k, v]) => `${yamlKey(k)}: ${yamlStr(v)}`).join(', ')}}`);
  }
  if (sql !== undefined) lines.push(`    sql: ${yamlStr(sql)}`);
  lines.push('    # events:', '    #   SOURCE:', '    #     - {timestamp: "…", event_message: "…", metadata: {…}}');
  if (run.error) {
    lines.push(`    want_error: {status: ${run.error.status}, message: ${yamlStr('^' + reEscape(run.error.message) + '$')}}`);
  } else if (!run.rows.length) {
    lines.push('    want: []');
  } else {
    lines.push('    want:');
    for (const r of run.rows) lines.push(`      - ${yamlFlow(r)}`);
  }
  return lines.join('\n') + '\n';
}

async function copyTest() {
  if (!last) return;
  const text = testYAML(last);
  setText($('ep-test'), text);
  show($('ep-test-box'), true);
  const ok = await copyText(text);
  setText($('ep-copy-status'), ok ? 'Copied the test case to the clipboard.' : 'Could not copy: the test case is shown below.');
  if (!ok) $('ep-test-box').open = true;
}

export async function enterEndpoints(name, values) {
  setText($('endpoints-status'), endpoints ? '' : 'Loading…');
  try {
    await load();
  } catch (e) {
    setText($('endpoints-status'), '');
    setText($('ep-alert'), e.message);
    return;
  }
  setText($('endpoints-status'), `${endpoints.length} endpoint${endpoints.length === 1 ? '' : 's'}`);
  let e = name ? endpoints.find((x) => x.name === name || x.id === name) : null;
  if (name && !e) setText($('ep-alert'), `No endpoint is named ${name}.`);
  if (!e) e = current || endpoints[0] || null;
  const switched = !current || !e || current.name !== e.name;
  const hasValues = [...values.keys()].length > 0;
  current = e;
  renderList();
  if (!e) {
    setText($('ep-name'), 'No endpoints');
    return;
  }
  if (switched || hasValues) {
    setText($('ep-name'), e.name);
    const meta = [`id ${e.id}`, `at most ${fmtCount(e.max_rows)} rows`,
      e.cache_seconds ? `cached ${e.cache_seconds} s` : 'not cached', e.warm_seconds ? `warmed every ${e.warm_seconds} s` : null,
      e.sandboxed ? 'sandboxed (sql= runs your SELECT over its CTEs)' : null].filter(Boolean).join(' · ');
    setText($('ep-meta'), meta);
    renderForm(e, values);
    if (switched) {
      clearResult();
      last = null;
    }
  }
  updateCurl();
}

export function initEndpoints() {
  $('ep-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    runEndpoint();
  });
  $('ep-params').addEventListener('input', updateCurl);
  $('ep-params').addEventListener('change', updateCurl);
  $('ep-copy-curl').addEventListener('click', async () => {
    const ok = await copyText($('ep-curl').textContent);
    setText($('ep-copy-status'), ok ? 'Copied the curl command (set KEY to your key).' : 'Could not copy; select the line.');
  });
  $('ep-copy-test').addEventListener('click', copyTest);
  for (const r of document.querySelectorAll('input[name="ep-view"]')) r.addEventListener('change', applyView);
  applyView();
}
