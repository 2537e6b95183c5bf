package clickhouse

import (
	"fmt"
	"strings"

	"logq/event"
	"logq/types"
)

// The table of a source holds logq's storage model as it is (logstore's,
// CLICKHOUSE.md §3.2): the three fixed columns, then one column per field
// path and kind, added as events first bring them. A column's name is the
// field's dotted path and a kind code after '#':
//
//	timestamp       Int64              µs since the epoch (TIMESTAMP)
//	id              String
//	event_message   Nullable(String)
//	P#i             Nullable(Int64)    INT64 values of field P
//	P#f             Nullable(Float64)  FLOAT64
//	P#s             Nullable(String)   STRING
//	P#b             Nullable(UInt8)    BOOL
//	P#o             UInt8              1 when the event has the object P
//	P#a             Nullable(String)   an ARRAY, as JSON text; the column's
//	                                   comment holds the element type
//	P#n             Nullable(UInt8)    always NULL: P has held only NULLs (it
//	                                   counts toward the field cap)
//
// Columns are made in the order the fields were (the local store's order
// of fields); the id and event_message columns too, when the first event
// brings them, and the timestamp field, whose column the table is made
// with, stands just before id (every event brings both, in that order).
//
// A field that widens (INT64 meeting a fraction, a scalar meeting another
// kind) gets a column for its new kind beside the old one, and never a
// rewritten column: each row holds its value in the column of the kind the
// field had when the row was written, and reads convert it to the field's
// kind now in Go, by the rule the local store converts by (event.Text). So
// no ALTER … MODIFY rewrites parts, two logq instances that widen a field
// at once both succeed, and the schema (the event.Tree every query binds
// against) is read back from the columns alone, in the order they were
// made, by any instance.

// fixedColumns are the columns every source table has.
var fixedColumns = map[string]types.Kind{"timestamp": types.KindTimestamp, "id": types.KindString, "event_message": types.KindString}

// Kind codes of field columns.
const (
	codeInt    = 'i'
	codeFloat  = 'f'
	codeString = 's'
	codeBool   = 'b'
	codeObject = 'o'
	codeArray  = 'a'
	codeNull   = 'n' // a field that has held only NULLs so far
)

// kindCode is the code of a scalar kind's column.
func kindCode(k types.Kind) byte {
	switch k {
	case types.KindInt64:
		return codeInt
	case types.KindFloat64:
		return codeFloat
	case types.KindBool:
		return codeBool
	case types.KindArray:
		return codeArray
	}
	return codeString
}

// codeKind is the logq kind of a code's column.
func codeKind(c byte) types.Kind {
	switch c {
	case codeInt:
		return types.KindInt64
	case codeFloat:
		return types.KindFloat64
	case codeBool:
		return types.KindBool
	case codeArray:
		return types.KindArray
	case codeString:
		return types.KindString
	}
	return types.KindNull
}

// chType is the ClickHouse type of a code's column.
func chType(c byte) string {
	switch c {
	case codeInt:
		return "Nullable(Int64)"
	case codeFloat:
		return "Nullable(Float64)"
	case codeBool:
		return "Nullable(UInt8)"
	case codeObject:
		return "UInt8"
	case codeNull:
		return "Nullable(UInt8)"
	}
	return "Nullable(String)"
}

// columnName is the column of field path's kind code.
func columnName(path string, code byte) string { return path + "#" + string(code) }

// splitColumn reads a field column's name; ok is false for a fixed or a
// foreign column.
func splitColumn(name string) (path string, code byte, ok bool) {
	i := strings.LastIndexByte(name, '#')
	if i <= 0 || i != len(name)-2 {
		return "", 0, false
	}
	switch c := name[i+1]; c {
	case codeInt, codeFloat, codeString, codeBool, codeObject, codeArray, codeNull:
		return name[:i], c, true
	}
	return "", 0, false
}

// column is one column of a source table as system.columns lists it.
type column struct {
	name, typ, comment string
	node               int    // the field's event.Node ID, when a request made it
	table              string // the table listed in, when read back
}

