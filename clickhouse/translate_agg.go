package clickhouse

import (
	"slices"
	"strconv"
	"strings"

	"logq/expr"
	"logq/planner"
	"logq/types"
)

// Aggregates in ClickHouse SQL. Each is written over a Nullable argument so
// that a group of only NULLs (or no rows, without keys) gives NULL as in
// BigQuery, not ClickHouse's zero of the type:
//
//	COUNT(*), COUNT(x), COUNTIF(c)   count(), count(x), countIf(c)
//	COUNT(DISTINCT x)                uniqExact(x) (NULL for none: 0)
//	SUM, AVG of INT64                the sum of Decimal128s (exact; a SUM past
//	                                 INT64 fails converting back, as BigQuery's)
//	SUM, AVG of FLOAT64              sum, avg
//	MIN, MAX                         min, max; FLOAT64 NaN when any value is
//	LOGICAL_AND, LOGICAL_OR          min, max of the 0/1 values
//	APPROX_QUANTILES(x, n) read at   exec's nearest rank, element max(⌈r·N/n⌉, 1)
//	constant ranks only              of the N values sorted: for INT64,
//	                                 quantileExact (quantilesExact past two
//	                                 ranks) at a level just under r/n
//	                                 (quantileLevel); for FLOAT64 (NaN first)
//	                                 the sorted values' element
//
// Float sums and averages may differ from exec's in the last bits: shards
// add in another order. ANY_VALUE, STRING_AGG, ARRAY_AGG, the variances and
// the rest run in exec.

// aggregate adds GROUP BY n.Keys and n's aggregates to r.
func (r *rel) aggregate(n *planner.Aggregate) (*rel, bool) {
	if n.Sets != nil {
		return nil, false // GROUPING SETS run in exec
	}
	var cols []rcol
	var group []string
	for _, k := range n.Keys {
		if kind := k.Type().Kind; !comparable(kind) || kind == types.KindFloat64 {
			return nil, false // NaN and -0 would group otherwise than in exec
		}
		s, ok := chExpr(r.cols, k, false)
		if !ok {
			return nil, false
		}
		group = append(group, s)
		cols = append(cols, rcol{t: k.Type(), sql: s})
	}
	for _, a := range n.Aggs {
		c, ok := aggCol(r.cols, a)
		if !ok {
			return nil, false
		}
		cols = append(cols, c)
	}
	r.group, r.agg, r.cols = group, true, cols
	return r, true
}

func aggCol(in []rcol, a expr.AggCall) (rcol, bool) {
	if a.HasLimit || len(a.Order) > 0 || a.IgnoreNulls || a.RespectNulls || a.Having != 0 || a.Filtered {
		return rcol{}, false
	}
	if a.Star {
		return rcol{t: a.T, sql: "toInt64(count())"}, a.Fn == "count"
	}
	if len(a.Args) == 0 {
		return rcol{}, false
	}
	if len(a.Args) > 1 && (a.Fn == "min" || a.Fn == "max") {
		return rcol{}, false // MIN/MAX by a collation key: run in logq
	}
	filter := a.Fn == "countif" // NULL counts as false
	x, ok := chExpr(in, a.Args[0], filter)
	if !ok {
		return rcol{}, false
	}
	kind := a.Args[0].Type().Kind
	numeric := kind == types.KindInt64 || kind == types.KindFloat64
	out := func(s string, ok bool) (rcol, bool) { return rcol{t: a.T, sql: s}, ok }
	if a.Distinct {
		if a.Fn != "count" || !comparable(kind) || kind == types.KindFloat64 {
			return rcol{}, false
		}
		return out("toInt64(ifNull(uniqExact("+x+"), 0))", true)
	}
	switch a.Fn {
	case "count":
		return out("toInt64(count("+x+"))", true)
	case "countif":
		return out("toInt64(countIf("+x+"))", true)
	case "sum", "avg":
		if kind == types.KindFloat64 {
			// ClickHouse adds in FLOAT64: a partial sum past it is ±inf
			// for good, where logq goes on in a wide float and BigQuery in
			// a wider one. A non-finite result from finite values alone
			// is an error (throwIf, the overflow queryError reports),
			// never an infinity logq would not give.
			agg := a.Fn + "(toNullable(" + x + "))"
			guard := "throwIf(ifNull(NOT isFinite(" + agg + "), 0) AND countIf(NOT isFinite(" + x + ")) = 0)"
			return out("("+agg+" + "+guard+")", true)
		}
		// INT64 sums exactly in 128 bits, as BigQuery does (ClickHouse's
		// Int64 sum wraps); toInt64 of a sum past INT64 fails with
		// DECIMAL_OVERFLOW, which queryError reports as the overflow.
		sum := "sum(toDecimal128(toNullable(" + x + "), 0))"
		if a.Fn == "sum" {
			return out("toInt64("+sum+")", numeric)
		}
		// A group without values sums to NULL, and NULL / 0 is NULL.
		return out("toFloat64("+sum+") / count("+x+")", numeric)
	case "min", "max":
		if kind == types.KindFloat64 {
			return out(floatExtreme(a.Fn, x), true)
		}
		return out(a.Fn+"(toNullable("+x+"))", comparable(kind))
	case "logical_and":
		return out("min(toNullable("+x+"))", kind == types.KindBool)
	case "logical_or":
		return out("max(toNullable("+x+"))", kind == types.KindBool)
	case "approx_quantiles":
		if !numeric || len(a.Ranks) == 0 {
			return rcol{}, false
		}
		n := int(a.Args[1].(*expr.Const).V.I)
		if kind == types.KindInt64 && slices.Max(a.Ranks) <= maxQuantileRank {
			// Each quantileExact keeps its own copy of the group's values:
			// up to two ranks (p95 and p99, say) that is cheaper to analyse
			// than one quantilesExact, past two it is the memory of one
			// copy per rank, so they share one quantilesExact (whose empty
			// group is zeros, not NULL: count says which).
			levels := make([]string, len(a.Ranks))
			for i, r := range a.Ranks {
				levels[i] = strconv.FormatFloat(quantileLevel(r, n), 'g', -1, 64)
			}
			all := "quantilesExact(" + strings.Join(levels, ", ") + ")(toNullable(" + x + "))"
			at := map[int]string{}
			for i, r := range a.Ranks {
				if len(a.Ranks) <= 2 {
					at[r] = "quantileExact(" + levels[i] + ")(toNullable(" + x + "))"
				} else {
					at[r] = "if(count(" + x + ") = 0, NULL, toNullable(arrayElement(" + all + ", " + strconv.Itoa(i+1) + ")))"
				}
			}
			return rcol{t: a.T, quant: &quantCol{at: at, n: n, ranks: a.Ranks, elem: *a.T.Elem}}, true
		}
		sorted := "arraySort(groupArray(" + x + "))"
		if kind == types.KindFloat64 {
			g := "groupArray(" + x + ")"
			sorted = "arrayConcat(arrayFilter(v -> isNaN(v), " + g + "), arraySort(arrayFilter(v -> NOT isNaN(v), " + g + ")))"
		}
		return rcol{t: a.T, quant: &quantCol{sorted: sorted, n: n, ranks: a.Ranks, elem: *a.T.Elem}}, true
	}
	return rcol{}, false
}

