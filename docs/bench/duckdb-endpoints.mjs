// The three built-in endpoints' shapes: logq over HTTP, DuckDB in-process.
// Not part of the tests; docs/performance.md has the numbers and the method.
//
//   npm install @duckdb/node-api@1.5.6
//   logq generate --source cloudflare.logs.prod --events 1000000 --out edge.ndjson
//   logq generate --source deno-relay-logs --events 1000000 --out relay.ndjson
//   node duckdb-endpoints.mjs load      # builds $DUCKDB (default bench.duckdb)
//   # copies of fixtures/endpoints/*.yaml named bench.<name>, cache_seconds: 0
//   logq serve --data-dir d --api-key k --addr 127.0.0.1:4100 --endpoints eps
//   # post edge.ndjson and relay.ndjson to /api/logs in bodies of 1000 events
//   node duckdb-endpoints.mjs           # prints one markdown row per shape
import { DuckDBInstance } from '@duckdb/node-api';
const DB = process.env.DUCKDB ?? 'bench.duckdb';
if (process.argv[2] === 'load') {
  const inst = await DuckDBInstance.create(DB);
  const con = await inst.connect();
  await con.run(`set TimeZone='UTC'`);
  for (const [t, f] of [['edge', 'edge.ndjson'], ['relay', 'relay.ndjson']]) {
    const s = Date.now();
    await con.run(`create or replace table ${t} as select * replace (cast("timestamp" as timestamptz) as "timestamp") from read_ndjson_auto('${f}', maximum_object_size=10000000)`);
    console.log(t, 'loaded in', Date.now() - s, 'ms');
  }
  process.exit(0);
}
const inst = await DuckDBInstance.create(DB, { access_mode: 'READ_ONLY' });
const con = await inst.connect();
await con.run(`set TimeZone='UTC'`);
const P = 'proj00ref';
const FN = (await con.runAndReadAll(`select metadata.function_id from relay where metadata.project_ref='${P}' group by 1 order by count(*) desc limit 1`)).getRows()[0][0];
const now = new Date();
const RS = new Date(now - 3 * 86400e3).toISOString(), RE = new Date(now - 2 * 86400e3).toISOString();
const inv = (interval, unit, back, fn) => ({
  name: `invocation-stats ${interval}${fn ? ' function_id' : ''}`,
  ep: 'bench.functions.invocation-stats', params: { project: P, interval, ...(fn ? { function_id: FN } : {}) },
  duck: `select date_trunc('${unit}', "timestamp") as ts, min(metadata.execution_time_ms), max(metadata.execution_time_ms), avg(metadata.execution_time_ms),
    approx_quantile(metadata.execution_time_ms, 0.95), approx_quantile(metadata.execution_time_ms, 0.99), count(*) as count,
    count_if(metadata.response.status_code >= 400)
    from relay where "timestamp" >= date_trunc('${unit}', now() - interval ${back}) and metadata.project_ref = '${P}' ${fn ? `and metadata.function_id = '${FN}'` : ''}
    group by ts order by ts` });
const api = (interval, unit, back) => ({
  name: `api-counts ${interval}`, ep: 'bench.usage.api-counts', params: { project: P, interval },
  duck: `select date_trunc('${unit}', "timestamp") as ts,
    count_if(regexp_matches(metadata.request.path, '/rest')), count_if(regexp_matches(metadata.request.path, '/storage')),
    count_if(regexp_matches(metadata.request.path, '/auth')), count_if(regexp_matches(metadata.request.path, '/realtime'))
    from edge where regexp_matches(metadata.request.url, '${P}') and "timestamp" >= now() - interval ${back} group by ts order by ts` });
const logs = (tier, back, range) => ({
  name: `logs.all ${tier}${range ? ' time range' : ''}`, ep: 'bench.logs.all',
  params: { project: P, project_tier: tier, ...(range ? { iso_timestamp_start: RS, iso_timestamp_end: RE } : {}) },
  duck: `select id, "timestamp", event_message, metadata from edge where project = '${P}' and "timestamp" >= now() - interval ${back}
    ${range ? `and "timestamp" > TIMESTAMPTZ '${RS}' and "timestamp" <= TIMESTAMPTZ '${RE}'` : ''} order by "timestamp" desc limit 100` });
const cases = [
  inv('5min', 'second', '5 minute'), inv('15min', 'minute', '15 minute'), inv('1hr', 'minute', '1 hour'),
  inv('1day', 'hour', '1 day'), inv('7day', 'day', '7 day'), inv('7day', 'day', '7 day', true),
  api('minutely', 'minute', '60 minute'), api('hourly', 'hour', '1 hour'), api('daily', 'day', '7 day'),
  logs('FREE', '1 day'), logs('PRO', '7 day'), logs('PRO', '7 day', true), logs('ENTERPRISE', '90 day'),
];
const med = a => { a.sort((x, y) => x - y); return a[Math.floor(a.length / 2)]; };
async function logq(c) {
  const u = new URL(`http://127.0.0.1:4100/api/endpoints/query/${c.ep}`);
  for (const [k, v] of Object.entries(c.params)) u.searchParams.set(k, v);
  const r = await fetch(u, { headers: { 'X-API-KEY': 'k' } });
  const j = await r.json();
  if (!j.result) throw new Error(JSON.stringify(j));
  if (r.headers.get('logq-cache') === 'hit') throw new Error('cached');
  return j.result;
}
const n = Number(process.env.RUNS ?? 12);
// Warm the HTTP client (connection, JIT) first: otherwise the first shape
// pays for it, whatever the server does.
for (let i = 0; i < 50; i++) await logq(cases[0]);
const out = [];
for (const c of cases) {
  const lt = [], dt = [];
  let lr, dr;
  for (let i = 0; i < n; i++) { const t = performance.now(); lr = await logq(c); if (i >= 2) lt.push(performance.now() - t); }
  for (let i = 0; i < n; i++) { const t = performance.now(); dr = (await con.runAndReadAll(c.duck)).getRows(); if (i >= 2) dt.push(performance.now() - t); }
  const lsum = lr.reduce((s, r) => s + Number(r.count ?? r.total_rest_requests ?? 0), 0);
  const dsum = dr.reduce((s, r) => s + Number(c.ep.includes('invocation') ? r[6] : c.ep.includes('api') ? r[1] : 0), 0);
  const L = med(lt), D = med(dt);
  out.push(`| ${c.name} | ${L.toFixed(1)} | ${D.toFixed(1)} | ${(L / D).toFixed(2)} | ${lr.length}/${dr.length} rows, ${lsum}/${dsum} |`);
  console.log(out[out.length - 1]);
}
console.log(`function_id ${FN}; now ${now.toISOString()}`);
