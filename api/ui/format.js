// Formatting: exact timestamps, sizes, ages, JSON with big integers,
// CSV / NDJSON / YAML, downloads and the clipboard.

const US_PER_S = 1000000n;

const pad = (n, w = 2) => String(n).padStart(w, '0');

// civil converts days since 1970-01-01 to [year, month, day] (proleptic
// Gregorian; H. Hinnant's algorithm, integers only).
function civil(days) {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

// usToISO renders integer microseconds since the epoch as ISO 8601 UTC with
// all six fraction digits, exactly (BigInt math, no floating point).
export function usToISO(v) {
  let us;
  try {
    us = BigInt(v);
  } catch {
    return String(v);
  }
  let secs = us / US_PER_S;
  let frac = us % US_PER_S;
  if (frac < 0n) {
    frac += US_PER_S;
    secs -= 1n;
  }
  let days = secs / 86400n;
  let rem = secs % 86400n;
  if (rem < 0n) {
    rem += 86400n;
    days -= 1n;
  }
  const [y, m, d] = civil(Number(days));
  const r = Number(rem);
  const ys = y < 0 ? '-' + pad(-y, 4) : y > 9999 ? '+' + y : pad(y, 4);
  return `${ys}-${pad(m)}-${pad(d)}T${pad(Math.floor(r / 3600))}:${pad(Math.floor(r / 60) % 60)}:${pad(r % 60)}.${pad(Number(frac), 6)}Z`;
}

// msToISO: a Date's milliseconds as ISO 8601 UTC, seconds precision when whole.
export function msToISO(ms) {
  const s = new Date(ms).toISOString();
  return s.endsWith('.000Z') ? s.slice(0, -5) + 'Z' : s;
}

// normISO pads an RFC 3339 UTC string's fraction to six digits
// ("2026-12-05T10:28:24.23936Z" → "…24.239360Z") without parsing it.
export function normISO(s) {
  if (typeof s !== 'string') return s == null ? '' : String(s);
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(s);
  if (!m) return s;
  const frac = (m[2] || '').padEnd(6, '0');
  return `${m[1]}.${frac}${m[3]}`;
}

const isInt = (v) => typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));

// timeText returns the ISO text of a value that is a TIMESTAMP (integer µs)
// by the rule: a column named timestamp, or a 16-digit integer in a column
// whose name contains "time"; else null.
export function timeText(col, v) {
  if (!isInt(v)) return null;
  const name = String(col).toLowerCase();
  if (name === 'timestamp') return usToISO(v);
  if (name.includes('time')) {
    const digits = String(v).replace('-', '').length;
    if (digits === 16) return usToISO(v);
  }
  return null;
}

// stringify is JSON.stringify that writes BigInt values as their digits.
export function stringify(v, indent) {
  if (typeof JSON.rawJSON === 'function') {
    return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? JSON.rawJSON(x.toString()) : x), indent);
  }
  const text = JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? '\u0000big:' + x.toString() + '\u0000' : x), indent);
  return text === undefined ? text : text.replace(/"\\u0000big:(-?\d+)\\u0000"/g, '$1');
}

export function isScalar(v) {
  return v === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof v);
}

// cellText is how a value reads in a table cell.
export function cellText(col, v) {
  if (v === null || v === undefined) return 'null';
  const t = timeText(col, v);
  if (t) return t;
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return stringify(v);
  return String(v);
}

export function cellClass(col, v) {
  if (v === null || v === undefined) return 'null';
  if (timeText(col, v)) return 'time';
  if (typeof v === 'number' || typeof v === 'bigint') return 'num';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object') return 'obj';
  return 'str';
}

export function fmtCount(n) {
  if (n == null) return '–';
  if (typeof n === 'bigint') return n.toLocaleString('en-US');
  return Number(n).toLocaleString('en-US');
}

export function fmtBytes(n) {
  if (n == null) return '–';
  n = Number(n);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2)} ${units[i]}`;
}

export function fmtAgo(ms) {
  if (!Number.isFinite(ms)) return '–';
  if (ms < 0) return 'in the future';
  const s = Math.floor(ms / 1000);
  if (s < 10) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const hr = Math.floor(m / 60);
  if (hr < 48) return `${hr} h ago`;
  return `${Math.floor(hr / 24)} d ago`;
}

export function fmtMs(ms) {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

// ---- exports ---------------------------------------------------------

function csvField(s) {
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

// formulaStart: what a spreadsheet takes for the start of a formula. Log
// fields are written by whoever sent the request (a user agent, a path), so
// a string cell starting so gets a leading ' (OWASP's "CSV injection"
// advice): opened in a spreadsheet it shows as text and runs nothing.
const formulaStart = /^[=+\-@\t\r]/;

// toCSV: RFC 4180, CRLF lines, a header row; timestamps as ISO 8601, nested
// values as JSON, NULL as an empty field, strings that a spreadsheet would
// run guarded with a leading '.
export function toCSV(cols, rows) {
  const lines = [cols.map(csvField).join(',')];
  for (const r of rows) {
    lines.push(cols.map((c) => {
      const v = r[c];
      if (v === null || v === undefined) return '';
      let text = cellText(c, v);
      if (typeof v === 'string' && formulaStart.test(text)) text = "'" + text;
      return csvField(text);
    }).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

export function pick(cols, row) {
  const o = {};
  for (const c of cols) o[c] = row[c] === undefined ? null : row[c];
  return o;
}

export function toJSON(cols, rows) {
  return stringify(rows.map((r) => pick(cols, r)), 2) + '\n';
}

export function toNDJSON(cols, rows) {
  return rows.map((r) => stringify(pick(cols, r))).join('\n') + (rows.length ? '\n' : '');
}

export function download(text, filename, type) {
  const blob = new Blob([text], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// copyText copies to the clipboard (the async API, else a selected textarea).
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch { /* fall back */ }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.className = 'offscreen';
  document.body.append(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch { ok = false; }
  ta.remove();
  return ok;
}

// ---- YAML (for logq test files) ----------------------------------------

const YAML_PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.\-]*$/;
const YAML_RESERVED = /^(?:true|false|yes|no|on|off|y|n|null|~)$/i;

// yamlStr: a double-quoted YAML scalar (JSON's escapes are YAML's), with
// the characters YAML treats as breaks or as non-printable escaped too.
export function yamlStr(s) {
  return JSON.stringify(String(s)).replace(/[\u007f-\u009f\u2028\u2029\ufeff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

export function yamlKey(k) {
  return YAML_PLAIN_KEY.test(k) && !YAML_RESERVED.test(k) ? k : yamlStr(k);
}

// yamlFlow writes a value in YAML flow style (JSON-like, exact integers).
export function yamlFlow(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? stringify(v) : 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return yamlStr(v);
  if (Array.isArray(v)) return '[' + v.map(yamlFlow).join(', ') + ']';
  const parts = Object.entries(v).map(([k, x]) => `${yamlKey(k)}: ${yamlFlow(x)}`);
  return '{' + parts.join(', ') + '}';
}
