// Package exec runs logical plans from the planner over a storage engine.
//
// Storage (storage.go) is what a query reads: View returns one query's
// catalog and is offered every plan node, top down, before exec builds it
// from its own operators (build, in run.go: the one builder switch), so an
// engine answers whatever subtrees it can. Local (local.go) is the local log
// store's: it answers scans, and the shapes over a scan that its segments
// make faster (parallel aggregates and first-rows windows, newest-first
// top-k and windows); a remote engine (package clickhouse) answers what it
// can translate. The local store is known only in the files named local_*
// (local.go, local_scan.go, local_scan_dict.go, local_maskcache.go,
// local_partials.go, local_shares.go, local_late_json.go,
// local_window_newest.go;
// layout_test.go checks it): everything else sees
// storage through the interfaces this package defines (Storage, View, Dict
// for a dictionary column a vector's codes index, lateRows for the rows a
// late field's references point into).
//
// Parallel workers read the segments that meet a scan's time range, dealt
// out in turn; a scan over fewer than two such segments, or few rows, runs
// on one (local_shares.go).
//
// A caller that only writes rows in the API's encoding (Request.RecordsAsJSON)
// gets nested records read late as JSON text written straight from their
// columns, without assembling them as values (late_json.go); the local
// store keeps the texts it wrote last, so that rows asked for again are
// copied, not written again (local_late_json.go).
//
// A prepared query keeps its bound plan per parameter set (plancache.go,
// over planner.Template): from its second call with the same values, while
// the schemas of the sources it read are unchanged, a call copies that plan
// with its own time instead of binding the query again. An aggregate of
// such a plan whose only change from call to call is its scan's time range
// keeps its partial result over each segment, with the bounds it was read
// within (the open segment's over the rows it had, a later call reading
// only those that arrived since), and merges them with what it reads of
// the others (local_partials.go). The kept-things caches are bounded by
// bytes (byte_lru.go).
//
// Each plan node becomes a pull operator: Next returns the next Batch of rows
// (typed column vectors) or nil at the end. A batch is valid until the next
// call; an operator that keeps rows copies them. So the vectors an
// evaluator and a scan write batches into are taken from a pool and given
// back when the query ends (vector_pool.go): a small query reuses storage
// a previous one cleared instead of allocating it.
//
// Batches are dense: a filter compacts the columns it keeps instead of
// carrying a selection vector. The kernels then stay simple loops over plain
// slices, and compaction costs one gather per surviving column, which the
// scan already does anyway when it reads storage.
//
// Scans prune whole segments by time range and by dictionary (an equality on
// a string that a segment's dictionary lacks skips it), check the remaining
// pushed predicates on compact storage (integer timestamps, dictionary codes),
// and only then read the other fields, for the surviving rows only. A
// predicate on one string field of a dictionary column is answered per
// entry, and that answer is kept across queries (local_maskcache.go): a
// sealed segment never changes, an open one's dictionaries only grow. A
// nested
// record used as a value is not assembled by the scan: its vector holds row
// references, assembled when a value is finally needed (for the 100 rows a
// top-k keeps, not the million it looked at).
//
// Scalar functions are defined once, as an expr.Func registered by the
// function library (package sqlfunc, which this package links); kernels.go
// attaches optional vectorised kernels to registered names, and every other
// call is evaluated row by row with the function the plan resolved it to
// (expr.Call.Def, expr.Eval): no row looks a name up. SAFE. calls use the
// kernels too, falling back to the row path when one fails.
// registry_test.go fails if a registered function has no golden case
// whose bound plan calls it; kernel_eval_test.go checks every kernel against
// the row path on random batches. The golden cases (testdata/golden) are
// read by package golden, which the ClickHouse engine's tests share.
//
// Joins: hash joins on the ON's equalities, nested loops otherwise; RIGHT and
// FULL add a pass over unmatched right rows (op_join_outer.go). INTERSECT and
// EXCEPT DISTINCT are op_setop.go; UNION DISTINCT is an aggregate.
//
// Aggregates are defined in expr (expr.Agg, registered by sqlfunc);
// aggStates (op_agg.go) makes each one's state, and each state family is one
// file holding its update, result and merge: op_agg_count.go (COUNT,
// COUNTIF, COUNT(DISTINCT) and APPROX_COUNT_DISTINCT, exact, their sets
// charged to the memory budget), op_agg_sum.go, op_agg_extreme.go (MIN, MAX,
// ANY_VALUE), op_agg_bit.go (BIT_AND/OR/XOR, LOGICAL_AND/OR), op_agg_list.go
// (STRING_AGG, ARRAY_AGG: every value charged), op_agg_concat.go
// (ARRAY_CONCAT_AGG), op_agg_topcount.go, op_agg_var.go and op_agg_covar.go
// (FLOAT64 moments), op_agg_moments_decimal.go (NUMERIC moments, exact),
// op_agg_hll.go (HLL_COUNT), op_agg_kll.go (KLL_QUANTILES; both on
// op_agg_sketches.go's sketch per group), op_agg_having.go (HAVING MAX|MIN),
// op_agg_distinct.go (DISTINCT of the others) and op_agg_quantiles.go. APPROX_QUANTILES is exact (nearest
// rank) while a group has at most exactQuantileLimit values, then switches
// to a merging t-digest (quantile.go).
//
// Window functions (op_window.go: the operator and its sort;
// op_window_funcs.go: numbering and navigation, by name in windowFuncs;
// op_window_frame.go; op_window_agg.go: aggregates over frames;
// op_window_topn.go: first-rows admission): the operator keeps its input rows, sorts
// row numbers once per call by partition and ORDER BY keys, and computes
// each partition: numbering and navigation directly, aggregates with the
// aggregate states above (one group per partition for the whole-partition
// frame, fed row by row for frames starting at UNBOUNDED PRECEDING,
// recomputed per row otherwise). A Window marked TopN (the first k rows per
// partition) keeps only those while it reads: a row displaced by a later row
// of its own batch never reaches the stores, and for k = 1 by one integer key
// each partition has one store row, overwritten in place. Over a linear scan
// chain it is fed by parallel workers that each keep their share's first rows
// (op_window_parallel.go). When k = 1 and the order is the scan's timestamp
// DESC, its scans read segments newest first and skip a segment once every
// partition it can hold (dictionary entries, a narrow integer column's
// values) has a newer row (local_window_newest.go).
//
// Grouping keys (GROUP BY, DISTINCT, window partitions) are numbered by one
// grouper (grouper.go): a STRING key read from a dictionary column by its
// per-segment codes (Vector.dict), small integers through a table, other
// single integers and strings through a map, anything else by its encoded
// bytes.
//
// Subqueries in expressions (op_subquery.go) are uncorrelated: each runs
// once per query before the plan's operators are built, and is replaced by
// its value, or for IN by a hash set (inSet) with BigQuery's three-valued
// logic (a set per key for a correlated IN), or for a decorrelated scalar subquery (planner.SubKeyed) by a map
// from key to value (keyedValue; a key with two rows fails when read).
//
// Memory: Request.MemoryBudget bounds the rows that joins, sorts,
// aggregates, windows and IN/ARRAY subqueries keep (budget.go; an estimate, shared by a query's workers); past
// it a query fails with KindResources.
//
// Query.Sandboxed puts a caller's SQL in place of a sandboxed endpoint's
// final SELECT (planner.Sandbox says what it may read).
//
// Errors: runtime errors are *Error with a Kind (a query error keeps its
// line:col in the query text); one recover at the top of Run
// turns a bug into KindInternal with the stack. A segment file that cannot
// be read is KindUnavailable, with a message that names no server path;
// values read late (nested records, late fields) that cannot be read fail
// the query before any row is answered (readFailure). Run honours ctx
// cancellation and deadlines between batches.
//
// This package imports types, event (schemas), sqlparse, expr, sqlfunc (to
// link the function library), planner, hll and kll (sketch states) and, in its
// local_ files only, logstore.
package exec
