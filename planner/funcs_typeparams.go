package planner

import (
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"logq/sqlparse"
	"logq/types"
)

// Parameterized types (BigQuery's): CAST(x AS STRING(L)) and BYTES(L) are
// errors for a value longer than L characters (bytes); CAST(x AS
// NUMERIC(P[, S])) and BIGNUMERIC(P[, S]) round x to S decimal places
// (half away from zero, S 0 by default) and are errors for a value with
// more than P−S digits before the point. The value keeps its type (STRING,
// NUMERIC, …); SAFE_CAST gives NULL where CAST errs. Only the type of a
// CAST takes parameters (typeOf refuses them elsewhere, and inside ARRAY
// or STRUCT).

// fitTypeParams checks the parameters of CAST(x AS T(params)) and wraps
// the cast in fit_type(cast, params…).
func (b *binder) fitTypeParams(e *sqlparse.Cast, cast Expr, t types.Type, params []int64) Expr {
	name := e.Type.String()
	switch t.Kind {
	case types.KindString, types.KindBytes:
		if len(params) != 1 || params[0] < 1 {
			b.fail(e.Type.At, "%s: the maximum length must be a positive integer", name)
		}
	case types.KindNumeric, types.KindBigNumeric:
		maxScale, digits := int64(9), int64(29)
		if t.Kind == types.KindBigNumeric {
			maxScale, digits = 38, 38
		}
		p, s := params[0], int64(0)
		if len(params) == 2 {
			s = params[1]
		}
		if s < 0 || s > maxScale {
			b.fail(e.Type.At, "%s: the scale must be from 0 to %d", name, maxScale)
		}
		if p < max(1, s) || p > s+digits {
			b.fail(e.Type.At, "%s: the precision must be from %d to %d for scale %d", name, max(1, s), s+digits, s)
		}
	}
	args := []Expr{cast}
	for _, n := range params {
		args = append(args, &Const{V: types.IntValue(n)})
	}
	return b.finish(e.At, &Call{Fn: "fit_type", Args: args, T: t, Safe: e.Safe})
}

func registerTypeParamFuncs() {
	register("fit_type", def(2, 3, nil, func(c *Call, a []types.Value) (types.Value, error) {
		x := a[0]
		switch x.T.Kind {
		case types.KindString, types.KindBytes:
			n, name := int64(len(x.S)), "BYTES"
			if x.T.Kind == types.KindString {
				n, name = int64(utf8.RuneCountInString(x.S)), "STRING"
			}
			if n > a[1].I {
				return types.Value{}, evalErr("%s(%d) has maximum length %d but got a value with length %d", name, a[1].I, a[1].I, n)
			}
			return x, nil
		}
		p, s := a[1].I, int64(0)
		name := fmt.Sprintf("%s(%d)", strings.ToUpper(x.T.String()), p)
		if len(a) == 3 {
			s = a[2].I
			name = fmt.Sprintf("%s(%d, %d)", strings.ToUpper(x.T.String()), p, s)
		}
		// The largest value: P nines, S of them after the point. A value
		// that rounds past the type's own range is past it too.
		limit := new(big.Rat).SetFrac(new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(p), nil), big.NewInt(1)),
			new(big.Int).Exp(big.NewInt(10), big.NewInt(s), nil))
		r, err := types.DecimalRound(x, s, "round", false)
		if err != nil || new(big.Rat).Abs(r.Rat()).Cmp(limit) > 0 {
			text := limit.FloatString(int(s))
			return types.Value{}, evalErr("%s has precision %d and scale %d but got a value that is not in range of [-%s, %s]", name, p, s, text, text)
		}
		return r, nil
	}, false))
}
