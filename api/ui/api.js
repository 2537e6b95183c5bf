// Calls to logq's API: same origin only, the key in the X-API-KEY header
// (never in a URL), answers parsed so that integers past 2^53 keep their
// digits (as BigInt).

const KEY = 'logq.apiKey';

export function getKey() {
  try {
    return sessionStorage.getItem(KEY) || localStorage.getItem(KEY) || '';
  } catch {
    return '';
  }
}

export function setKey(key, remember) {
  clearKey();
  (remember ? localStorage : sessionStorage).setItem(KEY, key);
}

export function clearKey() {
  try {
    sessionStorage.removeItem(KEY);
    localStorage.removeItem(KEY);
  } catch { /* storage disabled */ }
}

export class ApiError extends Error {
  constructor(status, body, message, ms) {
    super(message);
    this.status = status;
    this.body = body || null;
    this.ms = ms;
    const first = body && Array.isArray(body.errors) ? body.errors[0] : null;
    this.reason = first ? first.reason || '' : '';
    this.location = first ? first.location || '' : '';
  }
  // lineCol returns {line, col} when the error points into the SQL.
  lineCol() {
    let m = /^(\d+):(\d+)$/.exec(this.location || '');
    if (!m) m = /^(\d+):(\d+):/.exec(this.message || '');
    return m ? { line: +m[1], col: +m[2] } : null;
  }
}

// parseJSON parses JSON keeping integers beyond Number's exact range as
// BigInt, from the source text (JSON.parse's reviver context).
export function parseJSON(text) {
  return JSON.parse(text, (k, v, ctx) => {
    if (typeof v === 'number' && !Number.isSafeInteger(v) && ctx && typeof ctx.source === 'string' && /^-?\d+$/.test(ctx.source)) {
      return BigInt(ctx.source);
    }
    return v;
  });
}

let onUnauthenticated = null;
// setUnauthenticatedHandler is told when the server refuses the key itself
// (401 "unauthenticated"), e.g. after it was revoked.
export function setUnauthenticatedHandler(f) {
  onUnauthenticated = f;
}

// call sends one request: params go in the query string (never the key),
// body (an object) as JSON. It resolves to {data, headers, status, ms}.
export async function call(path, { method = 'GET', params, body, signal, key, quiet } = {}) {
  const url = new URL(path, location.origin);
  if (params) {
    for (const [k, v] of Object.entries(params)) {
      if (v != null) url.searchParams.set(k, String(v));
    }
  }
  const headers = { 'X-API-KEY': key ?? getKey(), Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const t0 = performance.now();
  let res;
  try {
    res = await fetch(url, {
      method, headers, signal, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(0, null, 'Could not reach the server: ' + (e && e.message ? e.message : e), performance.now() - t0);
  }
  const text = await res.text();
  let data = null;
  let bad = false;
  if (text) {
    try {
      data = parseJSON(text);
    } catch {
      bad = true;
    }
  }
  const ms = performance.now() - t0;
  if (!res.ok) {
    const err = data && data.error ? data.error : null;
    const e = new ApiError(res.status, err, err && err.message ? err.message : `${res.status} ${res.statusText || 'error'}`, ms);
    if (res.status === 401 && e.reason === 'unauthenticated' && !quiet && onUnauthenticated) onUnauthenticated(e);
    throw e;
  }
  if (bad) throw new ApiError(res.status, null, 'The server answered with something that is not JSON', ms);
  return { data, headers: res.headers, status: res.status, ms };
}

export function listSources(opts) {
  return call('/api/sources', opts).then((r) => r.data);
}

export function listEndpoints(opts) {
  return call('/api/endpoints', opts).then((r) => (r.data && r.data.result) || []);
}

// query runs an ad-hoc SELECT; every extra parameter is bound as @name.
export function query(sql, params, opts = {}) {
  return call('/api/query', { ...opts, method: 'POST', body: { ...params, sql } });
}

export function endpointPath(name) {
  return '/api/endpoints/query/' + encodeURIComponent(name);
}
