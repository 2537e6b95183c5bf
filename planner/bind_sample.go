package planner

import (
	"strconv"
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// sample binds TABLESAMPLE, as ZetaSQL defines it (BigQuery has SYSTEM
// with PERCENT): `from_item TABLESAMPLE method (size PERCENT|ROWS
// [PARTITION BY e, …]) [REPEATABLE (seed)] [WITH WEIGHT [[AS] alias]]`.
//
//   - BERNOULLI and SYSTEM (PERCENT, 0–100) keep each row with that
//     probability, independently (SYSTEM may be any method; here it is
//     BERNOULLI's). WITH WEIGHT adds a FLOAT64 column, 100/size.
//   - RESERVOIR (ROWS, ≥ 0) keeps size rows chosen uniformly (all of them
//     when there are fewer), per group of PARTITION BY's values when given
//     (NULL is a value, as in GROUP BY). WITH WEIGHT is the rows in the
//     group (or the input) over the rows kept of it.
//   - REPEATABLE(seed) makes the choice a function of the seed and each
//     row's values (for a log source, the event's id and timestamp), so the
//     same data gives the same sample; rows with equal values are kept or
//     dropped together (ZetaSQL leaves the method to the engine). Without
//     it each run draws anew.
//   - The size (and the seed) is an INT64 or FLOAT64 constant: a literal,
//     or a parameter CAST to a number (logq's parameters are strings).
//
// It is bound as the derived table it stands for, which keeps the from
// item's alias: `SELECT * FROM item WHERE RAND() < size/100`, or
// `… ORDER BY RAND() LIMIT size` for RESERVOIR, with ROW_NUMBER and
// COUNT over the partition for PARTITION BY and the weight.
func (b *binder) sample(f *sqlparse.SampleRef, env *cteEnv, sc *scope, where *[]expr.Expr) *fromTree {
	method := strings.ToUpper(f.Method)
	switch method {
	case "BERNOULLI", "SYSTEM":
		if f.Rows {
			b.fail(f.Size.Pos(), "TABLESAMPLE %s takes a size in PERCENT (RESERVOIR takes ROWS)", method)
		}
	case "RESERVOIR":
		if !f.Rows {
			b.fail(f.Size.Pos(), "TABLESAMPLE RESERVOIR takes a number of ROWS (BERNOULLI and SYSTEM take PERCENT)")
		}
	default:
		b.fail(f.At, "unknown TABLESAMPLE method %s: BERNOULLI, SYSTEM or RESERVOIR", f.Method)
	}
	if len(f.PartitionBy) > 0 && method != "RESERVOIR" {
		b.fail(f.PartitionBy[0].Pos(), "the TABLESAMPLE %s method does not support PARTITION BY: remove PARTITION BY, or use TABLESAMPLE RESERVOIR with ROWS", method)
	}
	if _, ok := f.From.(*sqlparse.Join); ok {
		b.fail(f.At, "TABLESAMPLE of a join is not supported: sample one of its FROM items")
	}
	alias := fromAlias(f)
	at := f.At
	id := func(name string) sqlparse.Expr { return &sqlparse.Ident{At: at, Parts: []string{name}} }
	call := func(name string, args ...sqlparse.Expr) *sqlparse.Call {
		return &sqlparse.Call{At: at, Name: name, Args: args}
	}
	integer := func(v int64) sqlparse.Expr {
		return &sqlparse.Literal{At: at, Kind: sqlparse.LitInt, Value: strconv.FormatInt(v, 10)}
	}
	num := func(v float64) sqlparse.Expr {
		return &sqlparse.Literal{At: at, Kind: sqlparse.LitFloat, Value: strconv.FormatFloat(v, 'g', -1, 64)}
	}
	star := &sqlparse.SelectItem{At: at, Star: true}
	weightAs := f.WeightAs
	if weightAs == "" {
		weightAs = "weight"
	}

	// The row's draw: RAND(), or with REPEATABLE a hash of the seed and the
	// row's values (53 bits of it, as a FLOAT64 in [0, 1)). It reads the
	// from item's row, so it is computed in the SELECT that reads it.
	from := f.From
	draw := func() sqlparse.Expr { return call("rand") }
	if f.Repeatable != nil {
		seed := b.sampleConst(f.Repeatable, "REPEATABLE", true)
		row := alias
		if row == "" {
			row = "$sample"
			from = &sqlparse.SubqueryRef{At: at, Query: &sqlparse.Query{At: at, Body: &sqlparse.Select{At: at, Items: []*sqlparse.SelectItem{star}, From: from}}, Alias: row}
		}
		// A row's values as text: an event of a log source is named by its
		// id and timestamp (writing the whole event costs ~25 µs).
		text := func() sqlparse.Expr { return call("to_json_string", id(row)) }
		if t, ok := f.From.(*sqlparse.TableRef); ok && env.lookup(t.Name) == nil && b.pathUnnest(t, sc) == nil {
			text = func() sqlparse.Expr {
				field := func(name string) sqlparse.Expr { return &sqlparse.Ident{At: at, Parts: []string{row, name}} }
				return call("concat", field("id"), &sqlparse.Literal{At: at, Kind: sqlparse.LitString, Value: ":"},
					&sqlparse.Cast{At: at, X: call("unix_micros", field("timestamp")), TypeName: "STRING"})
			}
		}
		draw = func() sqlparse.Expr {
			h := call("farm_fingerprint", call("concat",
				&sqlparse.Literal{At: at, Kind: sqlparse.LitString, Value: strconv.FormatInt(seed.I, 10) + ":"},
				text()))
			bits := &sqlparse.Binary{At: at, Op: "&", L: h, R: integer(1<<53 - 1)}
			return &sqlparse.Binary{At: at, Op: "/", L: bits, R: num(1 << 53)}
		}
	}

	var q *sqlparse.Query
	if !f.Rows {
		v := b.sampleConst(f.Size, "PERCENT", false)
		pct := v.F
		if v.T.Kind == types.KindInt64 {
			pct = float64(v.I)
		}
		if pct > 100 {
			b.fail(f.Size.Pos(), "PERCENT value must be in the range [0, 100], found %v", pct)
		}
		sel := &sqlparse.Select{At: at, Items: []*sqlparse.SelectItem{star}, From: from,
			Where: &sqlparse.Binary{At: at, Op: "<", L: draw(), R: num(pct / 100)}}
		if f.Weight {
			w := 1.0 // no row is kept at 0%: any weight
			if pct > 0 {
				w = 100 / pct
			}
			sel.Items = append(sel.Items, &sqlparse.SelectItem{At: at, Expr: num(w), Alias: weightAs})
		}
		q = &sqlparse.Query{At: at, Body: sel}
	} else {
		k := integer(b.sampleConst(f.Size, "ROWS", true).I)
		// Inside, each row of the input with its draw, or its rank by draw
		// in its group, and its group's size (the whole input's without
		// PARTITION BY) for the weight; outside, the k first by draw.
		inner := &sqlparse.Select{At: at, From: from, Items: []*sqlparse.SelectItem{star}}
		outer := &sqlparse.Select{At: at, From: &sqlparse.SubqueryRef{At: at, Query: &sqlparse.Query{At: at, Body: inner}}}
		q = &sqlparse.Query{At: at, Body: outer}
		add := func(e sqlparse.Expr, name string) {
			inner.Items = append(inner.Items, &sqlparse.SelectItem{At: at, Expr: e, Alias: name})
		}
		if len(f.PartitionBy) == 0 {
			add(draw(), "$draw")
			q.OrderBy = []*sqlparse.OrderItem{{At: at, Expr: id("$draw")}}
			q.Limit = k
		} else {
			rank := call("row_number")
			rank.Over = &sqlparse.WindowSpec{At: at, PartitionBy: f.PartitionBy, OrderBy: []*sqlparse.OrderItem{{At: at, Expr: draw()}}}
			add(rank, "$rank")
			outer.Where = &sqlparse.Binary{At: at, Op: "<=", L: id("$rank"), R: k}
		}
		if f.Weight {
			n := call("count")
			n.Star, n.Over = true, &sqlparse.WindowSpec{At: at, PartitionBy: f.PartitionBy}
			add(n, "$rows")
		}
		var added []string
		for _, it := range inner.Items[1:] {
			added = append(added, it.Alias)
		}
		outer.Items = []*sqlparse.SelectItem{{At: at, Star: true, Except: added}}
		if f.Weight {
			w := &sqlparse.Binary{At: at, Op: "/", L: id("$rows"), R: call("least", k, id("$rows"))}
			outer.Items = append(outer.Items, &sqlparse.SelectItem{At: at, Expr: w, Alias: weightAs})
		}
	}
	return b.from(&sqlparse.SubqueryRef{At: at, Query: q, Alias: alias}, env, sc, where)
}

// sampleConst reads TABLESAMPLE's size or REPEATABLE's seed (what names
// it): an INT64 (only an INT64 when integer) or FLOAT64 constant, not NULL,
// not negative. While a saved query is checked, a parameter's value is not
// known: 0 stands for it.
func (b *binder) sampleConst(e sqlparse.Expr, what string, integer bool) types.Value {
	x := b.expr(e, &exprCtx{})
	c, ok := x.(*expr.Const)
	if !ok && b.symbolic {
		return types.Value{T: types.Int64}
	}
	k := types.KindNull
	if ok {
		k = c.V.T.Kind
	}
	if !ok || !(k == types.KindInt64 || k == types.KindNull || !integer && k == types.KindFloat64) {
		if integer {
			b.fail(e.Pos(), "%s expects an INT64 constant: a literal, or a parameter CAST to one (CAST(@p AS INT64))", what)
		}
		b.fail(e.Pos(), "%s expects an INT64 or FLOAT64 constant: a literal, or a parameter CAST to one (CAST(@p AS FLOAT64))", what)
	}
	switch {
	case c.V.Null:
		b.fail(e.Pos(), "%s must not be NULL", what)
	case what == "PERCENT" && (k == types.KindInt64 && c.V.I < 0 || k == types.KindFloat64 && !(c.V.F >= 0)):
		b.fail(e.Pos(), "PERCENT value must be in the range [0, 100], found %s", c.V)
	case k == types.KindInt64 && c.V.I < 0:
		b.fail(e.Pos(), "%s must not be negative, found %s", what, c.V)
	}
	return c.V
}