// quantileLevel is the level at which ClickHouse's quantileExact, which
// reads sorted element ⌊level·N⌋ (from 0) of N values, reads exec's rank
// r of n: element max(⌈r·N/n⌉, 1) (from 1). r·N/n is a whole k or lies at
// least 1/n above one; a level ε = 2^-40/n under r/n takes ⌊·⌋ to k-1 in the
// first case and leaves it in the second, for any N under 2^38. The two
// roundings (of the level, and of level·N in ClickHouse; 2·r·N/n·2^-53 at
// most) stay under ε·N while r is under 2^12: past maxQuantileRank the
// sorted values are read instead.
func quantileLevel(r, n int) float64 {
	if r == 0 {
		return 0
	}
	return (float64(r) - 0x1p-40) / float64(n)
}

const maxQuantileRank = 4000

// floatExtreme is MIN or MAX of a FLOAT64: NaN when any value is, as
// BigQuery's are.
func floatExtreme(fn, x string) string {
	nan := "ifNull(isNaN(" + x + "), 0)"
	return "multiIf(countIf(" + nan + ") > 0, toNullable(nan), " + fn + "(toNullable(" + x + ")))"
}

// quantileElement writes OFFSET(q, k) (or ORDINAL, SAFE_…) of a quantiles
// column at one of the ranks it was computed for: NULL for a group without
// values, as exec's NULL array gives.
func quantileElement(cols []rcol, e expr.Expr) (string, bool) {
	c, ok := e.(*expr.Call)
	if !ok || len(c.Args) != 2 {
		return "", false
	}
	base := 0
	switch c.Fn {
	case "offset", "safe_offset":
	case "ordinal", "safe_ordinal":
		base = 1
	default:
		return "", false
	}
	ref, ok := c.Args[0].(*expr.ColRef)
	if !ok || cols[ref.Idx].quant == nil {
		return "", false
	}
	k, ok := c.Args[1].(*expr.Const)
	if !ok || k.V.Null || k.V.T.Kind != types.KindInt64 {
		return "", false
	}
	// The array holds the ranks read alone: the planner renumbered the
	// reads to index it (expr.AggCall.Ranks).
	q, i := cols[ref.Idx].quant, int(k.V.I)-base
	if i < 0 || i >= len(q.ranks) {
		return "", false
	}
	rank := q.ranks[i]
	if q.at != nil {
		return q.at[rank], true
	}
	s := q.sorted
	at := "toUInt64(greatest(ceil(" + strconv.Itoa(rank) + " * length(" + s + ") / " + strconv.Itoa(q.n) + "), 1))"
	return "multiIf(length(" + s + ") = 0, CAST(NULL AS " + sqlType(q.elem) + "), toNullable(arrayElement(" + s + ", " + at + ")))", true
}
