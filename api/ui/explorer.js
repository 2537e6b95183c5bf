// The Explorer: a SQL editor over one source and a time range, the
// histogram, the results table with its column chooser, the event details
// with filters, exports, and the live tail.

import { $, h, clear, setText, show } from './dom.js';
import { query } from './api.js';
import {
  cellClass, cellText, copyText, download, fmtCount, fmtMs, isScalar, msToISO, stringify, timeText,
  toCSV, toJSON, toNDJSON,
} from './format.js';
import { addCondition, condition, defaultQuery, filteredHistogramQuery, histogramQuery, offsetOf, quoteString } from './sql.js';
import { Histogram, buckets, unitFor } from './histogram.js';
import { Tail } from './tail.js';
import { loadSources } from './sources.js';

const OTHER = '\u0000other';
const MAX_LIVE_ROWS = 2000;
const CELL_MAX = 400;

const st = {
  source: '',
  q: '',
  from: NaN,
  to: NaN,
  columns: [],
  rows: [],
  hidden: new Set(),
  ctrl: null,
  hctrl: null,
  ran: false,
  tail: null,
  queue: [],
  buffer: [],
  flushTimer: 0,
  detail: null,
  extraSources: new Set(),
};

const rowOf = new WeakMap();
let histogram;

// ---- time range --------------------------------------------------------

const toInput = (ms) => (Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 19) : '');

function fromInput(v) {
  if (!v) return NaN;
  return Date.parse((v.length === 16 ? v + ':00' : v) + 'Z');
}

function parseISO(v) {
  if (!v) return NaN;
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : v + 'Z');
  return t;
}

const nowCeil = () => Math.ceil(Date.now() / 1000) * 1000;

function setRange(from, to) {
  st.from = from;
  st.to = to;
  $('from').value = toInput(from);
  $('to').value = toInput(to);
}

function readInputs() {
  st.q = $('query').value;
  st.from = fromInput($('from').value);
  st.to = fromInput($('to').value);
  const v = $('source').value;
  if (v !== OTHER) st.source = v;
}

// ---- the URL -------------------------------------------------------------

export function exploreHash() {
  const p = new URLSearchParams();
  if (st.source) p.set('source', st.source);
  if (st.q) p.set('q', st.q);
  if (Number.isFinite(st.from)) p.set('from', msToISO(st.from));
  if (Number.isFinite(st.to)) p.set('to', msToISO(st.to));
  const qs = p.toString();
  return '#/explore' + (qs ? '?' + qs : '');
}

function writeHash() {
  const hash = exploreHash();
  $('nav-explore').setAttribute('href', hash);
  if (location.hash.startsWith('#/explore') && location.hash !== hash) history.replaceState(null, '', hash);
}

// ---- sources -------------------------------------------------------------

async function fillSources() {
  const r = await loadSources();
  const sel = $('source');
  const names = r.list.map((x) => x.name);
  for (const n of st.extraSources) if (!names.includes(n)) names.push(n);
  if (st.source && !names.includes(st.source)) names.push(st.source);
  clear(sel);
  if (!st.source) sel.append(h('option', { value: '', text: names.length ? '(choose a source)' : '(no sources listed)' }));
  for (const n of names) sel.append(h('option', { value: n, text: n }));
  sel.append(h('option', { value: OTHER, text: 'Other source…' }));
  sel.value = st.source;
  if (r.denied) $('source-other').placeholder = 'type a source name, Enter';
  return r;
}

function setSource(name) {
  st.source = name;
  const sel = $('source');
  if (![...sel.options].some((o) => o.value === name)) {
    st.extraSources.add(name);
    sel.insertBefore(h('option', { value: name, text: name }), sel.lastElementChild);
  }
  const ph = [...sel.options].find((o) => o.value === '');
  if (ph && name) ph.remove();
  sel.value = name;
  show($('source-other'), false);
}

function chooseSource(name) {
  setSource(name);
  st.q = defaultQuery(name);
  $('query').value = st.q;
  updateGutter();
  if (st.tail) startTail();
  run();
}

// ---- the editor ------------------------------------------------------------

function updateGutter() {
  const ta = $('query');
  const g = $('gutter');
  const n = ta.value.split('\n').length;
  if (g.childElementCount !== n) {
    const frag = document.createDocumentFragment();
    for (let i = 1; i <= n; i++) frag.append(h('div', { text: String(i) }));
    clear(g).append(frag);
  }
  g.scrollTop = ta.scrollTop;
}

