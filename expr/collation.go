package expr

// Collation as the binder types it: which calls take a collated STRING and
// how each is rewritten (comparisons compare collation keys, the search
// functions become their _collated forms, …). A spec is known here by its
// text and types.CollationBinary; the collation itself (its keys, LIKE,
// search) is computed by the library's collation functions
// (sqlfunc/funcs_collation.go), which alone link golang.org/x/text.

import (
	"fmt"
	"logq/types"
	"strings"
)

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
func ArgCollation(fn string, args []Expr) (string, error) {
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
			return "", fmt.Errorf("%s cannot combine collations '%s' and '%s'", DescribeFn(strings.ReplaceAll(fn, "_", " ")), spec, t.Collation())
		}
		spec = t.Collation()
	}
	return spec, nil
}

// collated applies collation to a typed call one of whose arguments is
// collated: the call rewritten, or unchanged with its result collated, or
// an error naming what does not take a collated string.
func Collated(c *Call) (*Call, error) {
	collatedArg := false
	for _, a := range c.Args {
		collatedArg = collatedArg || a.Type().Collated()
	}
	if !collatedArg {
		return c, nil
	}
	spec, err := ArgCollation(c.Fn, c.Args)
	if err != nil {
		return nil, err
	}
	binary := types.CollationBinary(spec)
	key := func(e Expr) Expr {
		if binary || e.Type().Kind != types.KindString {
			return e
		}
		return &Call{Fn: "collation_key", Args: []Expr{e, &Const{V: types.StringValue(spec)}}, T: types.Bytes}
	}
	for _, a := range c.Args {
		if k := a.Type().Kind; (k == types.KindArray || k == types.KindStruct) && a.Type().Collated() && !collationPasses[c.Fn] && c.Fn != "in_unnest" && c.Fn != "like_any" && c.Fn != "like_all" && !ArrayFindFns[c.Fn] {
			return nil, fmt.Errorf("%s of an ARRAY or STRUCT holding a collated STRING is not supported", DescribeFn(c.Fn))
		}
	}
	switch {
	case collationCompares[c.Fn]:
		out := *c
		out.Args = []Expr{key(c.Args[0]), key(c.Args[1])}
		return &out, nil
	case ArrayFindFns[c.Fn]: // sqlfunc/funcs_array_find.go
		if binary {
			return c, nil
		}
		out := *c
		keys := &Call{Fn: "collation_keys", Args: []Expr{c.Args[0], &Const{V: types.StringValue(spec)}}, T: types.ArrayOf(types.Bytes)}
		out.Args = []Expr{c.Args[0], key(c.Args[1]), c.Args[2], keys}
		return &out, nil
	case c.Fn == "in_unnest":
		out := *c
		arr := c.Args[1]
		if !binary {
			arr = &Call{Fn: "collation_keys", Args: []Expr{arr, &Const{V: types.StringValue(spec)}}, T: types.ArrayOf(types.Bytes)}
		}
		out.Args = []Expr{key(c.Args[0]), arr}
		return &out, nil
	case collatedSearch[c.Fn] != "":
		if c.Args[0].Type().Kind != types.KindString {
			return nil, fmt.Errorf("%s of a collated STRING needs STRING arguments", DescribeFn(c.Fn))
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
		if binary {
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
		if binary || len(c.Args) == 4 {
			return c, nil
		}
		out := *c
		out.Args = append(append([]Expr{}, c.Args...), &Const{V: types.StringValue(spec)})
		return &out, nil
	case c.Fn == "like":
		if binary {
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
	return nil, fmt.Errorf("%s of a collated STRING is not supported", DescribeFn(c.Fn))
}

// binaryCollated reports whether every collation in t compares bytes.
func BinaryCollated(t types.Type) bool {
	if spec := t.Collation(); spec != "" && !types.CollationBinary(spec) {
		return false
	}
	if t.Elem != nil && !BinaryCollated(*t.Elem) {
		return false
	}
	for _, f := range t.Fields {
		if !BinaryCollated(f.Type) {
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

var ArrayFindFns = map[string]bool{"array_find": true, "array_offset": true, "array_offsets": true, "array_find_all": true}
