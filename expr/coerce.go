package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"logq/types"
)

// Argument typing shared by the functions: unification to a common type,
// implicit coercion (coerceTo), and the checks of constant arguments.

// unify coerces exprs to their common supertype. A FLOAT64 constant
// beside a NUMERIC or BIGNUMERIC that is not one takes the decimal type,
// as a literal does in BigQuery.
func Unify(c *Call, exprs []Expr) error {
	t := types.Null
	dec := decimalBeside(exprs)
	for _, e := range exprs {
		et := e.Type()
		if et.Kind == types.KindString && IsLiteral(e) && t.IsTime() {
			continue
		}
		if dec && et.Kind == types.KindFloat64 && IsFloatLiteral(e) {
			continue
		}
		st, ok := types.Supertype(t, et)
		if !ok || (t.IsTime() && et.Kind == types.KindString && !IsLiteral(e)) || (et.IsTime() && t.Kind == types.KindString && !allConst(exprs, types.KindString)) {
			return fmt.Errorf("%s cannot combine %s and %s", DescribeFn(c.Fn), t, et)
		}
		t = st
	}
	for i, e := range exprs {
		ce, err := CoerceTo(e, t)
		if err != nil {
			return err
		}
		exprs[i] = ce
	}
	return nil
}

func allConst(exprs []Expr, k types.Kind) bool {
	for _, e := range exprs {
		if e.Type().Kind == k && !IsLiteral(e) {
			return false
		}
	}
	return true
}

func DescribeFn(fn string) string {
	if isInfix(fn) {
		return "operator " + strings.ToUpper(fn)
	}
	return strings.ToUpper(fn)
}

// coerceTo converts e to type t where BigQuery coerces implicitly: NULL to
// anything, a number to a wider one (types.CoercesTo), a DATE to DATETIME,
// and a constant STRING to a time type.
func CoerceTo(e Expr, t types.Type) (Expr, error) {
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
		return Fold(&Call{Fn: "cast", Args: []Expr{e}, T: t})
	case et.Kind == types.KindDate && t.Kind == types.KindDatetime: // its midnight
		return Fold(&Call{Fn: "cast", Args: []Expr{e}, T: t})
	case et.Kind == types.KindFloat64 && t.IsDecimal() && IsFloatLiteral(e):
		// A FLOAT64 literal coerces to a decimal, read from its text.
		return Fold(&Call{Fn: "cast", Args: []Expr{FloatLiteralText(e)}, T: t})
	case et.Kind == types.KindString && t.IsTime():
		if c, ok := e.(*Const); ok && !c.Column {
			cast := &Call{Fn: "cast", Args: []Expr{c}, T: t}
			if v, err := Fold(cast); err == nil {
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
				if !IsLiteral(e) {
					return nil, fmt.Errorf("expected %s, found %s", t, et)
				}
			}
		}
		return Fold(&Call{Fn: "cast", Args: []Expr{e}, T: t})
	case et.Kind == types.KindArray && t.Kind == types.KindArray:
		// An array coerces only as a literal does (its constant's
		// elements converted) or where its elements' type differs only by
		// untyped NULLs; an ARRAY<INT64> expression is no ARRAY<FLOAT64>,
		// as in BigQuery.
		if et.Elem.Equal(*t.Elem) || t.Elem.Kind == types.KindNull {
			return e, nil
		}
		if c, ok := e.(*Const); ok && !c.Column {
			if v, err := types.Cast(c.V, t); err == nil {
				return &Const{V: v, Param: c.Param}, nil
			}
		}
		if types.OnlyNullsDiffer(*et.Elem, *t.Elem) { // [NULL], [(NULL, true)]
			return &Call{Fn: "cast", Args: []Expr{e}, T: t}, nil
		}
	}
	return nil, fmt.Errorf("expected %s, found %s", t, et)
}

// decimalBeside reports whether exprs hold a NUMERIC or BIGNUMERIC and no
// FLOAT64 but literals: then a FLOAT64 literal among them is a decimal.
func decimalBeside(exprs []Expr) bool {
	dec := false
	for _, e := range exprs {
		switch t := e.Type(); {
		case t.IsDecimal():
			dec = true
		case t.Kind == types.KindFloat64 && !IsFloatLiteral(e):
			return false
		}
	}
	return dec
}

// isFloatLiteral reports whether e is a FLOAT64 written as a literal.
func IsFloatLiteral(e Expr) bool {
	k, ok := e.(*Const)
	return ok && k.FloatLiteral
}

// floatLiteralText replaces a finite FLOAT64 literal by the STRING of its
// shortest decimal form (the literal as written, for the literals people
// write), so that its conversion to a decimal reads that text rather than
// the binary value: BigQuery re-reads a literal's text. Any other
// expression converts from its binary value.
func FloatLiteralText(e Expr) Expr {
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
