// The Sources page: every source with its size and how fresh it is.

import { $, h, clear, setText } from './dom.js';
import { listSources } from './api.js';
import { fmtAgo, fmtBytes, fmtCount, normISO } from './format.js';

export const STALE_MS = 3600 * 1000;

let cache = null; // {list, error, at}
let pending = null;
let agoTimer = 0;

// loadSources fetches the list once (again with force); it resolves to
// {list, error} where error is a message when the key may not list them.
export function loadSources(force) {
  if (cache && !force) return Promise.resolve(cache);
  if (pending && !force) return pending;
  pending = listSources({ quiet: false }).then(
    (list) => (cache = { list: Array.isArray(list) ? list.slice().sort((a, b) => String(a.name).localeCompare(String(b.name))) : [], error: null, at: Date.now() }),
    (e) => {
      if (e && (e.status === 401 || e.status === 403)) {
        cache = { list: [], error: 'This key cannot list sources (that needs an admin key). Queries still work: open the Explorer and type a source name.', denied: true, at: Date.now() };
        return cache;
      }
      return { list: [], error: e && e.message ? e.message : String(e) };
    },
  ).finally(() => {
    pending = null;
  });
  return pending;
}

export function forgetSources() {
  cache = null;
}

export function sourceNames() {
  return cache ? cache.list.map((x) => x.name) : [];
}

function lastMs(src) {
  const t = src.last_event ? Date.parse(src.last_event) : NaN;
  return t;
}

function status(src, now) {
  const t = lastMs(src);
  if (!Number.isFinite(t)) return { text: 'empty', cls: 'empty' };
  if (now - t > STALE_MS) return { text: 'stale', cls: 'stale' };
  return { text: 'active', cls: 'ok' };
}

function render(list) {
  const tbody = $('sources-table').tBodies[0];
  clear(tbody);
  const now = Date.now();
  if (!list.length) {
    tbody.append(h('tr', null, h('td', { colspan: 7, class: 'muted' }, 'No sources.')));
    return;
  }
  for (const src of list) {
    const st = status(src, now);
    const href = '#/explore?' + new URLSearchParams({ source: src.name }).toString();
    const tr = h('tr', { class: 'clickable' + (st.cls === 'stale' ? ' is-stale' : ''), 'data-href': href },
      h('th', { scope: 'row' }, h('a', { href, title: `Explore ${src.name} (token ${src.token})` }, src.name)),
      h('td', { class: 'num' }, fmtCount(src.events)),
      h('td', { class: 'num', title: `${fmtCount(src.bytes)} bytes` }, fmtBytes(src.bytes)),
      h('td', { class: 'time' }, src.first_event ? normISO(src.first_event) : '–'),
      h('td', { class: 'time' }, src.last_event ? normISO(src.last_event) : '–'),
      h('td', { class: 'ago', 'data-last': Number.isFinite(lastMs(src)) ? String(lastMs(src)) : '' }, Number.isFinite(lastMs(src)) ? fmtAgo(now - lastMs(src)) : 'never'),
      h('td', null, h('span', { class: 'badge ' + st.cls }, st.text)),
    );
    tbody.append(tr);
  }
}

function refreshAgo() {
  const now = Date.now();
  for (const td of document.querySelectorAll('#sources-table td.ago')) {
    const t = Number(td.dataset.last);
    if (td.dataset.last && Number.isFinite(t)) setText(td, fmtAgo(now - t));
  }
}

export async function showSources(force) {
  const alert = $('sources-alert');
  setText($('sources-status'), 'Loading…');
  const r = await loadSources(force);
  setText(alert, r.error || '');
  render(r.list);
  const n = r.list.length;
  const stale = r.list.filter((x) => status(x, Date.now()).cls === 'stale').length;
  setText($('sources-status'), r.error ? '' : `${n} source${n === 1 ? '' : 's'}${stale ? `, ${stale} stale` : ''} · updated ${new Date().toISOString().slice(11, 19)} UTC`);
  clearInterval(agoTimer);
  agoTimer = setInterval(refreshAgo, 15000);
}

export function leaveSources() {
  clearInterval(agoTimer);
}

export function clearSourcesPage() {
  clear($('sources-table').tBodies[0]);
  setText($('sources-alert'), '');
  setText($('sources-status'), '');
  forgetSources();
}

export function initSources() {
  $('sources-refresh').addEventListener('click', () => showSources(true));
  $('sources-table').addEventListener('click', (e) => {
    if (e.target.closest('a')) return;
    const tr = e.target.closest('tr[data-href]');
    if (tr && window.getSelection().isCollapsed) location.hash = tr.dataset.href;
  });
}
