package types

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// BigQuery's JSON type. A JSON value is held in Value.S as its canonical
// text, so that two values that BigQuery prints alike are one string:
//
//   - compact, no white space;
//   - an object's keys sorted by their bytes, and of a key written twice the
//     first value kept (BigQuery keeps the first);
//   - a number that is an integer in INT64's range written as one, then one in
//     UINT64's range, else a double written the shortest way that reads back
//     ("1.0" stays a double and is written 1.0; 1e100 is written 1e+100);
//   - a string with ", \, the control characters and U+2028/U+2029 escaped.
//
// JSON null is a JSON value, not SQL NULL: `JSON 'null' IS NULL` is FALSE.

// JSONKind is the kind of a JSON node, with the names JSON_TYPE gives them.
type JSONKind uint8

// The JSON kinds.
const (
	JSONNull JSONKind = iota
	JSONBool
	JSONNumber
	JSONString
	JSONArray
	JSONObject
)

var jsonKindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k JSONKind) String() string { return jsonKindNames[k] }

// JSONNode is a decoded JSON value.
type JSONNode struct {
	Kind    JSONKind
	Bool    bool
	Num     string // a number's canonical text
	Str     string
	Elems   []JSONNode
	Members []JSONMember // sorted by key, each key once
}

// JSONMember is one key of an object and its value.
type JSONMember struct {
	Key string
	Val JSONNode
}

// jsonMaxDepth bounds nesting: deeper documents are refused, not recursed into.
const jsonMaxDepth = 1000

// ErrJSON is wrapped by every error about JSON text or numbers.
var ErrJSON = errors.New("invalid JSON")

// ParseJSON reads JSON text as BigQuery's PARSE_JSON does. A number that a
// double cannot hold exactly is an error unless round is set (the
// wide_number_mode 'exact' and 'round').
func ParseJSON(text string, round bool) (Value, error) {
	n, err := DecodeJSONText(text, round)
	if err != nil {
		return Value{}, err
	}
	return JSONValue(n), nil
}

// DecodeJSONText parses JSON text into a node (see ParseJSON).
func DecodeJSONText(text string, round bool) (JSONNode, error) {
	if err := checkSurrogates(text); err != nil {
		return JSONNode{}, err
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	n, err := decodeJSON(dec, round, 0)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = fmt.Errorf("%w: text after the value", ErrJSON)
		}
	}
	if err != nil && !errors.Is(err, ErrJSON) {
		err = fmt.Errorf("%w: %v", ErrJSON, err)
	}
	return n, err
}

func decodeJSON(dec *json.Decoder, round bool, depth int) (JSONNode, error) {
	if depth > jsonMaxDepth {
		return JSONNode{}, fmt.Errorf("%w: nested deeper than %d", ErrJSON, jsonMaxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = fmt.Errorf("%w: no value", ErrJSON)
		}
		return JSONNode{}, err
	}
	switch t := tok.(type) {
	case nil:
		return JSONNode{Kind: JSONNull}, nil
	case bool:
		return JSONNode{Kind: JSONBool, Bool: t}, nil
	case json.Number:
		num, err := JSONNumberText(string(t), round)
		return JSONNode{Kind: JSONNumber, Num: num}, err
	case string:
		return JSONNode{Kind: JSONString, Str: t}, nil
	case json.Delim:
		if t == '[' {
			n := JSONNode{Kind: JSONArray, Elems: []JSONNode{}}
			for dec.More() {
				e, err := decodeJSON(dec, round, depth+1)
				if err != nil {
					return n, err
				}
				n.Elems = append(n.Elems, e)
			}
			_, err := dec.Token() // ]
			return n, err
		}
		n := JSONNode{Kind: JSONObject, Members: []JSONMember{}}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return n, err
			}
			v, err := decodeJSON(dec, round, depth+1)
			if err != nil {
				return n, err
			}
			n.Members = append(n.Members, JSONMember{Key: k.(string), Val: v})
		}
		if _, err := dec.Token(); err != nil { // }
			return n, err
		}
		n.Members = sortMembers(n.Members)
		return n, nil
	}
	return JSONNode{}, fmt.Errorf("%w: unexpected %v", ErrJSON, tok)
}

// checkSurrogates refuses a \u escape of half a UTF-16 surrogate pair
// without its other half, which JSON parsers such as ZetaSQL's reject
// (Go's decoder would make it U+FFFD).
func checkSurrogates(text string) error {
	half := func(i int) (high, low bool) {
		if i+6 > len(text) || text[i] != '\\' || text[i+1] != 'u' {
			return false, false
		}
		v, err := strconv.ParseUint(text[i+2:i+6], 16, 16)
		if err != nil {
			return false, false
		}
		return v >= 0xD800 && v < 0xDC00, v >= 0xDC00 && v < 0xE000
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '\\' {
			continue
		}
		high, low := half(i)
		switch {
		case high:
			if _, nextLow := half(i + 6); !nextLow {
				return fmt.Errorf("%w: a \\u escape holds half a surrogate pair", ErrJSON)
			}
			i += 11 // the pair
		case low:
			return fmt.Errorf("%w: a \\u escape holds half a surrogate pair", ErrJSON)
		default:
			i++ // an escaped character, \\ included
		}
	}
	return nil
}

// sortMembers sorts an object's members by key, keeping the first of each key.
func sortMembers(m []JSONMember) []JSONMember {
	sort.SliceStable(m, func(i, j int) bool { return m[i].Key < m[j].Key })
	out := m[:0]
	for i, x := range m {
		if i > 0 && x.Key == out[len(out)-1].Key {
			continue
		}
		out = append(out, x)
	}
	return out
}

