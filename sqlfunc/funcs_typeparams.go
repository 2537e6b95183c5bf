package sqlfunc

import (
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"logq/expr"
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

func registerTypeParamFuncs() {
	expr.Register("fit_type", def(2, 3, nil, func(c *expr.Call, a []types.Value) (types.Value, error) {
		x := a[0]
		switch x.T.Kind {
		case types.KindString, types.KindBytes:
			n, name := int64(len(x.S)), "BYTES"
			if x.T.Kind == types.KindString {
				n, name = int64(utf8.RuneCountInString(x.S)), "STRING"
			}
			if n > a[1].I {
				return types.Value{}, expr.EvalErr("%s(%d) has maximum length %d but got a value with length %d", name, a[1].I, a[1].I, n)
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
			return types.Value{}, expr.EvalErr("%s has precision %d and scale %d but got a value that is not in range of [-%s, %s]", name, p, s, text, text)
		}
		return r, nil
	}, false))
}
