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
//     BERNOULLI's). They are a filter over the item as it is bound, so its
//     names (alias, value table, an UNNEST's element) stay as they are.
//     WITH WEIGHT adds a column, 100/size, NULL where an outer join pads
//     the item: then it is the item's derived table, as RESERVOIR is.
//   - RESERVOIR (ROWS, ≥ 0) keeps size rows chosen uniformly (all of them
//     when there are fewer), per group of PARTITION BY's values when given
//     (NULL is a value, as in GROUP BY). It is the derived table it stands
//     for, under the item's alias: `SELECT * FROM item ORDER BY draw LIMIT
//     size`, or `QUALIFY ROW_NUMBER() OVER (PARTITION BY … ORDER BY draw)
//     <= size`; WITH WEIGHT is the rows of the group (or the input) over
//     the rows kept of it. An UNNEST or a SELECT AS VALUE item, whose names
//     a derived table would change, is refused for a derived table (a
//     subquery around it is not).
//   - REPEATABLE(seed) makes the draw a hash of the seed and the row's
//     values (for a log source, the event's id and timestamp), so the same
//     rows and seed give the same sample. Without it each run draws anew.
//   - The size is an INT64 or FLOAT64 constant (ROWS an INT64), the seed an
//     INT64: a literal, or a parameter CAST to a number (logq's parameters
//     are strings).
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
	// RESERVOIR, and a weight (a column of the sampled rows, NULL where an
	// outer join pads them), are a derived table of the item.
	derived := f.Rows || f.Weight
	_, unnest := f.From.(*sqlparse.UnnestRef)
	var path bool
	switch in := f.From.(type) {
	case *sqlparse.Join:
		b.fail(f.At, "TABLESAMPLE of a join is not supported: sample one of its FROM items")
	case *sqlparse.TableRef:
		path = b.pathUnnest(in, sc) != nil
	case *sqlparse.SubqueryRef:
		if derived && isValueTable(in.Query) {
			b.fail(f.At, "TABLESAMPLE RESERVOIR or WITH WEIGHT of a SELECT AS VALUE subquery is not supported: select the value as a column")
		}
	}
	if (unnest || path) && (derived || len(sc.vars) > 0) {
		// A derived table would rename an UNNEST's element, and beside a
		// left side the array may be that side's rows'.
		b.fail(f.At, "TABLESAMPLE of an UNNEST or an array path is supported only with BERNOULLI or SYSTEM without WITH WEIGHT, first in its FROM: sample a subquery, (SELECT … FROM UNNEST(…)) TABLESAMPLE …")
	}
	alias := fromAlias(f.From)

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
	weightAs := f.WeightAs
	if weightAs == "" {
		weightAs = "weight"
	}

	// The row's draw, in [0, 1): RAND(), or with REPEATABLE 53 bits of a
	// hash of the seed and the row's values, read through the row's name.
	from := f.From
	draw := func() sqlparse.Expr { return call("rand") }
	if f.Repeatable != nil {
		seed := b.sampleConst(f.Repeatable, "REPEATABLE", true).I
		row := alias
		if row == "" && !derived {
			b.fail(f.At, "TABLESAMPLE … REPEATABLE draws from the row's values: give the FROM item an alias")
		}
		if row == "" {
			row = "$sample"
			star := &sqlparse.SelectItem{At: at, Star: true}
			from = &sqlparse.SubqueryRef{At: at, Query: &sqlparse.Query{At: at, Body: &sqlparse.Select{At: at, Items: []*sqlparse.SelectItem{star}, From: from}}, Alias: row}
		}
		// An event of a log source is named by its id and timestamp (its
		// whole JSON would cost ~25 µs an event).
		text := func() sqlparse.Expr { return call("to_json_string", id(row)) }
		if t, ok := f.From.(*sqlparse.TableRef); ok && !path && env.lookup(t.Name) == nil {
			text = func() sqlparse.Expr {
				field := func(name string) sqlparse.Expr { return &sqlparse.Ident{At: at, Parts: []string{row, name}} }
				return call("concat", field("id"), &sqlparse.Literal{At: at, Kind: sqlparse.LitString, Value: ":"},
					&sqlparse.Cast{At: at, X: call("unix_micros", field("timestamp")), TypeName: "STRING"})
			}
		}
		draw = func() sqlparse.Expr {
			h := call("farm_fingerprint", call("concat",
				&sqlparse.Literal{At: at, Kind: sqlparse.LitString, Value: strconv.FormatInt(seed, 10) + ":"}, text()))
			bits := &sqlparse.Binary{At: at, Op: "&", L: h, R: integer(1<<53 - 1)}
			return &sqlparse.Binary{At: at, Op: "/", L: bits, R: num(1 << 53)}
		}
	}

	sel := &sqlparse.Select{At: at, From: from, Items: []*sqlparse.SelectItem{{At: at, Star: true}}}
	q := &sqlparse.Query{At: at, Body: sel}
	if !f.Rows {
		v := b.sampleConst(f.Size, "PERCENT", false)
		pct := v.F
		if v.T.Kind == types.KindInt64 {
			pct = float64(v.I)
		}
		if pct > 100 {
			b.fail(f.Size.Pos(), "PERCENT value must be in the range [0, 100], found %v", pct)
		}
		kept := &sqlparse.Binary{At: at, Op: "<", L: draw(), R: num(pct / 100)}
		if !derived {
			// The item as it is, filtered: a constant row stays a row
			// source, so that the filter has rows to drop.
			keep := b.keepConstRows
			b.keepConstRows = true
			t := b.from(from, env, sc, where)
			b.keepConstRows = keep
			return &fromTree{sub: t, cond: b.boolExpr(kept, &exprCtx{sc: sc}, "TABLESAMPLE")}
		}
		w := 1.0 // no row is kept at 0%: any weight
		if pct > 0 {
			w = 100 / pct
		}
		sel.Where = kept
		sel.Items = append(sel.Items, &sqlparse.SelectItem{At: at, Expr: num(w), Alias: weightAs})
		return b.from(&sqlparse.SubqueryRef{At: at, Query: q, Alias: alias}, env, sc, where)
	}

	k := b.sampleConst(f.Size, "ROWS", true).I
	if len(f.PartitionBy) == 0 {
		q.OrderBy = []*sqlparse.OrderItem{{At: at, Expr: draw()}}
		q.Limit = integer(k)
	} else {
		rank := call("row_number")
		rank.Over = &sqlparse.WindowSpec{At: at, PartitionBy: f.PartitionBy, OrderBy: []*sqlparse.OrderItem{{At: at, Expr: draw()}}}
		sel.Qualify = &sqlparse.Binary{At: at, Op: "<=", L: rank, R: integer(k)}
	}
	if f.Weight {
		var w sqlparse.Expr = num(1) // no row is kept of 0 rows: any weight
		if k > 0 {
			rows := func() sqlparse.Expr {
				n := call("count")
				n.Star, n.Over = true, &sqlparse.WindowSpec{At: at, PartitionBy: f.PartitionBy}
				return n
			}
			w = &sqlparse.Binary{At: at, Op: "/", L: rows(), R: call("least", integer(k), rows())}
		}
		sel.Items = append(sel.Items, &sqlparse.SelectItem{At: at, Expr: w, Alias: weightAs})
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
