package api

import (
	"encoding/base64"
	"math"
	"slices"
	"strconv"

	"logq/exec"
	"logq/types"
)

// encodeResult writes {"result": [...]} with each row's keys in select-list
// order and values encoded as Logflare does (CONTRACT.md §2).
func encodeResult(res *exec.Result, maxRows int) []byte {
	b := make([]byte, 0, 256+len(res.Rows)*64)
	b = append(b, `{"result":[`...)
	enc := encoder{}
	keys := make([][]byte, len(res.Columns))
	for i, c := range res.Columns {
		keys[i] = strconv.AppendQuote(nil, c.Name)
	}
	for r, row := range res.Rows {
		if maxRows > 0 && r >= maxRows {
			break
		}
		if r > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for i := range row {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, keys[i]...)
			b = append(b, ':')
			b = enc.value(b, &row[i])
		}
		b = append(b, '}')
		if r == 0 && len(res.Rows) > 1 {
			// The rest of the rows are sized like the first (and a quarter
			// more): wide rows then cost no series of copies as b grows.
			n := len(res.Rows)
			if maxRows > 0 {
				n = min(n, maxRows)
			}
			b = slices.Grow(b, (len(b)+len(b)/4)*(n-1))
		}
	}
	return append(b, "]}\n"...)
}

// encoder holds what one response reuses: each record type's member
// names, escaped and followed by their colon once per response rather than
// once per row (an edge record's metadata holds dozens), keyed by the
// address of the type's first field.
type encoder struct {
	names map[*types.Field][][]byte
}

// appendValue writes one value as a response does.
func appendValue(b []byte, v types.Value) []byte { return (&encoder{}).value(b, &v) }

// memberNames returns the escaped `"name":` of each field of the STRUCT t,
// all in one buffer.
func (e *encoder) memberNames(t types.Type) [][]byte {
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
		buf = append(appendString(buf, name), ':')
		offs[i+1] = len(buf)
	}
	ns := make([][]byte, len(t.Fields))
	for i := range ns {
		ns[i] = buf[offs[i]:offs[i+1]]
	}
	if e.names == nil {
		e.names = map[*types.Field][][]byte{}
	}
	e.names[key] = ns
	return ns
}

// value writes *v (a pointer: a Value is ~100 bytes, copied at every
// level of a nested record otherwise).
func (e *encoder) value(b []byte, v *types.Value) []byte {
	if v.Null {
		return append(b, "null"...)
	}
	switch v.T.Kind {
	case types.KindBool:
		return strconv.AppendBool(b, v.I != 0)
	case types.KindInt64, types.KindTimestamp:
		return strconv.AppendInt(b, v.I, 10)
	case types.KindFloat64:
		switch {
		case math.IsNaN(v.F):
			return append(b, `"NaN"`...)
		case math.IsInf(v.F, 1):
			return append(b, `"Infinity"`...)
		case math.IsInf(v.F, -1):
			return append(b, `"-Infinity"`...)
		}
		return strconv.AppendFloat(b, v.F, 'g', -1, 64)
	case types.KindString:
		return appendString(b, v.S)
	case types.KindBytes:
		return appendString(b, base64.StdEncoding.EncodeToString([]byte(v.S)))
	case types.KindDatetime:
		return appendString(b, types.FormatDatetime(v.I))
	case types.KindDate:
		return appendString(b, types.FormatDate(v.I))
	case types.KindTime:
		return appendString(b, types.FormatTime(v.I))
	case types.KindInterval:
		return appendString(b, types.FormatInterval(*v))
	case types.KindRange: // its text, as BigQuery's API sends it
		return appendString(b, types.FormatRange(*v))
	case types.KindJSON: // the value itself, as Logflare gives a record's fields
		return append(b, v.S...)
	case types.KindNumeric, types.KindBigNumeric:
		// Exact decimal text in a string, as BigQuery's API sends it: a
		// JSON number would be rounded to a double by most clients.
		return appendString(b, types.FormatDecimal(*v))
	case types.KindArray:
		b = append(b, '[')
		for i := range v.L {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.value(b, &v.L[i])
		}
		return append(b, ']')
	case types.KindStruct:
		b = append(b, '{')
		if len(v.L) > 0 {
			names := e.memberNames(v.T)
			for i := range v.L {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, names[i]...)
				b = e.value(b, &v.L[i])
			}
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// appendString writes a JSON string, escaped as BigQuery escapes one.
func appendString(b []byte, s string) []byte { return types.AppendJSONString(b, s) }
