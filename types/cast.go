package types

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrBadCast is wrapped by every failed conversion.
var ErrBadCast = errors.New("invalid cast")

// badCast is a failed conversion whose text is its cause's alone.
type badCast struct{ cause error }

func (e badCast) Error() string   { return e.cause.Error() }
func (e badCast) Unwrap() []error { return []error{ErrBadCast, e.cause} }

// Cast converts v to type to with BigQuery's CAST rules for the types logq
// supports. NULL casts to a NULL of the target type.
func Cast(v Value, to Type) (Value, error) {
	out, err := cast(v, to)
	if err != nil && !errors.Is(err, ErrBadCast) {
		err = badCast{err} // e.g. a NUMERIC or INTERVAL out of range
	}
	return out, err
}

func cast(v Value, to Type) (Value, error) {
	if v.Null {
		return NullOf(to), nil
	}
	from := v.T.Kind
	if from == to.Kind && to.Kind != KindArray && to.Kind != KindStruct && to.Kind != KindRange {
		v.T = to
		return v, nil
	}
	fail := func() (Value, error) {
		return Value{}, fmt.Errorf("%w: cannot cast %s %s to %s", ErrBadCast, v.T, quoteForError(v), to)
	}
	switch to.Kind {
	case KindString:
		switch from {
		case KindTimestamp, KindDatetime, KindTime:
			return StringValue(CastTimeText(v)), nil
		case KindBytes:
			if !utf8.ValidString(v.S) {
				return Value{}, fmt.Errorf("%w: the BYTES are not valid UTF-8", ErrBadCast)
			}
			return StringValue(v.S), nil
		case KindArray, KindStruct, KindJSON: // JSON has TO_JSON_STRING
			return fail()
		case KindFloat64:
			f := v.F
			if f == 0 {
				f = 0 // -0 casts to "0", as ZetaSQL's CAST canonicalizes it
			}
			return StringValue(FormatFloat(f)), nil
		}
		return StringValue(v.String()), nil
	case KindBytes:
		if from == KindString {
			return Value{T: Bytes, S: v.S}, nil
		}
	case KindInt64:
		switch from {
		case KindBool:
			return IntValue(v.I), nil
		case KindFloat64:
			// BigQuery rounds halfway cases away from zero (CAST(2.5 AS
			// INT64) = 3, CAST(-2.5 AS INT64) = -3), and refuses what does
			// not fit: [-2^63, 2^63) after rounding.
			r := math.Round(v.F)
			if math.IsNaN(r) || r < -9223372036854775808 || r >= 9223372036854775808 {
				return fail()
			}
			return IntValue(int64(r)), nil
		case KindString:
			if i, ok := ParseInt64(strings.TrimSpace(v.S)); ok {
				return IntValue(i), nil
			}
			return fail()
		case KindNumeric, KindBigNumeric:
			if i, ok := DecimalToInt(v); ok {
				return IntValue(i), nil
			}
			return fail()
		}
	case KindFloat64:
		switch from {
		case KindInt64:
			return FloatValue(float64(v.I)), nil
		case KindNumeric, KindBigNumeric:
			return FloatValue(DecimalToFloat(v)), nil
		case KindString:
			// A float literal, or inf/infinity/nan with a sign, any case (as
			// strconv reads them); not strconv's hex floats or '_' separators,
			// which BigQuery refuses.
			s := strings.TrimSpace(v.S)
			body := strings.ToLower(strings.TrimLeft(s, "+-"))
			if strings.HasPrefix(body, "0x") || strings.Contains(s, "_") {
				return fail()
			}
			if body == "nan" { // a signed NaN too ("-NAN"), which strconv refuses
				return FloatValue(math.NaN()), nil
			}
			// Past FLOAT64's range the value is ±inf, as ZetaSQL's
			// SimpleAtod reads it (strconv says ErrRange with ±Inf); below
			// it, 0.
			f, err := strconv.ParseFloat(s, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return fail()
			}
			return FloatValue(f), nil
		}
	case KindBool:
		switch from {
		case KindInt64:
			return BoolValue(v.I != 0), nil
		case KindString:
			switch strings.ToLower(v.S) { // no white space: " true" is an error, as in BigQuery
			case "true":
				return BoolValue(true), nil
			case "false":
				return BoolValue(false), nil
			}
			return fail()
		}
	case KindTimestamp:
		switch from {
		case KindString:
			us, err := CastTimestamp(v.S)
			if err != nil {
				return Value{}, badCast{err}
			}
			return TimestampValue(us), nil
		case KindDatetime:
			return TimestampValue(v.I), nil
		case KindDate:
			return TimestampValue(v.I * Day), nil
		}
	case KindDatetime:
		switch from {
		case KindString:
			us, err := ParseDatetime(v.S)
			if err != nil {
				return Value{}, fmt.Errorf("%w: %w", ErrBadCast, err)
			}
			return DatetimeValue(us), nil
		case KindTimestamp:
			return DatetimeValue(v.I), nil
		case KindDate:
			return DatetimeValue(v.I * Day), nil
		}
	case KindDate:
		switch from {
		case KindString:
			d, err := ParseDate(v.S)
			if err != nil {
				return Value{}, fmt.Errorf("%w: %w", ErrBadCast, err)
			}
			return DateValue(d), nil
		case KindTimestamp, KindDatetime:
			return DateValue(floorDiv(v.I, Day)), nil
		}
	case KindRange:
		switch {
		case from == KindString:
			return ParseRange(*to.Elem, v.S)
		case from == KindRange && v.T.Elem.Equal(*to.Elem):
			return v, nil
		}
	case KindArray:
		if from == KindArray {
			out := make([]Value, len(v.L))
			for i, e := range v.L {
				c, err := Cast(e, *to.Elem)
				if err != nil {
					return Value{}, err
				}
				out[i] = c
			}
			return ArrayValue(*to.Elem, out), nil
		}
	case KindStruct:
		if from == KindStruct && len(v.L) == len(to.Fields) {
			out := make([]Value, len(v.L))
			for i, e := range v.L {
				c, err := Cast(e, to.Fields[i].Type)
				if err != nil {
					return Value{}, err
				}
				out[i] = c
			}
			return StructValue(to, out), nil
		}
	case KindInterval:
		if from == KindString {
			return ParseInterval(v.S)
		}
	case KindTime:
		switch from {
		case KindString:
			us, err := ParseTime(v.S)
			if err != nil {
				return Value{}, fmt.Errorf("%w: %w", ErrBadCast, err)
			}
			return Value{T: Time, I: us}, nil
		case KindTimestamp, KindDatetime: // the UTC time of day
			return Value{T: Time, I: v.I - floorDiv(v.I, Day)*Day}, nil
		}
	case KindNumeric, KindBigNumeric:
		switch from {
		case KindInt64:
			return DecimalFromInt(to, v.I), nil
		case KindFloat64:
			return DecimalFromFloat(to, v.F)
		case KindString:
			return ParseDecimal(to, v.S)
		case KindNumeric, KindBigNumeric:
			return DecimalFromRat(to, v.Rat())
		}
	case KindNull:
		return NullOf(to), nil
	}
	return fail()
}