// JSONObjectOf builds an object from members in any order (the first of a
// repeated key kept).
func JSONObjectOf(m []JSONMember) JSONNode {
	return JSONNode{Kind: JSONObject, Members: sortMembers(m)}
}

// Member returns the value of key in an object.
func (n JSONNode) Member(key string) (JSONNode, bool) {
	if n.Kind != JSONObject {
		return JSONNode{}, false
	}
	i := sort.Search(len(n.Members), func(i int) bool { return n.Members[i].Key >= key })
	if i < len(n.Members) && n.Members[i].Key == key {
		return n.Members[i].Val, true
	}
	return JSONNode{}, false
}

// JSONNumberText is the canonical text of a JSON number written as text
// (see the package comment). Without round, a number that does not fit an
// INT64 or UINT64 must read back from the nearest double as the same number.
func JSONNumberText(text string, round bool) (string, error) {
	if !strings.ContainsAny(text, ".eE") {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		if u, err := strconv.ParseUint(text, 10, 64); err == nil {
			return strconv.FormatUint(u, 10), nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return "", fmt.Errorf("%w: number %s is out of range", ErrJSON, text)
	}
	if !round && !sameDecimal(text, strconv.FormatFloat(f, 'e', -1, 64)) {
		return "", fmt.Errorf("%w: number %s cannot be stored without loss of precision (use wide_number_mode=>'round')", ErrJSON, text)
	}
	return FormatJSONDouble(f), nil
}

// sameDecimal reports whether two decimal numbers written as text (with an
// optional sign, fraction and exponent) are the same number.
func sameDecimal(a, b string) bool {
	na, ea, sa := decimalDigits(a)
	nb, eb, sb := decimalDigits(b)
	if na == "" && nb == "" {
		return true // zeros, whatever their signs
	}
	return na == nb && ea == eb && sa == sb
}

// decimalDigits splits a decimal text into its significant digits (no leading
// or trailing zeros), the exponent of the first digit, and its sign.
func decimalDigits(s string) (digits string, exp int, neg bool) {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	mant := s
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return s, 0, neg // not a number: compares equal to nothing else
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	exp += len(intPart) - 1
	for len(all) > 0 && all[0] == '0' {
		all = all[1:]
		exp--
	}
	all = strings.TrimRight(all, "0")
	return all, exp, neg
}

// FormatJSONDouble writes a double as a JSON number: the shortest digits that
// read back, in plain notation with at least one fraction digit when the
// decimal exponent is in [-4, 15), else as d.ddde±XX.
func FormatJSONDouble(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	mant, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	switch {
	case exp >= 0 && exp < 15:
		if len(digits) <= exp+1 {
			out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		} else {
			out = digits[:exp+1] + "." + digits[exp+1:]
		}
	case exp < 0 && exp >= -4:
		out = "0." + strings.Repeat("0", -exp-1) + digits
	default:
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		out += "e" + sign + fmt.Sprintf("%02d", exp)
	}
	if neg {
		out = "-" + out
	}
	return out
}

// JSONValue returns the JSON value of a node.
func JSONValue(n JSONNode) Value {
	return Value{T: JSON, S: string(n.AppendTo(nil))}
}

// DecodeJSON returns the node of a (non-NULL) JSON value.
func DecodeJSON(v Value) JSONNode {
	n, err := DecodeJSONText(v.S, true)
	if err != nil { // canonical text always parses
		return JSONNode{Kind: JSONNull}
	}
	return n
}

// AppendTo writes n's canonical text.
func (n JSONNode) AppendTo(b []byte) []byte {
	switch n.Kind {
	case JSONBool:
		return strconv.AppendBool(b, n.Bool)
	case JSONNumber:
		return append(b, n.Num...)
	case JSONString:
		return AppendJSONString(b, n.Str)
	case JSONArray:
		b = append(b, '[')
		for i, e := range n.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.AppendTo(b)
		}
		return append(b, ']')
	case JSONObject:
		b = append(b, '{')
		for i, m := range n.Members {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, m.Key)
			b = append(b, ':')
			b = m.Val.AppendTo(b)
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// AppendJSONString writes s as a JSON string as BigQuery escapes one: " and
// \, the control characters (\b \f \n \r \t, the others as \u00XX) and
// U+2028 and U+2029 (which JavaScript reads as line ends); everything else
// as it is. Invalid UTF-8 becomes U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendJSONStringContent(b, s)
	return append(b, '"')
}

// AppendJSONStringContent writes s escaped as AppendJSONString does,
// without the quotes: for text put together inside one JSON string.
func AppendJSONStringContent(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	// Runs of bytes that need no escape are copied whole: results are
	// mostly ASCII text, and a byte at a time through utf8.AppendRune ran
	// at ~120 MB/s where a copy runs at memory speed (docs/performance.md).
	raw := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	run := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none is a quote, a backslash, a
		// control character or past ASCII.
		for i+8 <= len(s) {
			w := binary.LittleEndian.Uint64(raw[i:])
			if (w|hasZero(w^0x2222222222222222)|hasZero(w^0x5c5c5c5c5c5c5c5c)|hasLess20(w))&0x8080808080808080 != 0 {
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[run:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			run = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[run:i]...)
			b = append(b, "\ufffd"...)
		case r == 0x2028 || r == 0x2029:
			b = append(b, s[run:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		run = i
	}
	return append(b, s[run:]...)
}

// hasZero has the high bit of each byte of w that is zero set (and maybe
// others' past the first such byte, which only stops the fast path early).
func hasZero(w uint64) uint64 { return (w - 0x0101010101010101) &^ w }

// hasLess20 has the high bit of each byte of w below 0x20 set, as hasZero.
func hasLess20(w uint64) uint64 { return (w - 0x2020202020202020) &^ w }

// jsonSafe marks the ASCII bytes AppendJSONString copies as they are.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
