package planner

import (
	"math"
	"strings"

	"logq/types"
)

// BigQuery's TIMESTAMP, DATETIME and DATE hold the years 1 to 9999.
// Arithmetic whose result leaves that range (TIMESTAMP_ADD, DATE_ADD,
// TIMESTAMP_SECONDS of a huge number, …) is an error, and NULL under SAFE.,
// never a value wrapped around or past year 9999.
const (
	minMicros = -62135596800000000 // 0001-01-01 00:00:00 UTC, µs since the epoch
	maxMicros = 253402300799999999 // 9999-12-31 23:59:59.999999
	minDays   = -719162            // 0001-01-01, days since the epoch
	maxDays   = 2932896            // 9999-12-31
)

// InTimeRange reports whether us (µs since the epoch) is a TIMESTAMP or
// DATETIME of the years 1 to 9999.
func InTimeRange(us int64) bool { return us >= minMicros && us <= maxMicros }

// rangeErr is the error for a value past years 1 to 9999.
func rangeErr(kind types.Kind) error {
	return evalErr("%s value is out of range (years 1 to 9999)", kind)
}

// addMicros returns us + d µs as a TIMESTAMP or DATETIME of kind, or the
// range error (no int64 wrap-around on the way).
func addMicros(kind types.Kind, us, d int64) (types.Value, error) {
	switch {
	case d > 0 && us > maxMicros-d, d < 0 && (d == math.MinInt64 || us < minMicros-d):
		return types.Value{}, rangeErr(kind)
	}
	return inRange(types.Value{T: types.Type{Kind: kind}, I: us + d})
}

// inRange returns v, or the range error when it is a TIMESTAMP, DATETIME or
// DATE outside years 1 to 9999.
func inRange(v types.Value) (types.Value, error) {
	switch v.T.Kind {
	case types.KindTimestamp, types.KindDatetime:
		if v.I < minMicros || v.I > maxMicros {
			return types.Value{}, rangeErr(v.T.Kind)
		}
	case types.KindDate:
		if v.I < minDays || v.I > maxDays {
			return types.Value{}, rangeErr(v.T.Kind)
		}
	}
	return v, nil
}

// shiftMicros returns us + sign·d µs (sign 1 or -1) as kind, or the range
// error (the one int64 without a negation included).
func shiftMicros(kind types.Kind, us, d, sign int64) (types.Value, error) {
	if sign < 0 {
		if d == math.MinInt64 {
			return types.Value{}, rangeErr(kind)
		}
		d = -d
	}
	return addMicros(kind, us, d)
}

// fixedInterval is an INTERVAL argument of a *_ADD/_SUB function as
// microseconds, a day as 24 hours; one with months is refused (those
// functions take months as INTERVAL n MONTH, bound apart).
func fixedInterval(c *Call, v types.Value) (int64, error) {
	if v.Months != 0 {
		return 0, evalErr("%s does not take an INTERVAL with months or years (%s)", strings.ToUpper(c.Fn), v)
	}
	return int64(v.Days)*types.Day + v.I, nil
}
