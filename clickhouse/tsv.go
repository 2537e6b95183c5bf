package clickhouse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"logq/types"
)

// tsvReader reads ClickHouse's TabSeparated output a row at a time,
// unescaping fields (\N, a NULL, is returned as nil).
type tsvReader struct {
	r   *bufio.Reader
	buf []byte
}

func newTSVReader(r io.Reader) *tsvReader { return &tsvReader{r: bufio.NewReaderSize(r, 1<<16)} }

// nullField marks a NULL in a row from row.
var nullField = []byte(nil)

// row returns the next row's fields (valid until the next call), nil at
// the end.
func (t *tsvReader) row() ([][]byte, error) {
	line, err := t.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		t.buf = append(t.buf[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = t.r.ReadSlice('\n')
			t.buf = append(t.buf, line...)
		}
		line = t.buf
	}
	if err == io.EOF && len(line) == 0 {
		return nil, nil
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	parts := bytes.Split(line, []byte("\t"))
	for i, p := range parts {
		if bytes.Equal(p, []byte(`\N`)) {
			parts[i] = nullField
			continue
		}
		if bytes.IndexByte(p, '\\') >= 0 {
			parts[i] = tsvUnescape(p)
		} else if len(p) == 0 {
			parts[i] = []byte{}
		}
	}
	return parts, nil
}

// appendEscaped appends s with ClickHouse's backslash escapes, the one
// escaping of both TabSeparated fields and string literals (a literal also
// escapes its quote); tsvUnescape reads it back. Runs without a byte to
// escape, most of a log's text, are copied whole.
func appendEscaped(dst, s []byte, literal bool) []byte {
	for len(s) > 0 {
		i := 0
		for i < len(s) && !escapes[s[i]] && (s[i] != '\'' || !literal) {
			i++
		}
		dst = append(dst, s[:i]...)
		if i == len(s) {
			break
		}
		switch c := s[i]; c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case 0:
			dst = append(dst, '\\', '0')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default: // a literal's quote
			dst = append(dst, '\\', c)
		}
		s = s[i+1:]
	}
	return dst
}

// escapes marks the bytes appendEscaped writes as an escape.
var escapes = [256]bool{'\\': true, '\t': true, '\n': true, '\r': true, 0: true, '\b': true, '\f': true}

func tsvUnescape(p []byte) []byte {
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '\\' || i+1 == len(p) {
			out = append(out, c)
			continue
		}
		i++
		switch p[i] {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case '0':
			out = append(out, 0)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'a':
			out = append(out, '\a')
		case 'v':
			out = append(out, '\v')
		default:
			out = append(out, p[i])
		}
	}
	return out
}

// parseInt, parseFloat read ClickHouse's text of numbers (nan, inf, -inf
// for the floats it cannot write otherwise).
func parseInt(b []byte) (int64, error) { return strconv.ParseInt(string(b), 10, 64) }

func parseFloat(b []byte) (float64, error) {
	switch string(b) {
	case "nan", "-nan":
		return math.NaN(), nil
	case "inf", "+inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(string(b), 64)
}

// appendJSON writes an ARRAY value from an event (of scalars, STRUCTs and
// arrays) as JSON that event.DecodeArray reads back as the same value: a
// FLOAT64 always with a fraction or an exponent, so that it stays one.
func appendJSON(dst []byte, v types.Value) []byte {
	if v.Null {
		return append(dst, "null"...)
	}
	switch v.T.Kind {
	case types.KindArray:
		dst = append(dst, '[')
		for i, e := range v.L {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e)
		}
		return append(dst, ']')
	case types.KindStruct:
		dst = append(dst, '{')
		for i, e := range v.L {
			if i > 0 {
				dst = append(dst, ',')
			}
			name, _ := json.Marshal(v.T.Fields[i].Name)
			dst = append(append(dst, name...), ':')
			dst = appendJSON(dst, e)
		}
		return append(dst, '}')
	case types.KindBool:
		return strconv.AppendBool(dst, v.I != 0)
	case types.KindInt64:
		return strconv.AppendInt(dst, v.I, 10)
	case types.KindFloat64:
		s := strconv.FormatFloat(v.F, 'g', -1, 64)
		if !bytes.ContainsAny([]byte(s), ".eEn") {
			s += ".0"
		}
		return append(dst, s...)
	case types.KindString:
		b, _ := json.Marshal(v.S)
		return append(dst, b...)
	}
	return append(dst, fmt.Sprintf("%q", v.String())...)
}