// layout is what a source's table holds: its columns by name, and for
// each field path the kind codes it has columns of, in the order they were
// made.
type layout struct {
	cols    map[string]bool
	codes   map[string][]byte
	elem    map[string]types.Type // arrays' element types, from comments
	comment map[string]string     // array columns' comments
	order   []column
}

func newLayout() *layout {
	return &layout{cols: map[string]bool{}, codes: map[string][]byte{}, elem: map[string]types.Type{}, comment: map[string]string{}}
}

// setComment notes an array column's comment: its element type.
func (l *layout) setComment(name, comment string) {
	path, code, ok := splitColumn(name)
	if !ok || code != codeArray {
		return
	}
	l.comment[name] = comment
	if t, err := parseType(comment); err == nil {
		l.elem[path] = t
	}
}

// add notes one more column of the table.
func (l *layout) add(c column) {
	if l.cols[c.name] {
		return
	}
	l.cols[c.name] = true
	l.order = append(l.order, c)
	if path, code, ok := splitColumn(c.name); ok {
		l.codes[path] = append(l.codes[path], code)
		l.setComment(c.name, c.comment)
	}
}

// tree builds the field tree the columns describe, under a field cap of
// maxFields (fields past it were never made: events put them in
// __overflow).
func (l *layout) tree(maxFields int) *event.Tree {
	t := event.NewTree(maxFields)
	l.apply(t, l.order)
	return t
}

// apply makes (or widens) in t the fields of cols, columns of l: at the
// start every column, and later those another instance added (watch.go).
func (l *layout) apply(t *event.Tree, cols []column) {
	for _, c := range cols {
		if k, ok := fixedColumns[c.name]; ok {
			switch c.name {
			case "timestamp":
				continue // made with the table; its field stands before id
			case "id":
				t.Root().Child("timestamp").Kind = types.KindTimestamp
			}
			t.Root().Child(c.name).Kind = k
			continue
		}
		path, code, ok := splitColumn(c.name)
		if !ok {
			continue
		}
		n := t.Root()
		for _, key := range strings.Split(path, ".") {
			n = n.Child(key)
		}
		switch code {
		case codeNull:
		case codeObject:
			n.Object = true
		case codeArray:
			n.Array, n.Kind = true, types.KindArray
			n.Elem = event.WidenElem(n.Elem, l.elem[path])
		default:
			n.Kind = event.WidenKind(n.Kind, codeKind(code))
		}
	}
}

// parseType reads a type as types.Type.String writes it (INT64,
// ARRAY<STRUCT<a INT64, b STRING>>, …): how an array column's comment names
// its element type.
func parseType(s string) (types.Type, error) {
	p := &typeParser{s: s}
	t := p.typ()
	if p.err == nil && p.i != len(s) {
		p.fail("trailing text")
	}
	return t, p.err
}

type typeParser struct {
	s   string
	i   int
	err error
}

func (p *typeParser) fail(what string) {
	if p.err == nil {
		p.err = fmt.Errorf("type %q: %s at %d", p.s, what, p.i)
	}
}

func (p *typeParser) word() string {
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] == '_' || p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' || p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *typeParser) expect(lit string) {
	if !strings.HasPrefix(p.s[p.i:], lit) {
		p.fail("expected " + lit)
		return
	}
	p.i += len(lit)
}

func (p *typeParser) typ() types.Type {
	if p.err != nil || len(p.s)-p.i > 1<<16 {
		p.fail("too long")
		return types.Null
	}
	switch w := p.word(); w {
	case "ARRAY":
		p.expect("<")
		e := p.typ()
		p.expect(">")
		return types.ArrayOf(e)
	case "STRUCT":
		p.expect("<")
		var fields []types.Field
		for p.err == nil && !strings.HasPrefix(p.s[p.i:], ">") {
			if len(fields) > 0 {
				p.expect(", ")
			}
			name := p.word()
			p.expect(" ")
			fields = append(fields, types.Field{Name: name, Type: p.typ()})
		}
		p.expect(">")
		return types.StructOf(fields...)
	default:
		for k := types.KindNull; k <= types.KindStruct; k++ {
			if k.String() == w && k != types.KindArray && k != types.KindStruct {
				return types.Type{Kind: k}
			}
		}
		p.fail("unknown type " + w)
		return types.Null
	}
}