func quoteForError(v Value) string {
	if v.T.Kind == KindString {
		return strconv.Quote(v.S)
	}
	return v.String()
}

// ParseInt64 reads an integer as BigQuery's CAST and integer literals do:
// optional sign, then decimal digits or a 0x hex literal. Unlike strconv's
// base 0, a leading 0 is not octal ("017" is 17) and 0b/0o prefixes and '_'
// separators are refused.
func ParseInt64(s string) (int64, bool) {
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" {
		return 0, false
	}
	base := 10
	if len(body) > 2 && (body[:2] == "0x" || body[:2] == "0X") {
		base, body = 16, body[2:]
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('0' <= c && c <= '9' || base == 16 && ('a' <= c|0x20 && c|0x20 <= 'f')) {
			return 0, false
		}
	}
	if s[0] == '-' {
		body = "-" + body
	}
	i, err := strconv.ParseInt(body, base, 64)
	return i, err == nil
}

// CastTimeText is a TIMESTAMP, DATETIME or TIME as CAST(… AS STRING)
// writes it: "2024-05-01 10:00:00.250+00", "2024-05-01 10:00:00",
// "10:00:00.123456" — a space between date and time (the "T" is only
// Logflare's JSON encoding of a DATETIME result) and the fraction in three
// digits when it is whole milliseconds, six otherwise.
func CastTimeText(v Value) string {
	var text string
	switch v.T.Kind {
	case KindTimestamp:
		ts := FormatTimestamp(v.I)
		text = ts[:len(ts)-4] + "+00"
	case KindDatetime:
		text = strings.Replace(FormatDatetime(v.I), "T", " ", 1)
	default:
		text = FormatTime(v.I)
	}
	return narrowFraction(text, v.I)
}

// CastTimestampTextIn is a TIMESTAMP as CastTimeText writes it, but in zone
// loc: the civil time there and its offset, "+01", "-05", "+08:45". An
// offset with seconds (a local mean time) is cut to whole minutes, and the
// clock with it, as castCivilTime does for CAST … FORMAT and ZetaSQL does.
func CastTimestampTextIn(us int64, loc *time.Location) string {
	_, off, err := castCivilTime(KindTimestamp, us, loc)
	if err != nil { // outside TIMESTAMP's range: no such value reaches here
		off = 0
	}
	text := CastTimeText(DatetimeValue(us + int64(off)*Second))
	sign, abs := "+", off
	if off < 0 {
		sign, abs = "-", -off
	}
	text += fmt.Sprintf("%s%02d", sign, abs/3600)
	if m := abs % 3600 / 60; m != 0 {
		text += fmt.Sprintf(":%02d", m)
	}
	return text
}
