package types

import (
	"errors"
	"fmt"
	"strings"
)

// BigQuery's RANGE<T>, T one of DATE, DATETIME and TIMESTAMP: the values
// from a lower bound (included) to an upper bound (excluded), either bound
// possibly UNBOUNDED. A value keeps its bounds in Value.L, [lower, upper],
// an unbounded one as a NULL of T. The lower bound is always below the
// upper one. Ranges compare by their lower bounds, then their upper bounds,
// an unbounded lower bound first and an unbounded upper bound last.

// ErrRange is wrapped by every error about a RANGE value.
var ErrRange = errors.New("invalid RANGE")

// IsRangeElem reports whether a RANGE may hold values of type t.
func IsRangeElem(t Type) bool {
	return t.Kind == KindDate || t.Kind == KindDatetime || t.Kind == KindTimestamp
}

// RangeValue makes a RANGE of its bounds (NULL: unbounded), or an error
// when lower is not below upper.
func RangeValue(elem Type, lower, upper Value) (Value, error) {
	lower.T, upper.T = elem, elem
	if !lower.Null && !upper.Null && lower.I >= upper.I {
		return Value{}, fmt.Errorf("%w: its lower bound %s is not below its upper bound %s", ErrRange, rangeBound(lower), rangeBound(upper))
	}
	return Value{T: RangeOf(elem), L: []Value{lower, upper}}, nil
}

// ParseRange reads a RANGE's text as BigQuery's literal and CAST do,
// strictly: exactly "[lower, upper)" — a comma and one space between the
// bounds, no other space around them — each bound a literal of elem's
// text, UNBOUNDED or NULL (in any case).
func ParseRange(elem Type, s string) (Value, error) {
	bad := func(why string) (Value, error) {
		return Value{}, fmt.Errorf("%w: %q is not a RANGE<%s>: %s", ErrRange, s, elem, why)
	}
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ')' {
		return bad("it is written exactly [lower, upper)")
	}
	parts := strings.Split(s[1:len(s)-1], ",")
	if len(parts) != 2 || !strings.HasPrefix(parts[1], " ") {
		return bad(`its two bounds are divided by ", "`)
	}
	parts[1] = parts[1][1:]
	var b [2]Value
	for i, p := range parts {
		if p == "" || strings.TrimSpace(p) != p {
			return bad("a bound has no space before or after it")
		}
		if strings.EqualFold(p, "UNBOUNDED") || strings.EqualFold(p, "NULL") {
			b[i] = NullOf(elem)
			continue
		}
		v, err := Cast(StringValue(p), elem)
		if err != nil {
			return bad(err.Error())
		}
		b[i] = v
	}
	return RangeValue(elem, b[0], b[1])
}

// FormatRange writes a RANGE as BigQuery casts one to STRING: "[lower,
// upper)", a bound in its CAST text or UNBOUNDED.
func FormatRange(v Value) string {
	return "[" + rangeBound(v.L[0]) + ", " + rangeBound(v.L[1]) + ")"
}

func rangeBound(v Value) string {
	switch {
	case v.Null:
		return "UNBOUNDED"
	case v.T.Kind == KindDate:
		return FormatDate(v.I)
	}
	return CastTimeText(v)
}

// compareRanges orders two non-NULL ranges of one type.
func compareRanges(a, b Value) int {
	if c := compareBound(a.L[0], b.L[0], -1); c != 0 {
		return c
	}
	return compareBound(a.L[1], b.L[1], 1)
}

// compareBound orders two bounds; unbounded sorts as nullSide (-1 first,
// 1 last).
func compareBound(a, b Value, nullSide int) int {
	switch {
	case a.Null && b.Null:
		return 0
	case a.Null:
		return nullSide
	case b.Null:
		return -nullSide
	}
	return compareInt(a.I, b.I)
}
