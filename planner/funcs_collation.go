package planner

import (
	"fmt"
	"strings"

	"logq/sqlparse"
	"logq/types"
)

// ORDER BY x COLLATE 'spec' (a query's, a window's, or inside an
// aggregate call) sorts by collation_key(x, spec): BYTES that order as the
// collation orders x and are equal where it holds two strings equal, so the
// sort, its ties (RANK's peers) and a top-k need nothing else. The spec is
// read by types.ParseCollation; a binary one (”, 'binary', 'unicode')
// leaves the key as it is.
func registerCollationFuncs() {
	registerCollateFunc()
	register("collation_key", def(2, 2, func(c *Call) (types.Type, error) {
		return types.Bytes, nil
	}, func(c *Call, a []types.Value) (types.Value, error) {
		coll, err := types.ParseCollation(a[1].S)
		if err != nil {
			return types.Value{}, evalErr("%v", err)
		}
		return types.Value{T: types.Bytes, S: string(coll.Key(nil, a[0].S))}, nil
	}, false))
}

// collateKey applies an ORDER BY item's COLLATE to its key e.
func (b *binder) collateKey(o *sqlparse.OrderItem, e Expr) Expr {
	if o.Collate == nil {
		if spec := e.Type().Collation; spec != "" && e.Type().Kind == types.KindString {
			// a collated value sorts by its collation
			return b.keyOf(o.Expr.Pos(), e, spec)
		}
		b.noCollation(o.Expr.Pos(), "ORDER BY", e.Type())
		return e
	}
	if t := e.Type(); t.Kind != types.KindString && t.Kind != types.KindNull {
		b.fail(o.Expr.Pos(), "COLLATE applies to a STRING, not %s", t)
	}
	coll, err := types.ParseCollation(*o.Collate)
	if err != nil {
		b.fail(o.Expr.Pos(), "%v", err)
	}
	return b.keyOf(o.Expr.Pos(), e, coll.Spec)
}

// keyOf is e's collation key under spec (e itself for a binary one).
func (b *binder) keyOf(pos int, e Expr, spec string) Expr {
	coll, err := types.ParseCollation(spec)
	if err != nil {
		b.fail(pos, "%v", err)
	}
	if coll.Binary() {
		return e
	}
	x, err := coerceTo(e, types.String)
	if err != nil {
		b.fail(pos, "%v", fmt.Errorf("COLLATE: %w", err))
	}
	return &Call{Fn: "collation_key", Args: []Expr{x, &Const{V: types.StringValue(coll.Spec)}}, T: types.Bytes}
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
		return types.Type{Kind: types.KindString, Collation: coll.Spec}, nil
	}, func(c *Call, a []types.Value) (types.Value, error) {
		return a[0], nil
	}, false)).NoFold = true // a folded constant would lose the collation
	register("like_collated", def(3, 3, func(c *Call) (types.Type, error) {
		return types.Bool, nil
	}, func(c *Call, a []types.Value) (types.Value, error) {
		coll, err := types.ParseCollation(a[2].S)
		if err != nil {
			return types.Value{}, evalErr("%v", err)
		}
		ok, err := coll.Like(a[0].S, a[1].S)
		if err != nil {
			return types.Value{}, evalErr("%v", err)
		}
		return types.BoolValue(ok), nil
	}, false))
	register("collation_keys", def(2, 2, func(c *Call) (types.Type, error) {
		return types.ArrayOf(types.Bytes), nil
	}, func(c *Call, a []types.Value) (types.Value, error) {
		coll, err := types.ParseCollation(a[1].S)
		if err != nil {
			return types.Value{}, evalErr("%v", err)
		}
		out := make([]types.Value, len(a[0].L))
		for i, e := range a[0].L {
			out[i] = types.NullOf(types.Bytes)
			if !e.Null {
				out[i] = types.Value{T: types.Bytes, S: string(coll.Key(nil, e.S))}
			}
		}
		return types.ArrayValue(types.Bytes, out), nil
	}, false))
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
	"array_first": true, "array_last": true, "array_slice": true, "is_null": true, "cast": true,
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
		if t.Kind != types.KindString || t.Collation == "" {
			continue
		}
		if spec != "" && spec != t.Collation {
			return "", fmt.Errorf("%s cannot combine collations '%s' and '%s'", describeFn(strings.ReplaceAll(fn, "_", " ")), spec, t.Collation)
		}
		spec = t.Collation
	}
	return spec, nil
}

