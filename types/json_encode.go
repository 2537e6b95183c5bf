package types

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// SQL values encoded as JSON, as BigQuery's TO_JSON (a JSON value) and
// TO_JSON_STRING (JSON text) encode them. The two differ in numbers and
// structs:
//
//   - TO_JSON_STRING writes an INT64, NUMERIC or BIGNUMERIC as a number only
//     when it is an integer in [-2^53, 2^53] (what a double holds exactly),
//     else as a string; a FLOAT64 in %.15g, or %.17g when that does not
//     read back; a STRUCT with its fields in order, repeated names kept, an
//     anonymous field named "".
//   - TO_JSON keeps every number a number (an INT64 outside [-2^53, 2^53] a
//     string only with stringify_wide_numbers), and a STRUCT becomes an
//     object: keys sorted, the first of a repeated name kept.
//
// Both write NaN and ±inf as "NaN", "Infinity" and "-Infinity"; BYTES in
// base64; DATE, DATETIME, TIME and TIMESTAMP in ISO 8601 (a TIMESTAMP in UTC
// with a Z); an INTERVAL in ISO 8601 (P1Y2M3DT4H5M6.5S); a RANGE as an
// object of its start and end.

// rangeJSONKeys name a RANGE's bounds in JSON (an unbounded one is null).
var rangeJSONKeys = [2]string{"start", "end"}

// maxExactJSONInt is 2^53: integers up to it in magnitude are exact doubles.
const maxExactJSONInt = 1 << 53

// ToJSON encodes v as TO_JSON does.
func ToJSON(v Value, stringifyWide bool) (JSONNode, error) {
	if v.Null {
		return JSONNode{Kind: JSONNull}, nil
	}
	switch v.T.Kind {
	case KindInt64:
		if stringifyWide && (v.I < -maxExactJSONInt || v.I > maxExactJSONInt) {
			return JSONNode{Kind: JSONString, Str: strconv.FormatInt(v.I, 10)}, nil
		}
		return JSONNode{Kind: JSONNumber, Num: strconv.FormatInt(v.I, 10)}, nil
	case KindFloat64:
		if s, special := specialFloatJSON(v.F); special {
			return JSONNode{Kind: JSONString, Str: s}, nil
		}
		f := v.F
		if f == 0 {
			f = 0 // -0 is written as 0
		}
		return JSONNode{Kind: JSONNumber, Num: FormatJSONDouble(f)}, nil
	case KindNumeric, KindBigNumeric:
		return decimalToJSON(v, stringifyWide)
	case KindJSON:
		return DecodeJSON(v), nil
	case KindArray:
		n := JSONNode{Kind: JSONArray, Elems: make([]JSONNode, len(v.L))}
		for i, e := range v.L {
			x, err := ToJSON(e, stringifyWide)
			if err != nil {
				return n, err
			}
			n.Elems[i] = x
		}
		return n, nil
	case KindStruct:
		m := make([]JSONMember, len(v.L))
		for i, e := range v.L {
			x, err := ToJSON(e, stringifyWide)
			if err != nil {
				return JSONNode{}, err
			}
			m[i] = JSONMember{Key: v.T.Fields[i].Name, Val: x}
		}
		return JSONObjectOf(m), nil
	case KindBool:
		return JSONNode{Kind: JSONBool, Bool: v.I != 0}, nil
	case KindRange:
		var m [2]JSONMember
		for i, name := range rangeJSONKeys {
			x, err := ToJSON(v.L[i], stringifyWide)
			if err != nil {
				return JSONNode{}, err
			}
			m[i] = JSONMember{Key: name, Val: x}
		}
		return JSONObjectOf(m[:]), nil
	}
	s, ok := jsonScalarString(v)
	if !ok {
		return JSONNode{}, fmt.Errorf("%w: %s has no JSON encoding", ErrJSON, v.T)
	}
	return JSONNode{Kind: JSONString, Str: s}, nil
}

// decimalToJSON is a NUMERIC or BIGNUMERIC as TO_JSON writes it: an
// integer as one, else a double when that is the same number. Another is a
// string with stringifyWide, else an error: BigQuery's TO_JSON, JSON_ARRAY
// and JSON_OBJECT refuse a number JSON cannot hold without loss (ZetaSQL's
// strict number mode; its lax reference rounds).
func decimalToJSON(v Value, stringifyWide bool) (JSONNode, error) {
	text := FormatDecimal(v)
	r := v.Rat()
	if r.IsInt() {
		if n := r.Num(); n.IsInt64() || n.IsUint64() {
			i := n.Int64()
			if stringifyWide && n.IsInt64() && (i < -maxExactJSONInt || i > maxExactJSONInt) || stringifyWide && !n.IsInt64() {
				return JSONNode{Kind: JSONString, Str: text}, nil
			}
			return JSONNode{Kind: JSONNumber, Num: n.String()}, nil
		}
	}
	f, _ := new(big.Float).SetRat(r).Float64()
	if !sameDecimal(text, strconv.FormatFloat(f, 'e', -1, 64)) {
		if stringifyWide {
			return JSONNode{Kind: JSONString, Str: text}, nil
		}
		return JSONNode{}, fmt.Errorf("failed to convert type %s to JSON: %s has more digits than a JSON number holds (TO_JSON with stringify_wide_numbers => TRUE keeps it as a string)", v.T, text)
	}
	return JSONNode{Kind: JSONNumber, Num: FormatJSONDouble(f)}, nil
}

