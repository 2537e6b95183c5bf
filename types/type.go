package types

import "strings"

// Kind is the outer kind of a SQL type.
type Kind uint8

// The kinds, in an order used only for display. KindNull is the type of an
// untyped NULL literal (or of a log field never seen); it coerces to any kind.
const (
	KindNull Kind = iota
	KindBool
	KindInt64
	KindFloat64
	KindString
	KindBytes
	KindTimestamp
	KindDatetime
	KindDate
	KindInterval
	KindArray
	KindStruct
	// Exact decimals (decimal.go), after the others: kinds are stored.
	KindNumeric
	KindBigNumeric
	KindTime  // a time of day: µs since midnight, in [0, 86400·10⁶)
	KindJSON  // a JSON value, held as its canonical text (json.go)
	KindRange // RANGE<DATE|DATETIME|TIMESTAMP>, its bounds in Value.L (range.go)
)

var kindNames = [...]string{"NULL", "BOOL", "INT64", "FLOAT64", "STRING", "BYTES", "TIMESTAMP", "DATETIME", "DATE", "INTERVAL", "ARRAY", "STRUCT", "NUMERIC", "BIGNUMERIC", "TIME", "JSON", "RANGE"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "UNKNOWN"
}

// Type is a SQL type. Elem is set for arrays, Fields for structs.
//
// A STRING may carry a collation from COLLATE(x, spec) ('und:ci',
// 'binary', …): an annotation the binder carries and acts on
// (expr/collation.go), ignored by Equal and String. It is held as
// the index of its interned spec (collation.go) in the padding after Kind,
// so a Type, and every boxed Value, stays as small as without it.
type Type struct {
	Kind   Kind
	coll   uint16
	Elem   *Type
	Fields []Field
}

// Collation is the collation spec a STRING carries ("" for none).
func (t Type) Collation() string { return collationSpec(t.coll) }

// SetCollation gives t the collation spec, which collation.Parse accepted
// ("" takes it off).
func (t *Type) SetCollation(spec string) { t.coll = collationIndex(spec) }

// Collated reports whether t, or a type inside it, carries a collation.
func (t Type) Collated() bool {
	switch {
	case t.coll != 0:
		return true
	case t.Elem != nil:
		return t.Elem.Collated()
	}
	for _, f := range t.Fields {
		if f.Type.Collated() {
			return true
		}
	}
	return false
}

// Field is one named member of a STRUCT type.
type Field struct {
	Name string
	Type Type
}

// Scalar types, ready to use.
var (
	Null       = Type{Kind: KindNull}
	Bool       = Type{Kind: KindBool}
	Int64      = Type{Kind: KindInt64}
	Float64    = Type{Kind: KindFloat64}
	String     = Type{Kind: KindString}
	Bytes      = Type{Kind: KindBytes}
	Timestamp  = Type{Kind: KindTimestamp}
	Datetime   = Type{Kind: KindDatetime}
	Date       = Type{Kind: KindDate}
	Interval   = Type{Kind: KindInterval}
	Numeric    = Type{Kind: KindNumeric}
	BigNumeric = Type{Kind: KindBigNumeric}
	Time       = Type{Kind: KindTime}
	JSON       = Type{Kind: KindJSON}
)

// RangeOf returns the type RANGE<elem>.
func RangeOf(elem Type) Type { e := elem; return Type{Kind: KindRange, Elem: &e} }

// ArrayOf returns the type ARRAY<elem>.
func ArrayOf(elem Type) Type { e := elem; return Type{Kind: KindArray, Elem: &e} }

// StructOf returns the type STRUCT<fields…>.
func StructOf(fields ...Field) Type { return Type{Kind: KindStruct, Fields: fields} }

// FieldIndex returns the index of the field named name (case-insensitive, as
// BigQuery resolves field names), or -1.
func (t Type) FieldIndex(name string) int {
	for i, f := range t.Fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// Has reports whether t is of kind k or holds one (as an element or field).
func (t Type) Has(k Kind) bool {
	switch {
	case t.Kind == k:
		return true
	case t.Kind == KindArray:
		return t.Elem.Has(k)
	case t.Kind == KindStruct:
		for _, f := range t.Fields {
			if f.Type.Has(k) {
				return true
			}
		}
	}
	return false
}

// Orderable reports whether values of t can be sorted and compared with <:
// every type but STRUCT and JSON, and ARRAY of an orderable type (GoogleSQL's
// "Orderable data types").
func (t Type) Orderable() bool {
	switch t.Kind {
	case KindStruct, KindJSON:
		return false
	case KindArray:
		return t.Elem.Orderable()
	}
	return true
}

// IsNumeric reports whether t is INT64 or FLOAT64.
func (t Type) IsNumeric() bool { return t.Kind == KindInt64 || t.Kind == KindFloat64 }

// Equal reports whether two types are identical.
func (t Type) Equal(u Type) bool {
	if t.Kind != u.Kind {
		return false
	}
	switch t.Kind {
	case KindArray, KindRange:
		return t.Elem.Equal(*u.Elem)
	case KindStruct:
		if len(t.Fields) != len(u.Fields) {
			return false
		}
		for i := range t.Fields {
			if t.Fields[i].Name != u.Fields[i].Name || !t.Fields[i].Type.Equal(u.Fields[i].Type) {
				return false
			}
		}
	}
	return true
}

func (t Type) String() string { return t.name(Kind.String) }

// ZetaSQLName is the type's name as ZetaSQL's TYPEOF writes it: DOUBLE for
// FLOAT64, an untyped NULL as INT64.
func (t Type) ZetaSQLName() string {
	return t.name(func(k Kind) string {
		switch k {
		case KindFloat64:
			return "DOUBLE"
		case KindNull:
			return "INT64"
		}
		return k.String()
	})
}

// name writes t with scalar kinds named by kind; an anonymous STRUCT field
// is its type alone.
func (t Type) name(kind func(Kind) string) string {
	switch t.Kind {
	case KindArray:
		return "ARRAY<" + t.Elem.name(kind) + ">"
	case KindRange:
		return "RANGE<" + t.Elem.name(kind) + ">"
	case KindStruct:
		var b strings.Builder
		b.WriteString("STRUCT<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			if f.Name != "" {
				b.WriteString(f.Name + " ")
			}
			b.WriteString(f.Type.name(kind))
		}
		b.WriteByte('>')
		return b.String()
	}
	return kind(t.Kind)
}

