package sqlfunc

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"logq/collation"
	"logq/expr"
	"logq/types"
)

// ORDER BY x COLLATE 'spec' (a query's, a window's, or inside an
// aggregate call) sorts by collation_key(x, spec): BYTES that order as the
// collation orders x and are equal where it holds two strings equal, so the
// sort, its ties (RANK's peers) and a top-k need nothing else. The spec is
// read by collation.Parse; a binary one (empty, 'binary', 'unicode')
// leaves the key as it is.
func registerCollationFuncs() {
	registerCollateFunc()
	registerCollatedSearch()
	// The spec is checked where the binder makes the key (an ORDER BY's
	// COLLATE may name any); a binary one leaves the value as it is
	// (Simplify), any other makes it a STRING first.
	expr.Register("collation_key", def(2, 2, func(c *expr.Call) (types.Type, error) {
		k, ok := c.Args[1].(*expr.Const)
		if !ok || k.V.Null || k.V.T.Kind != types.KindString {
			return types.Type{}, fmt.Errorf("the collation of COLLATE must be a STRING literal")
		}
		coll, err := collation.Parse(k.V.S)
		if err != nil {
			return types.Type{}, err
		}
		if !coll.Binary() {
			x, err := expr.CoerceTo(c.Args[0], types.String)
			if err != nil {
				return types.Type{}, fmt.Errorf("COLLATE: %w", err)
			}
			c.Args[0] = x
		}
		return types.Bytes, nil
	}, withCollation(func(coll *collation.Collation, a []types.Value) (types.Value, error) {
		return types.Value{T: types.Bytes, S: string(coll.Key(nil, a[0].S))}, nil
	}), false)).Simplify = func(c *expr.Call) expr.Expr {
		if k, ok := c.Args[1].(*expr.Const); ok && !k.V.Null && types.CollationBinary(k.V.S) {
			return c.Args[0]
		}
		return c
	}
}

// withCollation makes the evaluation of an internal collation function,
// whose last argument is the collation's spec.
func withCollation(f func(coll *collation.Collation, a []types.Value) (types.Value, error)) func(*expr.Call, []types.Value) (types.Value, error) {
	return func(c *expr.Call, a []types.Value) (types.Value, error) {
		coll, err := collation.Parse(a[len(a)-1].S)
		if err != nil {
			return types.Value{}, expr.EvalErr("%v", err)
		}
		return f(coll, a)
	}
}

// COLLATE(value, spec) gives value the collation spec: comparisons that
// read it (=, !=, <, <=, >, >=, IS DISTINCT FROM, IN, BETWEEN, CASE,
// NULLIF, IN UNNEST), ORDER BY, PARTITION BY and COUNT(DISTINCT) follow
// the collation; the functions that pass a string on (LOWER, CONCAT,
// SUBSTR, COALESCE, IF, array subscripts, …) keep it on their result, as
// BigQuery propagates it. Anything else that would compare a collated
// string (GROUP BY, DISTINCT, set operations, MIN, the string search
// functions, LIKE, …) is refused by name rather than answered in code point
// order. A comparison under a collation compares collation keys, so it
// needs nothing from the executor; the keys of 'binary' are the strings.
func registerCollateFunc() {
	expr.Register("collate", def(2, 2, func(c *expr.Call) (types.Type, error) {
		x, err := expr.CoerceTo(c.Args[0], types.String)
		if err != nil || x.Type().Kind != types.KindString {
			return types.Type{}, fmt.Errorf("COLLATE applies to a STRING, not %s", c.Args[0].Type())
		}
		c.Args[0] = x
		k, ok := c.Args[1].(*expr.Const)
		if !ok || k.V.Null || k.V.T.Kind != types.KindString {
			return types.Type{}, fmt.Errorf("the collation of COLLATE must be a STRING literal")
		}
		coll, err := collation.Parse(k.V.S)
		if err != nil {
			return types.Type{}, err
		}
		t := types.String
		t.SetCollation(coll.Spec)
		return t, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		return a[0], nil
	}, false)).NoFold = true // a folded constant would lose the collation
	expr.Register("like_collated", def(3, 3, func(c *expr.Call) (types.Type, error) {
		return types.Bool, nil
	}, withCollation(func(coll *collation.Collation, a []types.Value) (types.Value, error) {
		ok, err := coll.Like(a[0].S, a[1].S)
		if err != nil {
			return types.Value{}, expr.EvalErr("%v", err)
		}
		return types.BoolValue(ok), nil
	}), false))
	expr.Register("collation_keys", def(2, 2, func(c *expr.Call) (types.Type, error) {
		return types.ArrayOf(types.Bytes), nil
	}, withCollation(func(coll *collation.Collation, a []types.Value) (types.Value, error) {
		out := make([]types.Value, len(a[0].L))
		for i, e := range a[0].L {
			out[i] = types.NullOf(types.Bytes)
			if !e.Null {
				out[i] = types.Value{T: types.Bytes, S: string(coll.Key(nil, e.S))}
			}
		}
		return types.ArrayValue(types.Bytes, out), nil
	}), false))
}