// specialFloatJSON is the string TO_JSON and TO_JSON_STRING write for NaN
// and ±inf.
func specialFloatJSON(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	}
	return "", false
}

// jsonScalarString is the JSON string of a value both encodings write as
// one: STRING, BYTES, the times and INTERVAL.
func jsonScalarString(v Value) (string, bool) {
	switch v.T.Kind {
	case KindString:
		return v.S, true
	case KindBytes:
		return base64.StdEncoding.EncodeToString([]byte(v.S)), true
	case KindDate:
		return FormatDate(v.I), true
	case KindDatetime:
		return narrowFraction(FormatDatetime(v.I), v.I), true
	case KindTime:
		return narrowFraction(FormatTime(v.I), v.I), true
	case KindTimestamp:
		return narrowFraction(FormatDatetime(v.I), v.I) + "Z", true
	case KindInterval:
		return FormatISOInterval(v), true
	}
	return "", false
}

// AppendJSONText writes v as TO_JSON_STRING does.
func AppendJSONText(b []byte, v Value) ([]byte, error) {
	if v.Null {
		return append(b, "null"...), nil
	}
	switch v.T.Kind {
	case KindBool:
		return strconv.AppendBool(b, v.I != 0), nil
	case KindInt64:
		if v.I < -maxExactJSONInt || v.I > maxExactJSONInt {
			return AppendJSONString(b, strconv.FormatInt(v.I, 10)), nil
		}
		return strconv.AppendInt(b, v.I, 10), nil
	case KindFloat64:
		if s, special := specialFloatJSON(v.F); special {
			return AppendJSONString(b, s), nil
		}
		return append(b, FormatFloatRoundTrip(v.F)...), nil
	case KindNumeric, KindBigNumeric:
		text := FormatDecimal(v)
		r := v.Rat()
		if r.IsInt() && r.Num().IsInt64() && r.Num().Int64() >= -maxExactJSONInt && r.Num().Int64() <= maxExactJSONInt {
			return append(b, text...), nil
		}
		return AppendJSONString(b, text), nil
	case KindJSON:
		return append(b, v.S...), nil
	case KindArray:
		b = append(b, '[')
		for i, e := range v.L {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendJSONText(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case KindStruct:
		b = append(b, '{')
		for i, e := range v.L {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, v.T.Fields[i].Name)
			b = append(b, ':')
			var err error
			if b, err = AppendJSONText(b, e); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case KindRange:
		for i, name := range rangeJSONKeys {
			b = append(b, "{,"[i])
			b = AppendJSONString(b, name)
			b = append(b, ':')
			var err error
			if b, err = AppendJSONText(b, v.L[i]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	s, ok := jsonScalarString(v)
	if !ok {
		return b, fmt.Errorf("%w: %s has no JSON encoding", ErrJSON, v.T)
	}
	return AppendJSONString(b, s), nil
}

// FormatFloatRoundTrip writes a finite FLOAT64 as BigQuery's
// TO_JSON_STRING does: as CAST to STRING writes it, but -0 as 0.
func FormatFloatRoundTrip(f float64) string {
	if f == 0 {
		return "0"
	}
	return FormatFloat(f)
}

// FormatISOInterval writes an INTERVAL in ISO 8601 as BigQuery's JSON
// encodings do: P[nY][nM][nD][T[nH][nM][n[.f]S]], each part with its own
// sign, zero parts left out (P0Y for a zero interval).
func FormatISOInterval(v Value) string {
	var b strings.Builder
	b.WriteByte('P')
	months, days, us := int64(v.Months), int64(v.Days), v.I
	if y := months / 12; y != 0 {
		fmt.Fprintf(&b, "%dY", y)
	}
	if m := months % 12; m != 0 {
		fmt.Fprintf(&b, "%dM", m)
	}
	if days != 0 {
		fmt.Fprintf(&b, "%dD", days)
	}
	if us != 0 {
		b.WriteByte('T')
		h, rest := us/Hour, us%Hour
		m, rest := rest/Minute, rest%Minute
		if h != 0 {
			fmt.Fprintf(&b, "%dH", h)
		}
		if m != 0 {
			fmt.Fprintf(&b, "%dM", m)
		}
		if rest != 0 {
			sign := ""
			if rest < 0 {
				sign, rest = "-", -rest
			}
			sec := strconv.FormatInt(rest/Second, 10)
			if frac := rest % Second; frac != 0 {
				sec += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
			}
			fmt.Fprintf(&b, "%s%sS", sign, sec)
		}
	}
	if b.Len() == 1 {
		return "P0Y"
	}
	return b.String()
}
