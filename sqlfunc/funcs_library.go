package sqlfunc

import (
	"fmt"
	"logq/expr"
	"logq/types"
	"strings"
)

func def(minArgs, maxArgs int, check func(*expr.Call) (types.Type, error), eval func(*expr.Call, []types.Value) (types.Value, error), nullSafe bool) *expr.Func {
	return &expr.Func{MinArgs: minArgs, MaxArgs: maxArgs, Check: check, Eval: eval, NullSafe: nullSafe}
}

func sig(kinds ...types.Kind) func(c *expr.Call) (types.Type, error) {
	ret := kinds[len(kinds)-1]
	params := kinds[:len(kinds)-1]
	return func(c *expr.Call) (types.Type, error) {
		for i := range c.Args {
			want := params[min(i, len(params)-1)]
			a, err := expr.CoerceTo(c.Args[i], types.Type{Kind: want})
			if err != nil {
				return types.Type{}, fmt.Errorf("argument %d of %s: %w", i+1, strings.ToUpper(c.Fn), err)
			}
			c.Args[i] = a
		}
		return types.Type{Kind: ret}, nil
	}
}

func init() {
	registerOperators()
	registerBitwiseOps()
	registerNetFuncs()
	registerNetDomainFuncs()
	registerHLLFuncs()
	registerKLLFuncs()
	registerAEADFuncs()
	registerTypeParamFuncs()
	registerCollationFuncs()
	registerTimeFuncs()
	registerTimeOfDayFuncs()
	registerMathFuncs()
	registerTrigFuncs()
	registerZipFuncs()
	registerPathFuncs()
	registerArrayFindFuncs()
	registerDistanceFuncs()
	registerRegexpBytes()
	registerBytesFuncs()
	registerGenerateFuncs()
	registerStringFuncs()
	registerWordFuncs()
	registerNormalizeFuncs()
	registerContainsSubstr()
	registerCastFormat()
	registerLikeArrayFuncs()
	registerBucketFuncs()
	registerTimeBucketFuncs()
	registerJSONFuncs()
	registerJSONTypeFuncs()
	registerTimeString() // wraps STRING(json)
	registerToJSONFuncs()
	registerRangeTypeFuncs()
	registerJSONMutateFuncs()
	registerDateFuncs()
	registerDateArrayFuncs()
	registerJSONArrayFuncs()
	registerArrayStringFuncs()
	registerFormatFunc()
	registerParseFuncs()
	registerCodeFuncs()     // after the string functions it names again
	registerDecimalFuncs()  // after the number functions it overloads
	registerIntervalFuncs() // likewise
	expr.Alias("char_length", "length")
	expr.Alias("character_length", "length")
	registerStructuralFuncs()
}
