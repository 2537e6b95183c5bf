// SQL text helpers: quoting, the explorer's default and histogram queries,
// adding a condition to a query's WHERE clause, and line:col positions.

const RESERVED = new Set(('all and any array as asc assert_rows_modified at between by case cast collate contains create cross cube current default ' +
  'define desc distinct else end enum escape except exclude exists extract false fetch following for from full group grouping groups hash having ' +
  'if ignore in inner intersect interval into is join lateral left like limit lookup merge natural new no not null nulls of on or order outer over ' +
  'partition preceding proto qualify range recursive respect right rollup rows select set some struct tablesample then to treat true unbounded ' +
  'union unnest using when where window with within').split(' '));

// quoteIdent writes a column name as SQL: bare when it can be, else in backticks.
export function quoteIdent(name) {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !RESERVED.has(name.toLowerCase())) return name;
  return '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';
}

// quoteTable writes a source name as a table reference (always backticked:
// names with dots or dashes need it).
export function quoteTable(name) {
  return '`' + String(name).replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';
}

// quoteString writes a BigQuery string literal.
export function quoteString(s) {
  let out = "'";
  for (const ch of String(s)) {
    const c = ch.codePointAt(0);
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + "'";
}

// literal writes a row's value as SQL; isTime marks a TIMESTAMP (µs integer).
export function literal(v, isTime) {
  if (v === null || v === undefined) return 'null';
  if (isTime) return `timestamp_micros(${v})`;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : `cast(${quoteString(String(v))} as float64)`;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return quoteString(v);
}

// condition is "field = value" (or !=, IS [NOT] NULL for null).
export function condition(field, v, negate, isTime) {
  const f = quoteIdent(field);
  if (v === null || v === undefined) return `${f} is ${negate ? 'not ' : ''}null`;
  return `${f} ${negate ? '!=' : '='} ${literal(v, isTime)}`;
}

export function defaultQuery(source) {
  return `select timestamp, id, event_message, metadata
from ${quoteTable(source)}
where timestamp >= timestamp(@from) and timestamp < timestamp(@to)
order by timestamp desc
limit 100`;
}

export function histogramQuery(source, unit) {
  return `select timestamp_trunc(timestamp, ${unit}) as t, count(*) as n
from ${quoteTable(source)}
where timestamp >= timestamp(@from) and timestamp < timestamp(@to)
group by t
order by t`;
}

// filteredHistogramQuery counts, per unit, the rows the query's own FROM
// and WHERE give (its WITH clause kept) within the range (@from, @to): the
// histogram of what the query looks at. It is null when the query is not
// one SELECT with a FROM (a set operation, or no FROM); then the source's
// histogram is shown instead. (GROUP BY 1: a FROM item may well be called
// t.)
export function filteredHistogramQuery(sql, unit) {
  const { words, semicolon } = scan(sql);
  const si = words.findIndex((t) => t.w === 'select');
  if (si < 0 || words.some((t, k) => k > si && isSetOp(words, k))) return null;
  const fi = words.findIndex((t, k) => k > si && isFrom(words, k));
  if (fi < 0) return null;
  const from = words[fi];
  const end = words.find((t) => t.start > from.end && AFTER_WHERE.has(t.w));
  const body = sql.slice(from.start, Math.min(end ? end.start : sql.length, semicolon)).replace(/\s+$/, '');
  return addCondition(sql.slice(0, words[si].start) +
    `select timestamp_trunc(timestamp, ${unit}) as t, count(*) as n\n${body}\ngroup by 1\norder by 1`,
  'timestamp >= timestamp(@from) and timestamp < timestamp(@to)');
}

// isFrom tells a FROM clause's keyword at words[k] from the FROM of
// IS [NOT] DISTINCT FROM.
function isFrom(words, k) {
  return words[k].w === 'from' && !(k > 0 && words[k - 1].w === 'distinct');
}

// scan tokenizes SQL just enough to find top-level keywords: it skips
// strings, quoted names and comments and tracks parenthesis depth.
function scan(sql) {
  const words = []; // {w, start, end} at depth 0
  const comments = []; // [start, end)
  let semicolon = sql.length; // the first one at depth 0: the statement's end
  let depth = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-' || c === '#') {
      const j = sql.indexOf('\n', i);
      const e = j < 0 ? n : j;
      comments.push([i, e]);
      i = e;
    } else if (c === '/' && sql[i + 1] === '*') {
      const j = sql.indexOf('*/', i + 2);
      const e = j < 0 ? n : j + 2;
      comments.push([i, e]);
      i = e;
    } else if (c === "'" || c === '"' || c === '`') {
      const triple = c !== '`' && sql.startsWith(c + c + c, i);
      const q = triple ? c + c + c : c;
      let j = i + q.length;
      while (j < n) {
        if (sql[j] === '\\') {
          j += 2;
          continue;
        }
        if (sql.startsWith(q, j)) break;
        if (!triple && sql[j] === '\n' && c !== '`') break;
        j++;
      }
      i = Math.min(n, j + q.length);
    } else if (c === '(' || c === '[') {
      depth++;
      i++;
    } else if (c === ')' || c === ']') {
      depth = Math.max(0, depth - 1);
      i++;
    } else if (c === ';' && depth === 0) {
      semicolon = Math.min(semicolon, i);
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(sql[j])) j++;
      // a string prefix: r'..', b'..', rb'..'
      if (/^(?:r|b|rb|br)$/i.test(sql.slice(i, j)) && (sql[j] === "'" || sql[j] === '"')) {
        i = j;
        continue;
      }
      if (depth === 0 && sql[i - 1] !== '.' && sql[i - 1] !== '@') words.push({ w: sql.slice(i, j).toLowerCase(), start: i, end: j });
      i = j;
    } else {
      i++;
    }
  }
  return { words, comments, semicolon };
}

