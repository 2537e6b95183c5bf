package planner

import (
	"fmt"
	"logq/types"
	"regexp"
	"strings"
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

// unify coerces exprs to their common supertype.
func unify(c *Call, exprs []Expr) error {
	t := types.Null
	for _, e := range exprs {
		et := e.Type()
		if et.Kind == types.KindString && IsConst(e) && t.IsTime() {
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
	case et.Kind == types.KindString && t.IsTime():
		if c, ok := e.(*Const); ok {
			cast := &Call{Fn: "cast", Args: []Expr{c}, T: t}
			if v, err := fold(cast); err == nil {
				return v, nil
			}
			return cast, nil // a bad value fails later only if it is still needed
		}
	case et.Kind == types.KindArray && t.Kind == types.KindArray:
		return e, nil
	}
	return nil, fmt.Errorf("expected %s, found %s", t, et)
}

// CompileRegexp compiles an RE2 pattern as REGEXP_CONTAINS does.
func CompileRegexp(pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, evalErr("invalid regular expression %q: %s", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}