// collated applies collation to a typed call one of whose arguments is
// collated: the call rewritten, or unchanged with its result collated, or
// an error naming what does not take a collated string.
func collated(c *Call) (Expr, error) {
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
		if k := a.Type().Kind; (k == types.KindArray || k == types.KindStruct) && a.Type().Collated() && !collationPasses[c.Fn] && c.Fn != "in_unnest" {
			return nil, fmt.Errorf("%s of an ARRAY or STRUCT holding a collated STRING is not supported", describeFn(c.Fn))
		}
	}
	switch {
	case collationCompares[c.Fn]:
		out := *c
		out.Args = []Expr{key(c.Args[0]), key(c.Args[1])}
		return &out, nil
	case c.Fn == "in_unnest":
		out := *c
		arr := c.Args[1]
		if !coll.Binary() {
			arr = &Call{Fn: "collation_keys", Args: []Expr{arr, &Const{V: types.StringValue(spec)}}, T: types.ArrayOf(types.Bytes)}
		}
		out.Args = []Expr{key(c.Args[0]), arr}
		return &out, nil
	case c.Fn == "like":
		if coll.Binary() {
			return c, nil
		}
		return &Call{Fn: "like_collated", Args: []Expr{c.Args[0], c.Args[1], &Const{V: types.StringValue(spec)}}, T: types.Bool}, nil
	case c.Fn == "nullif":
		// NULL where x = y under the collation, else x (with its collation)
		t := c.T
		t.Collation = spec
		eq := &Call{Fn: "=", Args: []Expr{key(c.Args[0]), key(c.Args[1])}, T: types.Bool}
		return &Call{Fn: "if", Args: []Expr{eq, &Const{V: types.NullOf(t)}, c.Args[0]}, T: t}, nil
	case collationPasses[c.Fn]:
		if spec == "" {
			return c, nil
		}
		switch t := c.T; {
		case c.Fn == "collate" || c.Fn == "collation_key" || c.Fn == "collation_keys":
		case t.Kind == types.KindString:
			c.T.Collation = spec
		case t.Kind == types.KindArray && t.Elem.Kind == types.KindString:
			e := *t.Elem
			e.Collation = spec
			c.T.Elem = &e
		}
		return c, nil
	}
	return nil, fmt.Errorf("%s of a collated STRING is not supported", describeFn(c.Fn))
}

// noCollation refuses a collated type where logq does not yet group or
// combine by a collation (GROUP BY, DISTINCT, set operations, …).
func (b *binder) noCollation(pos int, what string, t types.Type) {
	if t.Collated() {
		b.fail(pos, "%s of a collated STRING is not supported", what)
	}
}

// collationNeutralAnalytic are the analytic functions that pass a collated
// value on without comparing it.
var collationNeutralAnalytic = map[string]bool{"lag": true, "lead": true, "first_value": true, "last_value": true, "nth_value": true}

// aggCollation lets the aggregates that do not compare their argument take
// a collated one (COUNT, and COUNT(DISTINCT) over its collation key; ANY_VALUE,
// ARRAY_AGG and STRING_AGG keep the collation on their result) and refuses
// the others (MIN, MAX, APPROX_*, …).
func (b *binder) aggCollation(pos int, call *AggCall) {
	spec, err := argCollation(call.Fn, call.Args)
	if err != nil {
		b.failErr(pos, err)
	}
	collatedArg := false
	for _, a := range call.Args {
		collatedArg = collatedArg || a.Type().Collated()
	}
	if !collatedArg {
		return
	}
	switch {
	case call.Fn == "count" || call.Fn == "any_value":
	case (call.Fn == "array_agg" || call.Fn == "string_agg") && !call.Distinct:
		if call.Fn == "string_agg" && spec != "" {
			call.T.Collation = spec
		}
	default:
		b.fail(pos, "%s of a collated STRING is not supported", strings.ToUpper(call.Fn))
	}
}
