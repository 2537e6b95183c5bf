package types

import (
	"encoding/base64"
	"math"
	"strconv"
)

// ResponseEncoder writes values as the HTTP API's responses hold them
// (docs/http.md, CONTRACT.md §2), as Logflare gives BigQuery's rows: INT64
// and TIMESTAMP (µs) as JSON numbers, FLOAT64 as the shortest text that
// reads back (NaN and ±inf as strings), BYTES in base64, the other
// date and time types and decimals as strings, a JSON value inline, an
// ARRAY as an array and a STRUCT as an object in field order, an anonymous
// field named as BigQuery names it.
//
// It holds what one response reuses: each record type's member names,
// escaped and followed by their colon once per response rather than once
// per row (an edge record's metadata holds dozens), keyed by the address of
// the type's first field. The zero value is ready; it is not safe for
// concurrent use.
type ResponseEncoder struct {
	names map[*Field][][]byte
}

// MemberNames returns the escaped `"name":` of each field of the STRUCT t
// (at least one), all in one buffer.
func (e *ResponseEncoder) MemberNames(t Type) [][]byte {
	key := &t.Fields[0]
	if ns, ok := e.names[key]; ok {
		return ns
	}
	size := 0
	for _, f := range t.Fields {
		size += len(f.Name) + 12 // quotes, colon, room for an anonymous name or an escape
	}
	buf := make([]byte, 0, size)
	offs := make([]int, len(t.Fields)+1) // name i is buf[offs[i]:offs[i+1]]
	for i, f := range t.Fields {
		name := f.Name
		if name == "" { // an anonymous field, named as BigQuery names it
			name = "_field_" + strconv.Itoa(i+1)
		}
		buf = append(AppendJSONString(buf, name), ':')
		offs[i+1] = len(buf)
	}
	ns := make([][]byte, len(t.Fields))
	for i := range ns {
		ns[i] = buf[offs[i]:offs[i+1]]
	}
	if e.names == nil {
		e.names = map[*Field][][]byte{}
	}
	e.names[key] = ns
	return ns
}

// Append writes *v (a pointer: a Value is ~100 bytes, copied at every
// level of a nested record otherwise).
func (e *ResponseEncoder) Append(b []byte, v *Value) []byte {
	if v.Null {
		return append(b, "null"...)
	}
	switch v.T.Kind {
	case KindBool:
		return strconv.AppendBool(b, v.I != 0)
	case KindInt64, KindTimestamp:
		return strconv.AppendInt(b, v.I, 10)
	case KindFloat64:
		switch {
		case math.IsNaN(v.F):
			return append(b, `"NaN"`...)
		case math.IsInf(v.F, 1):
			return append(b, `"Infinity"`...)
		case math.IsInf(v.F, -1):
			return append(b, `"-Infinity"`...)
		}
		return strconv.AppendFloat(b, v.F, 'g', -1, 64)
	case KindString:
		return e.AppendString(b, v.S)
	case KindBytes:
		return AppendJSONString(b, base64.StdEncoding.EncodeToString([]byte(v.S)))
	case KindDatetime:
		return AppendJSONString(b, FormatDatetime(v.I))
	case KindDate:
		return AppendJSONString(b, FormatDate(v.I))
	case KindTime:
		return AppendJSONString(b, FormatTime(v.I))
	case KindInterval:
		return AppendJSONString(b, FormatInterval(*v))
	case KindRange: // its text, as BigQuery's API sends it
		return AppendJSONString(b, FormatRange(*v))
	case KindJSON: // the value itself, as Logflare gives a record's fields
		return append(b, v.S...)
	case KindNumeric, KindBigNumeric:
		// Exact decimal text in a string, as BigQuery's API sends it: a
		// JSON number would be rounded to a double by most clients.
		return AppendJSONString(b, FormatDecimal(*v))
	case KindArray:
		b = append(b, '[')
		for i := range v.L {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.Append(b, &v.L[i])
		}
		return append(b, ']')
	case KindStruct:
		b = append(b, '{')
		if len(v.L) > 0 {
			names := e.MemberNames(v.T)
			for i := range v.L {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, names[i]...)
				b = e.Append(b, &v.L[i])
			}
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// AppendString writes a STRING as Append writes one, for a writer that
// holds the string without a Value.
func (e *ResponseEncoder) AppendString(b []byte, s string) []byte { return AppendJSONString(b, s) }
