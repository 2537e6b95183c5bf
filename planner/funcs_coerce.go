package planner

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"

	"logq/types"
)

// Argument typing shared by the functions: unification to a common type,
// implicit coercion (coerceTo), and the checks of constant arguments.

func numeric1(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if t.Kind == types.KindNull {
		return types.Int64, nil
	}
	if !t.IsNumeric() {
		return types.Type{}, fmt.Errorf("%s needs a number, not %s", strings.ToUpper(c.Fn), t)
	}
	return t, nil
}

// unify coerces exprs to their common supertype. A FLOAT64 constant
// beside a NUMERIC or BIGNUMERIC that is not one takes the decimal type,
// as a literal does in BigQuery.
func unify(c *Call, exprs []Expr) error {
	t := types.Null
	dec := decimalBeside(exprs)
	for _, e := range exprs {
		et := e.Type()
		if et.Kind == types.KindString && IsConst(e) && t.IsTime() {
			continue
		}
		if dec && et.Kind == types.KindFloat64 && isFloatLiteral(e) {
			continue
		}
		st, ok := types.Supertype(t, et)
		if !ok || (t.IsTime() && et.Kind == types.KindString && !IsConst(e)) || (et.IsTime() && t.Kind == types.KindString && !allConst(exprs, types.KindString)) {
			return fmt.Errorf("%s cannot combine %s and %s", describeFn(c.Fn), t, et)
		}
		t = st
	}
	for i, e := range exprs {
		ce, err := coerceTo(e, t)
		if err != nil {
			return err
		}
		exprs[i] = ce
	}
	return nil
}

func allConst(exprs []Expr, k types.Kind) bool {
	for _, e := range exprs {
		if e.Type().Kind == k && !IsConst(e) {
			return false
		}
	}
	return true
}

func describeFn(fn string) string {
	if isInfix(fn) {
		return "operator " + strings.ToUpper(fn)
	}
	return strings.ToUpper(fn)
}

// coerceTo converts e to type t where BigQuery coerces implicitly: NULL to
// anything, a number to a wider one (types.CoercesTo), and a constant STRING to a time type.
func coerceTo(e Expr, t types.Type) (Expr, error) {
	et := e.Type()
	switch {
	case et.Equal(t) || t.Kind == types.KindNull:
		return e, nil
	case et.Kind == types.KindNull:
		if c, ok := e.(*Const); ok {
			return &Const{V: types.NullOf(t), Param: c.Param}, nil
		}
		return &Call{Fn: "cast", Args: []Expr{e}, T: t}, nil
	case types.CoercesTo(et, t): // INT64 → NUMERIC → BIGNUMERIC → FLOAT64
		return fold(&Call{Fn: "cast", Args: []Expr{e}, T: t})
	case et.Kind == types.KindFloat64 && t.IsDecimal() && isFloatLiteral(e):
		// A FLOAT64 literal coerces to a decimal, read from its text.
		return fold(&Call{Fn: "cast", Args: []Expr{floatLiteralText(e)}, T: t})
	case et.Kind == types.KindString && t.IsTime():
		if c, ok := e.(*Const); ok {
			cast := &Call{Fn: "cast", Args: []Expr{c}, T: t}
			if v, err := fold(cast); err == nil {
				return v, nil
			}
			return cast, nil // a bad value fails later only if it is still needed
		}
	case et.Kind == types.KindStruct && t.Kind == types.KindStruct && len(et.Fields) == len(t.Fields):
		// A STRUCT coerces field by field where each field does (names
		// follow the target).
		for i, f := range et.Fields {
			ft := t.Fields[i].Type
			if !f.Type.Equal(ft) && f.Type.Kind != types.KindNull && !types.CoercesTo(f.Type, ft) && !(f.Type.Kind == types.KindStruct && ft.Kind == types.KindStruct) {
				if _, ok := e.(*Const); !ok {
					return nil, fmt.Errorf("expected %s, found %s", t, et)
				}
			}
		}
		return fold(&Call{Fn: "cast", Args: []Expr{e}, T: t})
	case et.Kind == types.KindArray && t.Kind == types.KindArray:
		// An array coerces only as a literal does (its constant's
		// elements converted) or from an array of untyped NULLs; an
		// ARRAY<INT64> expression is no ARRAY<FLOAT64>, as in BigQuery.
		if et.Elem.Equal(*t.Elem) || t.Elem.Kind == types.KindNull {
			return e, nil
		}
		if c, ok := e.(*Const); ok {
			if v, err := types.Cast(c.V, t); err == nil {
				return &Const{V: v, Param: c.Param}, nil
			}
		}
		if et.Elem.Kind == types.KindNull {
			return &Call{Fn: "cast", Args: []Expr{e}, T: t}, nil
		}
	}
	return nil, fmt.Errorf("expected %s, found %s", t, et)
}

// CompileRegexp compiles an RE2 pattern as REGEXP_CONTAINS does. The
// REGEXP_ functions call it for every row, so compiled patterns are kept
// (a *regexp.Regexp is safe for concurrent use): a constant pattern is
// compiled once, not once per row.
func CompileRegexp(pattern string) (*regexp.Regexp, error) {
	if re, ok := compiledRegexps.Get(pattern); ok {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, evalErr("invalid regular expression %q: %s", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	compiledRegexps.Add(pattern, re)
	return re, nil
}

// compiledRegexps are the patterns CompileRegexp compiled last; bounded,
// as the patterns of a column's values may all differ.
var compiledRegexps, _ = lru.New[string, *regexp.Regexp](512)

// decimalBeside reports whether exprs hold a NUMERIC or BIGNUMERIC and no
// FLOAT64 but literals: then a FLOAT64 literal among them is a decimal.
func decimalBeside(exprs []Expr) bool {
	dec := false
	for _, e := range exprs {
		switch t := e.Type(); {
		case t.IsDecimal():
			dec = true
		case t.Kind == types.KindFloat64 && !isFloatLiteral(e):
			return false
		}
	}
	return dec
}

// isFloatLiteral reports whether e is a FLOAT64 written as a literal.
func isFloatLiteral(e Expr) bool {
	k, ok := e.(*Const)
	return ok && k.FloatLiteral
}

// floatLiteralText replaces a finite FLOAT64 literal by the STRING of its
// shortest decimal form (the literal as written, for the literals people
// write), so that its conversion to a decimal reads that text rather than
// the binary value: BigQuery re-reads a literal's text. Any other
// expression converts from its binary value.
func floatLiteralText(e Expr) Expr {
	k, ok := e.(*Const)
	if !ok || !k.FloatLiteral || k.V.Null || math.IsNaN(k.V.F) || math.IsInf(k.V.F, 0) {
		return e
	}
	text := k.Text
	if text == "" {
		text = strconv.FormatFloat(k.V.F, 'g', -1, 64)
	}
	return &Const{V: types.StringValue(text), Param: k.Param}
}
