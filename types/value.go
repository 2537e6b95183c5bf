package types

import (
	"math"
	"strconv"
	"strings"
)

// Value is one boxed SQL value. The executor works on typed vectors and boxes
// values only for constants, parameters, nested records and results.
//
// I holds INT64, BOOL (0 or 1), TIMESTAMP, DATETIME, DATE, TIME and an
// INTERVAL's microseconds (interval.go); F holds
// FLOAT64; S holds STRING, BYTES, and NUMERIC and BIGNUMERIC in their
// order-preserving binary form (decimal.go); L holds the elements of an ARRAY or the
// fields of a STRUCT, whose names are in T. A NULL of any type has Null set.
type Value struct {
	T    Type
	Null bool
	I    int64
	F    float64
	S    string
	L    []Value
	// An INTERVAL's months and days (its microseconds are in I).
	Months, Days int32
}

// NullOf returns a NULL of type t.
func NullOf(t Type) Value { return Value{T: t, Null: true} }

// IntValue returns an INT64.
func IntValue(i int64) Value { return Value{T: Int64, I: i} }

// FloatValue returns a FLOAT64.
func FloatValue(f float64) Value { return Value{T: Float64, F: f} }

// BoolValue returns a BOOL.
func BoolValue(b bool) Value {
	v := Value{T: Bool}
	if b {
		v.I = 1
	}
	return v
}

// StringValue returns a STRING.
func StringValue(s string) Value { return Value{T: String, S: s} }

// BytesValue returns a BYTES value holding s's bytes.
func BytesValue(s string) Value { return Value{T: Bytes, S: s} }

// TimestampValue returns a TIMESTAMP of µs since the epoch.
func TimestampValue(us int64) Value { return Value{T: Timestamp, I: us} }

// DatetimeValue returns a DATETIME whose civil time is us read as UTC.
func DatetimeValue(us int64) Value { return Value{T: Datetime, I: us} }

// DateValue returns a DATE of days since the epoch.
func DateValue(days int64) Value { return Value{T: Date, I: days} }

// ArrayValue returns an ARRAY of the given element type.
func ArrayValue(elem Type, elems []Value) Value { return Value{T: ArrayOf(elem), L: elems} }

// StructValue returns a STRUCT with the given type and field values.
func StructValue(t Type, fields []Value) Value { return Value{T: t, L: fields} }

// Bool reports the truth of a BOOL value (false for NULL).
func (v Value) Bool() bool { return !v.Null && v.I != 0 }

// Float returns a numeric value as float64.
func (v Value) Float() float64 {
	if v.T.Kind == KindFloat64 {
		return v.F
	}
	return float64(v.I)
}

// Compare orders two non-NULL values of comparable types: negative, zero or
// positive. INT64 and FLOAT64 compare numerically; NaN sorts first, as in
// BigQuery. ok is false when the types cannot be compared.
func Compare(a, b Value) (c int, ok bool) {
	ak, bk := a.T.Kind, b.T.Kind
	if ak != bk {
		if a.T.IsNumeric() && b.T.IsNumeric() {
			return compareFloat(a.Float(), b.Float()), true
		}
		return 0, false
	}
	switch ak {
	case KindBool, KindInt64, KindTimestamp, KindDatetime, KindDate, KindTime:
		return compareInt(a.I, b.I), true
	case KindInterval:
		return compareInt(a.IntervalMicros(), b.IntervalMicros()), true
	case KindFloat64:
		return compareFloat(a.F, b.F), true
	case KindString, KindBytes, KindNumeric, KindBigNumeric: // see Type.InS
		return strings.Compare(a.S, b.S), true
	case KindRange:
		return compareRanges(a, b), true
	case KindArray, KindStruct:
		for i := 0; i < len(a.L) && i < len(b.L); i++ {
			x, y := a.L[i], b.L[i]
			if x.Null || y.Null {
				if x.Null != y.Null {
					if x.Null {
						return -1, true
					}
					return 1, true
				}
				continue
			}
			if c, ok := Compare(x, y); !ok || c != 0 {
				return c, ok
			}
		}
		return compareInt(int64(len(a.L)), int64(len(b.L))), true
	}
	return 0, false
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Equal reports SQL equality of two values, ignoring NULL (two NULLs are equal
// here; callers that need three-valued logic check Null first).
func Equal(a, b Value) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	c, ok := Compare(a, b)
	return ok && c == 0
}

// String renders a value for diagnostics, EXPLAIN and tables: times in their
// canonical text form, strings unquoted, FLOAT64 in its shortest text.
func (v Value) String() string {
	if v.Null {
		return "NULL"
	}
	switch v.T.Kind {
	case KindBool:
		if v.I != 0 {
			return "true"
		}
		return "false"
	case KindInt64:
		return strconv.FormatInt(v.I, 10)
	case KindFloat64: // the shortest text that reads back (CAST writes FormatFloat)
		switch {
		case math.IsInf(v.F, 0) || math.IsNaN(v.F):
			return FormatFloat(v.F)
		}
		return strconv.FormatFloat(v.F, 'g', -1, 64)
	case KindString, KindBytes, KindJSON:
		return v.S
	case KindTimestamp:
		return FormatTimestamp(v.I)
	case KindDatetime:
		return FormatDatetime(v.I)
	case KindDate:
		return FormatDate(v.I)
	case KindTime:
		return FormatTime(v.I)
	case KindInterval:
		return FormatInterval(v)
	case KindNumeric, KindBigNumeric:
		return FormatDecimal(v)
	case KindRange:
		return FormatRange(v)
	case KindArray, KindStruct:
		var b strings.Builder
		if v.T.Kind == KindArray {
			b.WriteByte('[')
		} else {
			b.WriteByte('{')
		}
		for i, e := range v.L {
			if i > 0 {
				b.WriteString(", ")
			}
			if v.T.Kind == KindStruct {
				b.WriteString(v.T.Fields[i].Name)
				b.WriteString(": ")
			}
			b.WriteString(e.String())
		}
		if v.T.Kind == KindArray {
			b.WriteByte(']')
		} else {
			b.WriteByte('}')
		}
		return b.String()
	}
	return "NULL"
}

// FormatFloat renders a FLOAT64 as BigQuery's CAST to STRING does: %.15g,
// or %.17g when fifteen digits do not read back (123456789 stays
// 123456789, 0.1 + 0.2 is 0.30000000000000004, 1e20 is 1e+20).
func FormatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'g', 15, 64)
	if back, err := strconv.ParseFloat(s, 64); err != nil || back != f {
		s = strconv.FormatFloat(f, 'g', 17, 64)
	}
	return s
}
