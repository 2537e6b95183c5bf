// logq's page: sign-in, the router (#/sources, #/explore?…,
// #/endpoints/<name>?…) and the keyboard shortcuts.

import { $, setText, show, isEditable } from './dom.js';
import { ApiError, clearKey, getKey, listEndpoints, setKey, setUnauthenticatedHandler } from './api.js';
import { initSources, showSources, leaveSources, clearSourcesPage } from './sources.js';
import { initExplorer, enterExplorer, leaveExplorer, focusQuery, resetExplorer, onEscape, run } from './explorer.js';
import { initEndpoints, enterEndpoints, setEndpoints, forgetEndpoints } from './endpoints.js';

const PAGES = ['signin', 'sources', 'explore', 'endpoints'];
const TITLES = { signin: 'Sign in', sources: 'Sources', explore: 'Explorer', endpoints: 'Endpoints' };
const NAV = { sources: 'nav-sources', explore: 'nav-explore', endpoints: 'nav-endpoints' };

let signedIn = false;
let page = '';
let focusAfter = false;

function showPage(name) {
  for (const p of PAGES) show($('page-' + p), p === name);
  for (const [p, id] of Object.entries(NAV)) {
    if (p === name) $(id).setAttribute('aria-current', 'page');
    else $(id).removeAttribute('aria-current');
  }
  document.title = `${TITLES[name]} · logq`;
  document.body.dataset.page = name;
}

function parseHash() {
  let raw = location.hash.replace(/^#/, '');
  if (!raw.startsWith('/')) raw = '/sources';
  const qi = raw.indexOf('?');
  const path = qi < 0 ? raw : raw.slice(0, qi);
  const params = new URLSearchParams(qi < 0 ? '' : raw.slice(qi + 1));
  const parts = path.split('/').filter(Boolean);
  let arg = null;
  if (parts[1]) {
    try {
      arg = decodeURIComponent(parts.slice(1).join('/'));
    } catch {
      arg = parts.slice(1).join('/');
    }
  }
  return { page: parts[0] || 'sources', arg, params };
}

async function route() {
  if (!signedIn) {
    showSignin();
    return;
  }
  const r = parseHash();
  if (!['sources', 'explore', 'endpoints'].includes(r.page)) {
    location.replace('#/sources');
    return;
  }
  if (page !== r.page) {
    if (page === 'explore') leaveExplorer();
    if (page === 'sources') leaveSources();
  }
  page = r.page;
  showPage(r.page);
  show($('signout'), true);
  if (r.page === 'sources') {
    await showSources(true);
  } else if (r.page === 'explore') {
    await enterExplorer(r.params);
    if (focusAfter) focusQuery();
  } else {
    await enterEndpoints(r.arg, r.params);
  }
  focusAfter = false;
}

function showSignin(message) {
  if (page === 'explore') leaveExplorer();
  page = 'signin';
  showPage('signin');
  show($('signout'), false);
  setText($('signin-alert'), message || '');
  $('key').focus();
}

async function signIn(e) {
  e.preventDefault();
  const key = $('key').value.trim();
  const alert = $('signin-alert');
  if (!key) {
    setText(alert, 'Enter an API key.');
    $('key').focus();
    return;
  }
  setText(alert, '');
  const btn = $('signin-btn');
  btn.disabled = true;
  btn.setAttribute('aria-busy', 'true');
  try {
    const list = await listEndpoints({ key, quiet: true });
    setKey(key, $('remember').checked);
    setEndpoints(list);
    signedIn = true;
    $('key').value = '';
    page = '';
    await route();
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      setText(alert, err.reason === 'unauthenticated' ? 'That key was not accepted' : `That key was not accepted: ${err.message}`);
      $('key').select();
    } else {
      setText(alert, err && err.message ? err.message : String(err));
    }
  } finally {
    btn.disabled = false;
    btn.removeAttribute('aria-busy');
  }
}

function signOut(message) {
  clearKey();
  signedIn = false;
  resetExplorer();
  forgetEndpoints();
  clearSourcesPage();
  showSignin(message);
}

// ---- shortcuts ---------------------------------------------------------

let gAt = 0;

function openHelp() {
  const d = $('shortcuts');
  if (!d.open) d.showModal();
}

function onKey(e) {
  if (e.defaultPrevented) return;
  if ($('shortcuts').open) return; // the dialog handles Escape itself
  if (e.key === 'Escape') {
    if (page === 'explore' && onEscape()) e.preventDefault();
    return;
  }
  if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
    if (page === 'explore' && !e.target.closest('#page-endpoints')) {
      e.preventDefault();
      run();
    }
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey || isEditable(e.target)) return;
  if (e.key === '?') {
    e.preventDefault();
    openHelp();
  } else if (e.key === '/') {
    if (!signedIn) return;
    e.preventDefault();
    if (page === 'explore') focusQuery();
    else {
      focusAfter = true;
      location.hash = $('nav-explore').getAttribute('href');
    }
  } else if (e.key === 'g') {
    gAt = Date.now();
  } else if (gAt && Date.now() - gAt < 1500 && signedIn) {
    const to = { s: '#/sources', e: $('nav-explore').getAttribute('href'), p: '#/endpoints' }[e.key];
    gAt = 0;
    if (to) {
      e.preventDefault();
      location.hash = to;
    }
  }
}

// ---- start -------------------------------------------------------------

async function start() {
  initSources();
  initExplorer();
  initEndpoints();
  $('signin-form').addEventListener('submit', signIn);
  $('signout').addEventListener('click', () => signOut());
  $('help-btn').addEventListener('click', openHelp);
  $('shortcuts-close').addEventListener('click', () => $('shortcuts').close());
  $('shortcuts').addEventListener('click', (e) => {
    if (e.target === $('shortcuts')) $('shortcuts').close();
  });
  document.querySelector('.skip').addEventListener('click', (e) => {
    e.preventDefault();
    $('main').focus();
  });
  document.addEventListener('keydown', onKey);
  window.addEventListener('hashchange', () => route());
  setUnauthenticatedHandler(() => {
    if (signedIn) signOut('That key was not accepted');
  });
  if (!getKey()) {
    showSignin();
    return;
  }
  try {
    setEndpoints(await listEndpoints({ quiet: true }));
    signedIn = true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      clearKey();
      showSignin('That key was not accepted');
      return;
    }
    signedIn = true; // the server may be down for a moment: let the pages say so
  }
  await route();
}

start();
