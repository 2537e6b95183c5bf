package planner

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"logq/types"
)

// ORDER BY x COLLATE 'spec' (a query's, a window's, or inside an
// aggregate call) sorts by collation_key(x, spec): BYTES that order as the
// collation orders x and are equal where it holds two strings equal, so the
// sort, its ties (RANK's peers) and a top-k need nothing else. The spec is
// read by types.ParseCollation; a binary one (empty, 'binary', 'unicode')
// leaves the key as it is.
func registerCollationFuncs() {
	registerCollateFunc()
	registerCollatedSearch()
	register("collation_key", def(2, 2, func(c *Call) (types.Type, error) {
		return types.Bytes, nil
	}, withCollation(func(coll *types.Collation, a []types.Value) (types.Value, error) {
		return types.Value{T: types.Bytes, S: string(coll.Key(nil, a[0].S))}, nil
	}), false))
}

// withCollation makes the evaluation of an internal collation function,
// whose last argument is the collation's spec.
func withCollation(f func(coll *types.Collation, a []types.Value) (types.Value, error)) func(*Call, []types.Value) (types.Value, error) {
	return func(c *Call, a []types.Value) (types.Value, error) {
		coll, err := types.ParseCollation(a[len(a)-1].S)
		if err != nil {
			return types.Value{}, evalErr("%v", err)
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
	register("collate", def(2, 2, func(c *Call) (types.Type, error) {
		x, err := coerceTo(c.Args[0], types.String)
		if err != nil || x.Type().Kind != types.KindString {
			return types.Type{}, fmt.Errorf("COLLATE applies to a STRING, not %s", c.Args[0].Type())
		}
		c.Args[0] = x
		k, ok := c.Args[1].(*Const)
		if !ok || k.V.Null || k.V.T.Kind != types.KindString {
			return types.Type{}, fmt.Errorf("the collation of COLLATE must be a STRING literal")
		}
		coll, err := types.ParseCollation(k.V.S)
		if err != nil {
			return types.Type{}, err
		}
		t := types.String
		t.SetCollation(coll.Spec)
		return t, nil
	}, func(c *Call, a []types.Value) (types.Value, error) {
		return a[0], nil
	}, false)).NoFold = true // a folded constant would lose the collation
	register("like_collated", def(3, 3, func(c *Call) (types.Type, error) {
		return types.Bool, nil
	}, withCollation(func(coll *types.Collation, a []types.Value) (types.Value, error) {
		ok, err := coll.Like(a[0].S, a[1].S)
		if err != nil {
			return types.Value{}, evalErr("%v", err)
		}
		return types.BoolValue(ok), nil
	}), false))
	register("collation_keys", def(2, 2, func(c *Call) (types.Type, error) {
		return types.ArrayOf(types.Bytes), nil
	}, withCollation(func(coll *types.Collation, a []types.Value) (types.Value, error) {
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

// collationCompares are the calls a collation changes, rewritten to compare
// collation keys.
var collationCompares = map[string]bool{"=": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true, "is_distinct_from": true}

// collationPasses are the calls that take a collated string and do not
// compare it: a STRING (or ARRAY<STRING>) result keeps the arguments'
// collation.
var collationPasses = map[string]bool{
	"offset": true, "safe_offset": true, "ordinal": true, "safe_ordinal": true, "field": true,
	"make_array": true, "make_struct": true, "coalesce": true, "if": true, "ifnull": true,
	"lower": true, "upper": true, "concat": true, "||": true, "substr": true, "left": true, "right": true,
	"lpad": true, "rpad": true, "repeat": true, "reverse": true, "length": true, "byte_length": true,
	"array_length": true, "array_reverse": true, "array_concat": true, "array_to_string": true,
	"array_first": true, "array_last": true, "array_slice": true, "array_first_n": true, "array_last_n": true,
	"array_remove_first_n": true, "array_remove_last_n": true, "is_null": true, "cast": true,
	"collate": true, "collation_key": true, "collation_keys": true, "to_code_points": true,
	"ascii": true, "unicode": true, "not": true,
}

// argCollation is the collation a call's arguments agree on: those of its
// STRING and ARRAY<STRING> arguments, where the ones without any defer to
// the one that has one; two different ones are an error, as in BigQuery.
func argCollation(fn string, args []Expr) (string, error) {
	spec := ""
	for _, a := range args {
		t := a.Type()
		if t.Kind == types.KindArray && t.Elem.Kind == types.KindString {
			t = *t.Elem
		}
		if t.Kind != types.KindString || t.Collation() == "" {
			continue
		}
		if spec != "" && spec != t.Collation() {
			return "", fmt.Errorf("%s cannot combine collations '%s' and '%s'", describeFn(strings.ReplaceAll(fn, "_", " ")), spec, t.Collation())
		}
		spec = t.Collation()
	}
	return spec, nil
}

// collated applies collation to a typed call one of whose arguments is
// collated: the call rewritten, or unchanged with its result collated, or
// an error naming what does not take a collated string.
func collated(c *Call) (*Call, error) {
	collatedArg := false
	for _, a := range c.Args {
		collatedArg = collatedArg || a.Type().Collated()
	}
	if !collatedArg {
		return c, nil
	}
	spec, err := argCollation(c.Fn, c.Args)
	if err != nil {
		return nil, err
	}
	coll, err := types.ParseCollation(spec)
	if err != nil {
		return nil, err
	}
	key := func(e Expr) Expr {
		if coll.Binary() || e.Type().Kind != types.KindString {
			return e
		}
		return &Call{Fn: "collation_key", Args: []Expr{e, &Const{V: types.StringValue(spec)}}, T: types.Bytes}
	}
	for _, a := range c.Args {
		if k := a.Type().Kind; (k == types.KindArray || k == types.KindStruct) && a.Type().Collated() && !collationPasses[c.Fn] && c.Fn != "in_unnest" && c.Fn != "like_any" && c.Fn != "like_all" && !arrayFindFns[c.Fn] {
			return nil, fmt.Errorf("%s of an ARRAY or STRUCT holding a collated STRING is not supported", describeFn(c.Fn))
		}
	}
	switch {
	case collationCompares[c.Fn]:
		out := *c
		out.Args = []Expr{key(c.Args[0]), key(c.Args[1])}
		return &out, nil
	case arrayFindFns[c.Fn]: // funcs_array_find.go
		if coll.Binary() {
			return c, nil
		}
		out := *c
		keys := &Call{Fn: "collation_keys", Args: []Expr{c.Args[0], &Const{V: types.StringValue(spec)}}, T: types.ArrayOf(types.Bytes)}
		out.Args = []Expr{c.Args[0], key(c.Args[1]), c.Args[2], keys}
		return &out, nil
	case c.Fn == "in_unnest":
		out := *c
		arr := c.Args[1]
		if !coll.Binary() {
			arr = &Call{Fn: "collation_keys", Args: []Expr{arr, &Const{V: types.StringValue(spec)}}, T: types.ArrayOf(types.Bytes)}
		}
		out.Args = []Expr{key(c.Args[0]), arr}
		return &out, nil
	case collatedSearch[c.Fn] != "":
		if c.Args[0].Type().Kind != types.KindString {
			return nil, fmt.Errorf("%s of a collated STRING needs STRING arguments", describeFn(c.Fn))
		}
		t := c.T
		switch {
		case t.Kind == types.KindString:
			t.SetCollation(spec) // REPLACE keeps it
		case t.Kind == types.KindArray:
			e := *t.Elem
			e.SetCollation(spec) // SPLIT's parts keep it
			t.Elem = &e
		}
		if coll.Binary() {
			c.T = t
			return c, nil
		}
		args := append([]Expr{}, c.Args...)
		if c.Fn == "instr" {
			for len(args) < 4 {
				args = append(args, &Const{V: types.IntValue(1)}) // position, occurrence
			}
		}
		if c.Fn == "split" && len(args) == 1 {
			args = append(args, &Const{V: types.StringValue(",")})
		}
		args = append(args, &Const{V: types.StringValue(spec)})
		return &Call{Fn: collatedSearch[c.Fn], Args: args, T: t}, nil
	case c.Fn == "like_any" || c.Fn == "like_all":
		if coll.Binary() || len(c.Args) == 4 {
			return c, nil
		}
		out := *c
		out.Args = append(append([]Expr{}, c.Args...), &Const{V: types.StringValue(spec)})
		return &out, nil
	case c.Fn == "like":
		if coll.Binary() {
			return c, nil
		}
		return &Call{Fn: "like_collated", Args: []Expr{c.Args[0], c.Args[1], &Const{V: types.StringValue(spec)}}, T: types.Bool}, nil
	case c.Fn == "nullif":
		// NULL where x = y under the collation, else x (with its collation)
		t := c.T
		t.SetCollation(spec)
		eq := &Call{Fn: "=", Args: []Expr{key(c.Args[0]), key(c.Args[1])}, T: types.Bool}
		return &Call{Fn: "if", Args: []Expr{eq, &Const{V: types.NullOf(t)}, c.Args[0]}, T: t}, nil
	case collationPasses[c.Fn]:
		if spec == "" {
			return c, nil
		}
		switch t := c.T; {
		case c.Fn == "collate" || c.Fn == "collation_key" || c.Fn == "collation_keys":
		case t.Kind == types.KindString:
			c.T.SetCollation(spec)
		case t.Kind == types.KindArray && t.Elem.Kind == types.KindString:
			e := *t.Elem
			e.SetCollation(spec)
			c.T.Elem = &e
		}
		return c, nil
	}
	return nil, fmt.Errorf("%s of a collated STRING is not supported", describeFn(c.Fn))
}

// binaryCollated reports whether every collation in t compares bytes.
func binaryCollated(t types.Type) bool {
	if spec := t.Collation(); spec != "" {
		if c, err := types.ParseCollation(spec); err != nil || !c.Binary() {
			return false
		}
	}
	if t.Elem != nil && !binaryCollated(*t.Elem) {
		return false
	}
	for _, f := range t.Fields {
		if !binaryCollated(f.Type) {
			return false
		}
	}
	return true
}

// collatedSearch are the string search functions a collation changes, and
// the internal function each becomes under a non-binary one; the spec is
// its last argument.
var collatedSearch = map[string]string{
	"strpos": "strpos_collated", "instr": "instr_collated", "starts_with": "starts_with_collated",
	"ends_with": "ends_with_collated", "replace": "replace_collated", "split": "split_collated",
}

// registerCollatedSearch defines STRPOS, INSTR, STARTS_WITH, ENDS_WITH,
// REPLACE and SPLIT under a collation: a match is where the collation holds
// the text equal to the substring (golang.org/x/text/search), so 'A\u070Fbc'
// holds 'ABC' under 'und:ci'.
func registerCollatedSearch() {
	// starts lists the byte offsets of s's characters, and len(s).
	starts := func(s string) []int {
		var out []int
		for i := range s {
			out = append(out, i)
		}
		return append(out, len(s))
	}
	typed := func(t types.Type) func(c *Call) (types.Type, error) {
		return func(c *Call) (types.Type, error) { return t, nil }
	}
	register("strpos_collated", def(3, 3, typed(types.Int64), withCollation(func(coll *types.Collation, a []types.Value) (types.Value, error) {
		if a[1].S == "" {
			return types.IntValue(1), nil
		}
		start, _ := coll.Index(a[0].S, a[1].S, 0)
		if start < 0 {
			return types.IntValue(0), nil
		}
		return types.IntValue(int64(utf8.RuneCountInString(a[0].S[:start])) + 1), nil
	}), false))
	register("instr_collated", def(5, 5, typed(types.Int64), withCollation(func(coll *types.Collation, a []types.Value) (types.Value, error) {
		pos, occ := a[2].I, a[3].I
		if pos == 0 {
			return types.Value{}, evalErr("INSTR: the position must not be 0")
		}
		if occ <= 0 {
			return types.Value{}, evalErr("INSTR: the occurrence must be positive, got %d", occ)
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
		return types.IntValue(instrAt(n, n-1, match, pos, occ)), nil
	}), false))
	register("starts_with_collated", def(3, 3, typed(types.Bool), withCollation(func(coll *types.Collation, a []types.Value) (types.Value, error) {
		if a[1].S == "" {
			return types.BoolValue(true), nil
		}
		_, ok := coll.MatchAt(a[0].S, a[1].S, 0)
		return types.BoolValue(ok), nil
	}), false))
	register("ends_with_collated", def(3, 3, typed(types.Bool), withCollation(func(coll *types.Collation, a []types.Value) (types.Value, error) {
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
	// each match, left to right, without overlap
	matches := func(coll *types.Collation, s, sub string, f func(start, end int)) {
		for from := 0; from <= len(s); {
			start, end := coll.Index(s, sub, from)
			if start < 0 || end <= start {
				return
			}
			f(start, end)
			from = end
		}
	}
	register("replace_collated", def(4, 4, func(c *Call) (types.Type, error) { return c.Args[0].Type(), nil }, withCollation(func(coll *types.Collation, a []types.Value) (types.Value, error) {
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
	register("split_collated", def(3, 3, func(c *Call) (types.Type, error) { return c.T, nil }, withCollation(func(coll *types.Collation, a []types.Value) (types.Value, error) {
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