// ParseTypeName maps a type name of the dialect (as written in CAST) to a
// scalar Type. It reports false for names it does not know.
func ParseTypeName(name string) (Type, bool) {
	switch strings.ToUpper(name) {
	case "INT64", "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "BYTEINT":
		return Int64, true
	case "FLOAT64", "FLOAT", "DOUBLE":
		return Float64, true
	case "BOOL", "BOOLEAN":
		return Bool, true
	case "STRING":
		return String, true
	case "BYTES":
		return Bytes, true
	case "TIMESTAMP":
		return Timestamp, true
	case "DATETIME":
		return Datetime, true
	case "DATE":
		return Date, true
	case "TIME":
		return Time, true
	case "JSON":
		return JSON, true
	case "INTERVAL":
		return Interval, true
	case "NUMERIC", "DECIMAL":
		return Numeric, true
	case "BIGNUMERIC", "BIGDECIMAL":
		return BigNumeric, true
	}
	return Type{}, false
}

// Supertype returns the type both a and b coerce to, following BigQuery:
// NULL coerces to anything, INT64 widens to FLOAT64, DATE to DATETIME, and a
// STRING literal or
// parameter coerces to a time type (the caller decides whether a side is a
// literal; here STRING with a time kind yields the time kind). ok is false when
// the two have no common type.
func Supertype(a, b Type) (t Type, ok bool) {
	switch {
	case a.Kind == KindNull:
		return b, true
	case b.Kind == KindNull:
		return a, true
	case a.Equal(b):
		return a, true
	case numberRank(a) > 0 && numberRank(b) > 0:
		// INT64 → NUMERIC → BIGNUMERIC → FLOAT64: the wider of the two.
		if numberRank(a) > numberRank(b) {
			return a, true
		}
		return b, true
	case a.Kind == KindDate && b.Kind == KindDatetime, a.Kind == KindDatetime && b.Kind == KindDate:
		return Datetime, true // a DATE coerces to DATETIME (its midnight)
	case a.Kind == KindString && isTimeKind(b.Kind):
		return b, true
	case b.Kind == KindString && isTimeKind(a.Kind):
		return a, true
	case a.Kind == KindArray && b.Kind == KindArray:
		e, ok := Supertype(*a.Elem, *b.Elem)
		return ArrayOf(e), ok
	case a.Kind == KindStruct && b.Kind == KindStruct && len(a.Fields) == len(b.Fields):
		// Field by field, by position; the names are the first's (the
		// second's where the first has none).
		fields := make([]Field, len(a.Fields))
		for i, f := range a.Fields {
			t, ok := Supertype(f.Type, b.Fields[i].Type)
			if !ok {
				return Type{}, false
			}
			fields[i] = Field{Name: f.Name, Type: t}
			if f.Name == "" {
				fields[i].Name = b.Fields[i].Name
			}
		}
		return StructOf(fields...), true
	}
	return Type{}, false
}

// OnlyNullsDiffer reports whether from is to but for parts of from that are
// untyped NULL (STRUCT<NULL, BOOL> and STRUCT<INT64, BOOL>): a value of from
// holds only NULLs there, so it converts to to without changing.
func OnlyNullsDiffer(from, to Type) bool {
	switch {
	case from.Kind == KindNull || from.Equal(to):
		return true
	case from.Kind == KindArray && to.Kind == KindArray:
		return OnlyNullsDiffer(*from.Elem, *to.Elem)
	case from.Kind == KindStruct && to.Kind == KindStruct && len(from.Fields) == len(to.Fields):
		for i, f := range from.Fields {
			if !OnlyNullsDiffer(f.Type, to.Fields[i].Type) {
				return false
			}
		}
		return true
	}
	return false
}

func isTimeKind(k Kind) bool {
	return k == KindTimestamp || k == KindDatetime || k == KindDate || k == KindTime
}

// IsTime reports whether t is TIMESTAMP, DATETIME, DATE or TIME.
func (t Type) IsTime() bool { return isTimeKind(t.Kind) }

// numberRank orders the number types by which coerces to which: INT64 to
// NUMERIC to BIGNUMERIC to FLOAT64; 0 for the other types.
func numberRank(t Type) int {
	switch t.Kind {
	case KindInt64:
		return 1
	case KindNumeric:
		return 2
	case KindBigNumeric:
		return 3
	case KindFloat64:
		return 4
	}
	return 0
}

// CoercesTo reports whether a number type coerces implicitly to another
// (INT64 to NUMERIC, BIGNUMERIC and FLOAT64; NUMERIC to BIGNUMERIC and
// FLOAT64; BIGNUMERIC to FLOAT64).
func CoercesTo(from, to Type) bool {
	return numberRank(from) > 0 && numberRank(to) > numberRank(from)
}