function clearMark() {
  show($('err-mark'), false);
  for (const d of $('gutter').querySelectorAll('.err')) d.classList.remove('err');
  $('query').removeAttribute('aria-invalid');
}

function markError(line, col) {
  const ta = $('query');
  const text = ta.value;
  const lines = text.split('\n');
  if (line < 1 || line > lines.length) return;
  const off = offsetOf(text, line, col);
  const lineStart = offsetOf(text, line, 1);
  const m = /^[A-Za-z0-9_@`'"]+|^./.exec(text.slice(off));
  let end = off + (m && !m[0].includes('\n') ? Math.min(m[0].length, 40) : 0);
  ta.setAttribute('aria-invalid', 'true');
  ta.focus({ preventScroll: false });
  ta.setSelectionRange(off, end);
  const lt = lines[line - 1];
  const prefix = lt.slice(0, off - lineStart).replace(/[^\t]/g, ' ');
  const mark = $('err-mark');
  setText(mark, `line ${line}, column ${col}:\n${lt}\n${prefix}^`);
  show(mark, true);
  const g = $('gutter').children[line - 1];
  if (g) g.classList.add('err');
  // scroll the editor to the line
  const lh = parseFloat(getComputedStyle(ta).lineHeight) || 18;
  const top = (line - 1) * lh;
  if (top < ta.scrollTop || top > ta.scrollTop + ta.clientHeight - lh) ta.scrollTop = Math.max(0, top - lh);
  updateGutter();
}

// ---- errors & status ---------------------------------------------------

function showError(e, prefix = '') {
  let msg = e && e.message ? e.message : String(e);
  const lc = e && typeof e.lineCol === 'function' ? e.lineCol() : null;
  if (lc && !msg.startsWith(`${lc.line}:${lc.col}`)) msg = `${lc.line}:${lc.col}: ${msg}`;
  setText($('explore-alert'), prefix + msg);
  if (lc && !prefix) markError(lc.line, lc.col);
}

function clearError() {
  setText($('explore-alert'), '');
  clearMark();
}

function setStatus(text) {
  setText($('run-status'), text);
}

// ---- running -----------------------------------------------------------

export async function run() {
  readInputs();
  clearError();
  if (!Number.isFinite(st.from) || !Number.isFinite(st.to)) {
    setText($('explore-alert'), 'Give the range: From and To (UTC).');
    return;
  }
  if (st.from >= st.to) {
    setText($('explore-alert'), 'From must be before To.');
    return;
  }
  if (!st.q.trim()) {
    setText($('explore-alert'), 'Write a query, or choose a source to get its default query.');
    return;
  }
  st.ran = true;
  writeHash();
  if (st.ctrl) st.ctrl.abort();
  const ctrl = new AbortController();
  st.ctrl = ctrl;
  const params = { from: msToISO(st.from), to: msToISO(st.to) };
  runHistogram(params);
  setStatus('Running…');
  $('run').setAttribute('aria-busy', 'true');
  const t0 = performance.now();
  try {
    const r = await query(st.q, params, { signal: ctrl.signal });
    const rows = r.data && Array.isArray(r.data.result) ? r.data.result : [];
    const ms = performance.now() - t0;
    if (ctrl.signal.aborted) return;
    st.rows = rows;
    st.columns = rows.length ? Object.keys(rows[0]) : [];
    st.buffer = [];
    updateNewEvents();
    renderTable();
    closeDetails(false);
    const n = rows.length;
    setStatus(`${fmtCount(n)} row${n === 1 ? '' : 's'} in ${fmtMs(ms)}${n >= 1000 ? ' (at most 1000 are returned)' : ''}`);
  } catch (e) {
    if (e && e.name === 'AbortError') return;
    setStatus(e && e.ms ? `failed after ${fmtMs(e.ms)}` : 'failed');
    showError(e);
  } finally {
    if (st.ctrl === ctrl) {
      st.ctrl = null;
      $('run').removeAttribute('aria-busy');
    }
  }
}

// runHistogram counts the events over the range: those the query's own
// FROM and WHERE give, or, when the query is not one SELECT with a FROM or
// that count fails (its FROM has no timestamp column), the source's.
async function runHistogram(params) {
  if (st.hctrl) st.hctrl.abort();
  const ctrl = new AbortController();
  st.hctrl = ctrl;
  const from = st.from;
  const to = st.to;
  const unit = unitFor(to - from);
  const tries = [];
  const filtered = filteredHistogramQuery(st.q, unit);
  if (filtered) tries.push({ sql: filtered, what: 'match the query\u2019s FROM and WHERE', none: 'No events match the query\u2019s FROM and WHERE in this range' });
  const all = filtered ? ' (all of them: the query\u2019s filter could not be counted)' : '';
  if (st.source) tries.push({ sql: histogramQuery(st.source, unit), what: `of ${st.source}${all}`, none: `No events of ${st.source} in this range` });
  if (!tries.length) {
    histogram.setMessage('Choose a source to see its events over time');
    setText($('hist-status'), '');
    return;
  }
  setText($('hist-status'), 'Counting…');
  let lastErr;
  for (const h of tries) {
    try {
      const r = await query(h.sql, params, { signal: ctrl.signal, quiet: true });
      if (ctrl.signal.aborted) return;
      const rows = r.data && Array.isArray(r.data.result) ? r.data.result : [];
      const data = buckets(from, to, unit, rows);
      const total = data.reduce((a, b) => a + b.n, 0);
      histogram.set(data, unit);
      if (!total) histogram.setMessage(h.none);
      setText($('hist-status'), `${fmtCount(total)} events ${h.what} in the range, per ${unit.toLowerCase()}. Click a bar or drag across bars to narrow the range.`);
      return;
    } catch (e) {
      if (e && e.name === 'AbortError') return;
      lastErr = e;
    }
  }
  histogram.setMessage('No histogram');
  setText($('hist-status'), 'Histogram: ' + (lastErr && lastErr.message ? lastErr.message : lastErr));
}

// ---- the table ---------------------------------------------------------

function visibleCols() {
  return st.columns.filter((c) => !st.hidden.has(c));
}

function cell(col, v) {
  const text = cellText(col, v);
  const short = text.length > CELL_MAX ? text.slice(0, CELL_MAX) + '…' : text;
  return h('td', { class: cellClass(col, v), title: text.length > 60 ? text.slice(0, 2000) : null }, short);
}

function rowEl(row) {
  const tr = h('tr', { tabindex: 0, class: 'clickable' });
  for (const c of visibleCols()) tr.append(cell(c, row[c]));
  rowOf.set(tr, row);
  if (st.detail === row) tr.classList.add('selected');
  return tr;
}

function renderHead() {
  const thead = $('results').tHead;
  clear(thead);
  const cols = visibleCols();
  if (cols.length) thead.append(h('tr', null, cols.map((c) => h('th', { scope: 'col' }, c))));
}

function renderTable() {
  renderHead();
  const tbody = $('results').tBodies[0];
  const frag = document.createDocumentFragment();
  for (const r of st.rows) frag.append(rowEl(r));
  clear(tbody).append(frag);
  show($('results-empty'), st.ran && !st.rows.length);
  $('results-wrap').scrollTop = 0;
  renderColumnChooser();
  for (const b of document.querySelectorAll('[data-export]')) b.disabled = !st.rows.length;
}

function renderColumnChooser() {
  const p = $('columns-panel');
  clear(p);
  if (!st.columns.length) {
    p.append(h('span', { class: 'muted small' }, 'Run a query to choose its columns.'));
    return;
  }
  for (const c of st.columns) {
    const cb = h('input', { type: 'checkbox', checked: !st.hidden.has(c), 'data-col': c });
    p.append(h('label', { class: 'check' }, cb, ' ', c));
  }
  p.append(h('button', { type: 'button', 'data-all': '1' }, 'Show all'));
}

// ---- details -------------------------------------------------------------

function openDetails(row, tr) {
  st.detail = row;
  for (const x of $('results').querySelectorAll('tr.selected')) x.classList.remove('selected');
  if (tr) tr.classList.add('selected');
  const dl = clear($('details-fields'));
  for (const [k, v] of Object.entries(row)) {
    const t = timeText(k, v);
    const dd = h('dd', null, h('span', { class: 'v ' + cellClass(k, v) }, t ? `${t} (${v})` : cellText(k, v).slice(0, 1000)));
    if (isScalar(v)) {
      const preview = v === null ? 'null' : t || (typeof v === 'string' ? quoteString(v) : String(v));
      const short = preview.length > 40 ? preview.slice(0, 39) + '…' : preview;
      const mk = (neg) => h('button', {
        type: 'button', class: 'filter', 'data-field': k, 'data-neg': neg ? '1' : '',
        title: `Add “and ${condition(k, v, neg, !!t)}” to the query`,
      }, `${neg ? '≠' : '='} ${short}`);
      dd.append(h('span', { class: 'filters' }, mk(false), mk(true)));
    }
    dl.append(h('dt', null, k), dd);
  }
  setText($('details-json'), stringify(row, 2));
  setText($('details-status'), '');
  show($('details'), true);
  $('details-h').focus();
  st.detailTr = tr;
}

function closeDetails(restore = true) {
  if ($('details').hidden) return;
  show($('details'), false);
  for (const x of $('results').querySelectorAll('tr.selected')) x.classList.remove('selected');
  if (restore && st.detailTr && st.detailTr.isConnected) st.detailTr.focus();
  st.detail = null;
  st.detailTr = null;
}

// onEscape closes the column chooser, else the details; true when it did.
export function onEscape() {
  if (closePopovers()) return true;
  if (!$('details').hidden) {
    closeDetails();
    return true;
  }
  return false;
}

function addFilter(field, neg) {
  const row = st.detail;
  if (!row) return;
  const v = row[field];
  const cond = condition(field, v, neg, !!timeText(field, v));
  const q = addCondition($('query').value, cond);
  if (q === null) {
    setText($('explore-alert'), `Could not find where to add the condition; add it by hand: ${cond}`);
    return;
  }
  $('query').value = q;
  updateGutter();
  run();
}

// ---- live tail -----------------------------------------------------------

function reading() {
  const wrap = $('results-wrap');
  if (wrap.scrollTop > 4) return true;
  const sel = window.getSelection();
  return !!(sel && !sel.isCollapsed && sel.rangeCount && $('results').contains(sel.getRangeAt(0).commonAncestorContainer));
}

function updateNewEvents() {
  const b = $('new-events');
  const n = st.buffer.length;
  setText(b, `${fmtCount(n)} new event${n === 1 ? '' : 's'}`);
  show(b, n > 0);
}

function prepend(events) {
  if (!events.length) return;
  if (!st.columns.length) {
    st.columns = Object.keys(events[0]);
    renderHead();
    renderColumnChooser();
  }
  const tbody = $('results').tBodies[0];
  const frag = document.createDocumentFragment();
  const newest = events.slice().reverse();
  for (const ev of newest) frag.append(rowEl(ev));
  tbody.prepend(frag);
  st.rows = newest.concat(st.rows);
  while (st.rows.length > MAX_LIVE_ROWS) {
    st.rows.pop();
    if (tbody.lastElementChild) tbody.lastElementChild.remove();
  }
  show($('results-empty'), false);
  for (const b of document.querySelectorAll('[data-export]')) b.disabled = false;
}

function flushQueue() {
  st.flushTimer = 0;
  const evs = st.queue.splice(0);
  if (!evs.length) return;
  if (reading() || st.buffer.length) {
    st.buffer.push(...evs);
    updateNewEvents();
  } else {
    prepend(evs);
  }
}

function showBuffered() {
  const evs = st.buffer.splice(0);
  prepend(evs);
  updateNewEvents();
  $('results-wrap').scrollTop = 0;
}

function setTailStatus(text, kind) {
  const el = $('tail-status');
  setText(el, text);
  el.dataset.kind = kind || '';
}

function stopTail() {
  if (st.tail) st.tail.stop();
  st.tail = null;
  clearTimeout(st.flushTimer);
  st.flushTimer = 0;
  st.queue = [];
}

function startTail() {
  stopTail();
  if (!st.source) {
    $('live').checked = false;
    setText($('explore-alert'), 'Choose a source to tail.');
    return;
  }
  const tail = new Tail(st.source, $('lql').value, {
    onEvent(ev) {
      if (st.tail !== tail) return;
      st.queue.push(ev);
      if (!st.flushTimer) st.flushTimer = setTimeout(flushQueue, 150);
    },
    onStatus(text, kind) {
      if (st.tail === tail) setTailStatus(text, kind);
    },
    onError(msg) {
      if (st.tail !== tail) return;
      st.tail = null;
      $('live').checked = false;
      setTailStatus('', '');
      setText($('explore-alert'), 'Live tail: ' + msg);
    },
  });
  st.tail = tail;
  tail.start();
  if (document.visibilityState === 'hidden') tail.pause();
}

function setLive(on) {
  if (on) {
    readInputs();
    startTail();
  } else {
    stopTail();
    setTailStatus('', '');
  }
}

// ---- entering / leaving --------------------------------------------------

export async function enterExplorer(params) {
  await fillSources();
  const src = params.get('source');
  const q = params.get('q');
  const from = parseISO(params.get('from'));
  const to = parseISO(params.get('to'));
  let changed = false;
  if (src !== null && src !== st.source) {
    setSource(src);
    if (q === null) st.q = defaultQuery(src);
    changed = true;
  }
  if (q !== null && q !== st.q) {
    st.q = q;
    changed = true;
  }
  if (Number.isFinite(from) && Number.isFinite(to) && (from !== st.from || to !== st.to)) {
    setRange(from, to);
    changed = true;
  }
  if (!Number.isFinite(st.from) || !Number.isFinite(st.to)) {
    const end = nowCeil();
    setRange(end - 3600000, end);
  }
  if (!st.q && !st.source) {
    const first = $('source').options[1] && $('source').options[1].value !== OTHER ? $('source').options[1].value : '';
    if (first) {
      setSource(first);
      st.q = defaultQuery(first);
      changed = true;
    }
  }
  if (st.source) $('source').value = st.source;
  $('query').value = st.q;
  updateGutter();
  if ((changed || !st.ran) && st.q) run();
  else writeHash();
}

export function leaveExplorer() {
  if (st.tail) {
    stopTail();
    $('live').checked = false;
    setTailStatus('', '');
  }
  closeColumns();
}

export function focusQuery() {
  const ta = $('query');
  ta.focus();
}

export function resetExplorer() {
  stopTail();
  if (st.ctrl) st.ctrl.abort();
  if (st.hctrl) st.hctrl.abort();
  Object.assign(st, { source: '', q: '', from: NaN, to: NaN, columns: [], rows: [], ran: false, buffer: [], detail: null });
  st.hidden.clear();
  st.extraSources.clear();
  $('live').checked = false;
  $('query').value = '';
  clear($('results').tHead);
  clear($('results').tBodies[0]);
  clear($('source'));
  closeDetails(false);
  clearError();
  setStatus('');
  setTailStatus('', '');
  updateNewEvents();
  show($('results-empty'), false);
  histogram.setMessage('');
  setText($('hist-status'), '');
  $('nav-explore').setAttribute('href', '#/explore');
}

// ---- columns popover -------------------------------------------------------

function closeColumns() {
  show($('columns-panel'), false);
  $('columns-btn').setAttribute('aria-expanded', 'false');
}

export function closePopovers() {
  if (!$('columns-panel').hidden) {
    closeColumns();
    $('columns-btn').focus();
    return true;
  }
  return false;
}

// ---- wiring ----------------------------------------------------------------

function exportRows(kind) {
  const cols = visibleCols();
  const rows = st.rows;
  if (!rows.length) return;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const base = `${(st.source || 'query').replace(/[^A-Za-z0-9._-]+/g, '_')}-${stamp}`;
  if (kind === 'csv') download(toCSV(cols, rows), base + '.csv', 'text/csv;charset=utf-8');
  else if (kind === 'json') download(toJSON(cols, rows), base + '.json', 'application/json');
  else download(toNDJSON(cols, rows), base + '.ndjson', 'application/x-ndjson');
  setStatus(`Exported ${fmtCount(rows.length)} rows as ${kind.toUpperCase()}`);
}

export function initExplorer() {
  histogram = new Histogram($('histogram'), (start, end) => {
    setRange(Math.floor(start / 1000) * 1000, Math.ceil(end / 1000) * 1000);
    run();
  });
  $('explore-form').addEventListener('submit', (e) => {
    e.preventDefault();
    run();
  });
  const ta = $('query');
  ta.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      run();
    }
  });
  ta.addEventListener('input', () => {
    updateGutter();
    if (!$('err-mark').hidden) clearMark();
  });
  ta.addEventListener('scroll', () => {
    $('gutter').scrollTop = ta.scrollTop;
  });
  $('source').addEventListener('change', (e) => {
    const v = e.target.value;
    if (v === OTHER) {
      const o = $('source-other');
      show(o, true);
      o.value = '';
      o.focus();
      return;
    }
    show($('source-other'), false);
    if (v) chooseSource(v);
  });
  $('source-other').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      const v = e.target.value.trim();
      if (v) chooseSource(v);
    } else if (e.key === 'Escape') {
      show(e.target, false);
      $('source').value = st.source;
    }
  });
  for (const b of document.querySelectorAll('[data-range]')) {
    b.addEventListener('click', () => {
      const end = nowCeil();
      setRange(end - Number(b.dataset.range) * 1000, end);
      run();
    });
  }
  // results: click or Enter opens a row's details
  const tbody = $('results').tBodies[0];
  tbody.addEventListener('click', (e) => {
    const tr = e.target.closest('tr');
    if (!tr || !rowOf.has(tr)) return;
    const sel = window.getSelection();
    if (sel && !sel.isCollapsed) return; // selecting text, not opening
    openDetails(rowOf.get(tr), tr);
  });
  tbody.addEventListener('keydown', (e) => {
    const tr = e.target.closest('tr');
    if (!tr || !rowOf.has(tr)) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      openDetails(rowOf.get(tr), tr);
    } else if (e.key === 'ArrowDown' && tr.nextElementSibling) {
      e.preventDefault();
      tr.nextElementSibling.focus();
    } else if (e.key === 'ArrowUp' && tr.previousElementSibling) {
      e.preventDefault();
      tr.previousElementSibling.focus();
    }
  });
  $('details-close').addEventListener('click', () => closeDetails());
  $('details-copy').addEventListener('click', async () => {
    const ok = await copyText($('details-json').textContent);
    setText($('details-status'), ok ? 'Copied the JSON to the clipboard.' : 'Could not copy; select the JSON below and copy it.');
  });
  $('details-fields').addEventListener('click', (e) => {
    const b = e.target.closest('button.filter');
    if (b) addFilter(b.dataset.field, b.dataset.neg === '1');
  });
  // columns
  $('columns-btn').addEventListener('click', () => {
    const p = $('columns-panel');
    const open = p.hidden;
    show(p, open);
    $('columns-btn').setAttribute('aria-expanded', String(open));
    if (open) {
      const first = p.querySelector('input');
      if (first) first.focus();
    }
  });
  $('columns-panel').addEventListener('change', (e) => {
    const c = e.target.dataset.col;
    if (c == null) return;
    if (e.target.checked) st.hidden.delete(c);
    else st.hidden.add(c);
    rerenderKeepScroll();
  });
  $('columns-panel').addEventListener('click', (e) => {
    if (e.target.dataset.all) {
      st.hidden.clear();
      for (const cb of $('columns-panel').querySelectorAll('input')) cb.checked = true;
      rerenderKeepScroll();
    }
  });
  document.addEventListener('pointerdown', (e) => {
    if (!$('columns-panel').hidden && !e.target.closest('.popover-host')) closeColumns();
  });
  for (const b of document.querySelectorAll('[data-export]')) b.addEventListener('click', () => exportRows(b.dataset.export));
  // live tail
  $('live').addEventListener('change', (e) => setLive(e.target.checked));
  $('lql').addEventListener('change', () => {
    if (st.tail) startTail();
  });
  $('lql').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      if ($('live').checked) startTail();
    }
  });
  $('new-events').addEventListener('click', showBuffered);
  document.addEventListener('visibilitychange', () => {
    if (!st.tail) return;
    if (document.visibilityState === 'hidden') st.tail.pause();
    else st.tail.resume();
  });
  updateGutter();
}

function rerenderKeepScroll() {
  const wrap = $('results-wrap');
  const top = wrap.scrollTop;
  const left = wrap.scrollLeft;
  renderHead();
  const tbody = $('results').tBodies[0];
  const frag = document.createDocumentFragment();
  for (const r of st.rows) frag.append(rowEl(r));
  clear(tbody).append(frag);
  wrap.scrollTop = top;
  wrap.scrollLeft = left;
}