const AFTER_WHERE = new Set(['group', 'having', 'qualify', 'window', 'order', 'limit']);
// isSetOp tells a set operation's keyword at words[k] (EXCEPT is one only
// as EXCEPT DISTINCT or ALL: SELECT * EXCEPT (x) is not).
function isSetOp(words, k) {
  const w = words[k].w;
  if (w === 'except') return k + 1 < words.length && (words[k + 1].w === 'distinct' || words[k + 1].w === 'all');
  return w === 'union' || w === 'intersect';
}

// addCondition adds "and cond" to the WHERE clause of the query's first
// top-level SELECT (or a WHERE after its FROM when it has none). It returns
// the new text, or null when it cannot tell where the clause goes.
export function addCondition(sql, cond) {
  const { words, comments, semicolon } = scan(sql);
  const si = words.findIndex((t) => t.w === 'select');
  if (si < 0) return null;
  let segEnd = semicolon;
  let last = words.length;
  for (let k = si + 1; k < words.length; k++) {
    if (isSetOp(words, k)) {
      segEnd = words[k].start;
      last = k;
      break;
    }
  }
  const seg = words.slice(si + 1, last);
  const clauseEndAfter = (pos) => {
    const t = seg.find((x) => x.start >= pos && AFTER_WHERE.has(x.w));
    return t ? t.start : segEnd;
  };
  const inComment = (pos) => comments.some(([a, b]) => pos > a && pos <= b);
  const where = seg.find((t) => t.w === 'where');
  if (where) {
    const end = clauseEndAfter(where.end);
    let bodyEnd = end;
    while (bodyEnd > where.end && /\s/.test(sql[bodyEnd - 1])) bodyEnd--;
    let body = sql.slice(where.end, bodyEnd);
    const hasOr = seg.some((t) => t.w === 'or' && t.start >= where.end && t.start < bodyEnd);
    const nl = inComment(bodyEnd) ? '\n' : '';
    if (hasOr) body = ' (' + body.replace(/^\s+/, '') + nl + ')';
    return sql.slice(0, where.end) + body + `\n  and ${cond}` + onNewLine(sql.slice(bodyEnd));
  }
  const fk = words.findIndex((t, k) => k > si && k < last && isFrom(words, k));
  const from = fk < 0 ? null : words[fk];
  if (!from) return null;
  const end = clauseEndAfter(from.end);
  let at = end;
  while (at > from.end && /\s/.test(sql[at - 1])) at--;
  return sql.slice(0, at) + `\nwhere ${cond}` + onNewLine(sql.slice(at));
}

// onNewLine starts the rest of a query (its next clause) on a line of its own.
function onNewLine(rest) {
  return /^[ \t]*\S/.test(rest) ? rest.replace(/^[ \t]*/, '\n') : rest;
}

// offsetOf converts a 1-based line and byte column (as the server counts
// them) to an offset into the JavaScript string.
export function offsetOf(text, line, col) {
  const lines = text.split('\n');
  let off = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) off += lines[i].length + 1;
  const l = lines[Math.min(line, lines.length) - 1] || '';
  const bytes = new TextEncoder().encode(l);
  const prefix = new TextDecoder().decode(bytes.slice(0, Math.max(0, col - 1)));
  return Math.min(text.length, off + Math.min(prefix.length, l.length));
}
