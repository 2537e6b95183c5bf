package sqlfunc

import (
	"math"
	"strings"

	"logq/expr"
	"logq/types"
)

// addMicros returns us + d µs as a TIMESTAMP or DATETIME of kind, or the
// range error (no int64 wrap-around on the way).
func addMicros(kind types.Kind, us, d int64) (types.Value, error) {
	switch {
	case d > 0 && us > expr.MaxMicros-d, d < 0 && (d == math.MinInt64 || us < expr.MinMicros-d):
		return types.Value{}, expr.RangeErr(kind)
	}
	return expr.InRange(types.Value{T: types.Type{Kind: kind}, I: us + d})
}

// shiftMicros returns us + sign·d µs (sign 1 or -1) as kind, or the range
// error (the one int64 without a negation included).
func shiftMicros(kind types.Kind, us, d, sign int64) (types.Value, error) {
	if sign < 0 {
		if d == math.MinInt64 {
			return types.Value{}, expr.RangeErr(kind)
		}
		d = -d
	}
	return addMicros(kind, us, d)
}

// fixedInterval is an INTERVAL argument of a *_ADD/_SUB function as
// microseconds, a day as 24 hours; one with months is refused (those
// functions take months as INTERVAL n MONTH, bound apart).
func fixedInterval(c *expr.Call, v types.Value) (int64, error) {
	if v.Months != 0 {
		return 0, expr.EvalErr("%s does not take an INTERVAL with months or years (%s)", strings.ToUpper(c.Fn), v)
	}
	return int64(v.Days)*types.Day + v.I, nil
}