// registerCollatedSearch defines STRPOS, INSTR, STARTS_WITH, ENDS_WITH,
// REPLACE and SPLIT under a collation: a match is where the collation holds
// the text equal to the substring (golang.org/x/text/search), so 'A\u070Fbc'
// holds 'ABC' under 'und:ci'.
func registerCollatedSearch() {
	expr.Register("strpos_collated", def(3, 3, typed(types.Int64), withCollation(func(coll *collation.Collation, a []types.Value) (types.Value, error) {
		if a[1].S == "" {
			return types.IntValue(1), nil
		}
		start, _ := coll.Index(a[0].S, a[1].S, 0)
		if start < 0 {
			return types.IntValue(0), nil
		}
		return types.IntValue(int64(utf8.RuneCountInString(a[0].S[:start])) + 1), nil
	}), false))
	expr.Register("instr_collated", def(5, 5, typed(types.Int64), withCollation(func(coll *collation.Collation, a []types.Value) (types.Value, error) {
		pos, occ := a[2].I, a[3].I
		if pos == 0 {
			return types.Value{}, expr.EvalErr("INSTR: the position must not be 0")
		}
		if occ <= 0 {
			return types.Value{}, expr.EvalErr("INSTR: the occurrence must be positive, got %d", occ)
		}
		s, sub := a[0].S, a[1].S
		at := starts(s)
		n := int64(len(at) - 1)
		match := func(i int64) bool {
			if sub == "" {
				return true
			}
			_, ok := coll.MatchAt(s, sub, at[i])
			return ok
		}
		return types.IntValue(instrAt(n, n-1, match, pos, occ, false)), nil
	}), false))
	expr.Register("starts_with_collated", def(3, 3, typed(types.Bool), withCollation(func(coll *collation.Collation, a []types.Value) (types.Value, error) {
		if a[1].S == "" {
			return types.BoolValue(true), nil
		}
		_, ok := coll.MatchAt(a[0].S, a[1].S, 0)
		return types.BoolValue(ok), nil
	}), false))
	expr.Register("ends_with_collated", def(3, 3, typed(types.Bool), withCollation(func(coll *collation.Collation, a []types.Value) (types.Value, error) {
		s, suffix := a[0].S, a[1].S
		if suffix == "" {
			return types.BoolValue(true), nil
		}
		for _, i := range starts(s) {
			if end, ok := coll.MatchAt(s, suffix, i); ok && end == len(s) {
				return types.BoolValue(true), nil
			}
		}
		return types.BoolValue(false), nil
	}), false))
	expr.Register("replace_collated", def(4, 4, checkReplaceCollated, withCollation(func(coll *collation.Collation, a []types.Value) (types.Value, error) {
		s, from, to := a[0].S, a[1].S, a[2].S
		if from == "" {
			return a[0], nil
		}
		var b strings.Builder
		last := 0
		matches(coll, s, from, func(start, end int) {
			b.WriteString(s[last:start])
			b.WriteString(to)
			last = end
		})
		b.WriteString(s[last:])
		return types.StringValue(b.String()), nil
	}), false))
	expr.Register("split_collated", def(3, 3, checkSplitCollated, withCollation(func(coll *collation.Collation, a []types.Value) (types.Value, error) {
		s, sep := a[0].S, a[1].S
		var parts []types.Value
		if sep == "" {
			for _, r := range s {
				parts = append(parts, types.StringValue(string(r)))
			}
			if len(parts) == 0 {
				parts = append(parts, types.StringValue(""))
			}
			return types.ArrayValue(types.String, parts), nil
		}
		last := 0
		matches(coll, s, sep, func(start, end int) {
			parts = append(parts, types.StringValue(s[last:start]))
			last = end
		})
		parts = append(parts, types.StringValue(s[last:]))
		return types.ArrayValue(types.String, parts), nil
	}), false))
}

// starts lists the byte offsets of s's characters, and len(s).
func starts(s string) []int {
	var out []int
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}

func typed(t types.Type) func(c *expr.Call) (types.Type, error) {
	return func(c *expr.Call) (types.Type, error) { return t, nil }
}

// each match, left to right, without overlap
func matches(coll *collation.Collation, s, sub string, f func(start, end int)) {
	for from := 0; from <= len(s); {
		start, end := coll.Index(s, sub, from)
		if start < 0 || end <= start {
			return
		}
		f(start, end)
		from = end
	}
}

func checkReplaceCollated(c *expr.Call) (types.Type, error) { return c.Args[0].Type(), nil }

func checkSplitCollated(c *expr.Call) (types.Type, error) { return c.T, nil }
