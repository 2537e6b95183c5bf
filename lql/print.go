package lql

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// String prints the query in canonical LQL; Parse(q.String()) gives an equal query.
//
// Clauses are separated by one space; metadata paths are written m.…;
// values are written bare when they were written bare, else in double
// quotes with only the escapes that reading them back needs.
func (q *Query) String() string {
	var b strings.Builder
	for i := range q.Filters {
		if i > 0 {
			b.WriteByte(' ')
		}
		q.Filters[i].write(&b)
	}
	return b.String()
}

var opText = map[Op]string{
	Eq: ":", Regex: ":~", Gt: ":>", Ge: ":>=", Lt: ":<", Le: ":<=",
	Range: ":", Includes: ":@>", IncludesRegex: ":@>~", IsNull: ":", Contains: ":",
}

func (f *Filter) write(b *strings.Builder) {
	if f.Negate {
		b.WriteByte('-')
	}
	onMessage := len(f.Path) == 1 && f.Path[0] == "event_message"
	switch {
	case onMessage && f.Op == Contains:
		if !f.Quoted && bareWord(f.Value, f.Negate) {
			b.WriteString(f.Value)
		} else {
			writeQuoted(b, f.Value)
		}
		return
	case onMessage && f.Op == Regex && (f.Quoted || bareWord(f.Value, true) || !bareValue(Regex, f.Value)):
		b.WriteByte('~')
		if !f.Quoted && bareWord(f.Value, true) {
			b.WriteString(f.Value)
		} else {
			writeQuoted(b, f.Value)
		}
		return
	}
	for i, s := range f.Path {
		if i == 0 && s == "metadata" && len(f.Path) > 1 {
			s = "m"
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	b.WriteString(opText[f.Op])
	switch {
	case f.Op == IsNull:
		b.WriteString("NULL")
	case f.Op == Range:
		b.WriteString(f.Lo)
		b.WriteString("..")
		b.WriteString(f.Hi)
	case f.Quoted || !bareValue(f.Op, f.Value):
		writeQuoted(b, f.Value)
	default:
		b.WriteString(f.Value)
	}
}

// bareWord reports that v reads back as one bare word. A leading "-" would
// read as negation unless one is already written before it.
func bareWord(v string, negated bool) bool {
	return v != "" && scanWord(v, 0) == len(v) && (negated || v[0] != '-')
}

// bareValue reports that v reads back unquoted as the value of a field
// clause with operator op.
func bareValue(op Op, v string) bool {
	if v == "" || doubledOp(v) {
		return false
	}
	if op != Regex && op != IncludesRegex {
		if v[0] == '(' || v == "NULL" {
			return false
		}
		if _, _, kind := splitRange(v); kind != notRange {
			return false
		}
	}
	for _, r := range v {
		if r == '"' || r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// writeQuoted writes v in double quotes. Reading undoes \" and \\ only, so
// a backslash is doubled only where it would otherwise start one of them.
func writeQuoted(b *strings.Builder, v string) {
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\' && (i+1 == len(v) || v[i+1] == '"' || v[i+1] == '\\'):
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
