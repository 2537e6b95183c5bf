package planner

import (
	"fmt"
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// GROUP BY ROLLUP, CUBE and GROUPING SETS. The GROUP BY items expand to
// grouping sets over one list of distinct keys; the Aggregate groups by
// every key plus a last one, the set's number, which the executor fills in
// (a key outside a row's set is NULL there). GROUPING(x) reads the set
// number: 1 when x is not grouped in the row's set.

// maxGroupingSets bounds the expansion (CUBE of n keys is 2^n sets).
const maxGroupingSets = 4096

// groupingSetKey is the placeholder of the set-number key: a call nobody
// can write (its name is not a name), so toAggOutput maps only GROUPING's
// uses of it to the key column. A new one each time: plans share no nodes.
func groupingSetKey() expr.Expr { return &expr.Call{Fn: "$grouping_set", T: types.Int64} }

// grouping is what GROUPING(x) needs of the GROUP BY being bound.
type grouping struct {
	keys []expr.Expr // the grouping keys, bound (without the set number)
	sets [][]bool    // per set, which keys it groups by
	key  func(sqlparse.Expr) expr.Expr
	busy bool // binding GROUPING's argument (an alias may lead back to it)
}

// hasGroupingSets reports whether GROUP BY uses ROLLUP, CUBE or GROUPING SETS.
func hasGroupingSets(items []sqlparse.Expr) bool {
	for _, g := range items {
		if isRollupOrCube(g) {
			return true
		}
		if _, ok := g.(*sqlparse.GroupingSets); ok {
			return true
		}
	}
	return false
}

func isRollupOrCube(e sqlparse.Expr) bool {
	c, ok := e.(*sqlparse.Call)
	if !ok || c.Over != nil {
		return false
	}
	n := strings.ToUpper(c.Name)
	return n == "ROLLUP" || n == "CUBE"
}

// groupingSets expands the GROUP BY items into keys and sets: the sets of
// the items side by side, every combination (GROUP BY a, ROLLUP(b) is
// (a, b) and (a)).
func (b *binder) groupingSets(items []sqlparse.Expr, key func(sqlparse.Expr) expr.Expr) *grouping {
	g := &grouping{key: key}
	index := func(e sqlparse.Expr) int {
		k := key(e)
		for i, have := range g.keys {
			if have.String() == k.String() {
				return i
			}
		}
		g.keys = append(g.keys, k)
		return len(g.keys) - 1
	}
	// expand returns the sets (as key indexes) one item stands for.
	var expand func(e sqlparse.Expr) [][]int
	expand = func(e sqlparse.Expr) [][]int {
		switch x := e.(type) {
		case *sqlparse.GroupingSets:
			var out [][]int
			for _, set := range x.Sets {
				if set.Paren {
					var s []int
					for _, a := range set.Exprs {
						s = append(s, index(a))
					}
					out = append(out, s)
					continue
				}
				out = append(out, expand(set.Exprs[0])...)
			}
			return out
		case *sqlparse.Call:
			if !isRollupOrCube(x) {
				break
			}
			if x.Star || x.Distinct || len(x.Args) == 0 {
				b.fail(x.At, "%s takes one or more grouping expressions", strings.ToUpper(x.Name))
			}
			b.noAggModifiers(x, strings.ToLower(x.Name)) // bind_aggmods.go
			// Each argument is a unit: an expression, or a parenthesised
			// list grouped together ((a, b) in ROLLUP(x, (a, b))).
			units := make([][]int, len(x.Args))
			for i, a := range x.Args {
				if _, nested := a.(*sqlparse.GroupingSets); nested || isRollupOrCube(a) {
					b.fail(a.Pos(), "%s cannot nest ROLLUP, CUBE or GROUPING SETS", strings.ToUpper(x.Name))
				}
				if t, ok := a.(*sqlparse.StructLit); ok && t.Tuple {
					for _, el := range t.Elems {
						units[i] = append(units[i], index(el))
					}
					continue
				}
				units[i] = []int{index(a)}
			}
			var out [][]int
			if strings.EqualFold(x.Name, "ROLLUP") {
				for n := len(units); n >= 0; n-- {
					var s []int
					for _, u := range units[:n] {
						s = append(s, u...)
					}
					out = append(out, s)
				}
				return out
			}
			if len(units) > 12 {
				b.fail(x.At, "CUBE of %d expressions makes too many grouping sets (at most 12)", len(units))
			}
			for m := (1 << len(units)) - 1; m >= 0; m-- {
				var s []int
				for i := range units {
					if m&(1<<i) != 0 {
						s = append(s, units[i]...)
					}
				}
				out = append(out, s)
			}
			return out
		}
		return [][]int{{index(e)}}
	}
	combined := [][]int{{}}
	for _, it := range items {
		sets := expand(it)
		if len(combined)*len(sets) > maxGroupingSets { // before building them
			b.fail(it.Pos(), "GROUP BY makes more than %d grouping sets", maxGroupingSets)
		}
		var next [][]int
		for _, left := range combined {
			for _, right := range sets {
				next = append(next, append(append([]int(nil), left...), right...))
			}
		}
		combined = next
	}
	for _, s := range combined {
		in := make([]bool, len(g.keys))
		for _, i := range s {
			in[i] = true
		}
		g.sets = append(g.sets, in)
	}
	return g
}

// groupingCall binds GROUPING(x): 1 in the rows of sets that do not group
// by x, else 0; x must be one of the grouping keys.
func (b *binder) groupingCall(e *sqlparse.Call, ctx *exprCtx) expr.Expr {
	if ctx.aggs == nil {
		b.fail(e.At, "GROUPING is allowed only in a grouped SELECT")
	}
	if len(e.Args) != 1 || e.Star || e.Distinct {
		b.fail(e.At, "GROUPING takes one grouping expression")
	}
	b.noAggModifiers(e, "grouping") // bind_aggmods.go
	if ctx.aggs.grouping == nil {
		// A plain GROUP BY groups by every key in every row: GROUPING of
		// one of them is 0, as ZetaSQL has it.
		x := b.expr(e.Args[0], &exprCtx{sc: ctx.sc})
		for _, k := range ctx.aggs.plainKeys {
			if k.String() == x.String() {
				return &expr.Const{V: types.IntValue(0)}
			}
		}
		b.fail(e.Args[0].Pos(), "the argument of GROUPING must be a GROUP BY expression")
	}
	g := ctx.aggs.grouping
	if g.busy {
		b.fail(e.At, "the argument of GROUPING cannot refer to a GROUPING call")
	}
	g.busy = true
	x := g.key(e.Args[0]) // as GROUP BY reads it: an alias, an ordinal, an expression
	g.busy = false
	k := -1
	for i, key := range g.keys {
		if key.String() == x.String() {
			k = i
		}
	}
	if k < 0 {
		b.fail(e.Args[0].Pos(), "the argument of GROUPING must be a GROUP BY expression")
	}
	c := &expr.Case{T: types.Int64, Else: &expr.Const{V: types.IntValue(0)}}
	for si, set := range g.sets {
		if !set[k] {
			c.Whens = append(c.Whens, expr.When{
				Cond: b.finish(e.At, &expr.Call{Fn: "=", Args: []expr.Expr{groupingSetKey(), &expr.Const{V: types.IntValue(int64(si))}}}),
				Then: &expr.Const{V: types.IntValue(1)},
			})
		}
	}
	if len(c.Whens) == 0 {
		return c.Else
	}
	return c
}

// explainSets writes the grouping sets of an Aggregate for EXPLAIN.
func explainSets(sets [][]bool) string {
	var parts []string
	for _, s := range sets {
		var in []string
		for i, ok := range s {
			if ok {
				in = append(in, fmt.Sprintf("$key%d", i))
			}
		}
		parts = append(parts, "("+strings.Join(in, ", ")+")")
	}
	return " sets=" + strings.Join(parts, " ")
}
