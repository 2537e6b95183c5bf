package planner

import (
	"reflect"
	"strconv"
	"strings"

	"logq/expr"
	"logq/types"
)

// rvKind says what a FROM item's alias stands for.
type rvKind uint8

const (
	rvScan  rvKind = iota // a log source: fields are added as they are referenced
	rvPath                // UNNEST of a stored object: a path prefix in a scan
	rvPlan                // a subquery or CTE with fixed columns
	rvConst               // a single-row constant subquery or CTE: inlined
	rvElem                // the element (or offset) column of a real UNNEST
	rvView                // a CTE merged into the query reading it: some columns of a scan (bind_view.go)
)

// rangeVar is one name a FROM clause brings into scope.
type rangeVar struct {
	alias  string // lower-case; "" when the item has none
	kind   rvKind
	scan   *Scan // rvScan, rvPath
	table  TableSchema
	prefix string      // rvPath: field path of the object
	cols   []Column    // rvPlan, rvElem
	consts []expr.Expr // rvConst
	offset int         // first column in the FROM row, fixed by layout
	scanRV *rangeVar   // rvPath, rvView: the scan the path belongs to
	view   []string    // rvView: the CTE's column names, in order
	value  bool        // rvPlan, rvConst: a value table, SELECT AS VALUE (bind_from.go valueItem)
	// open: an rvPlan whose SELECT * read sources while a query is checked
	// without their schemas (Check): its columns are not all known, and a
	// name it lacks is NULL there, as a source's unknown field is.
	open bool
}

// sym is a column of a range variable before the FROM row's layout is fixed.
type sym struct {
	rv  *rangeVar
	idx int
	T   types.Type
	nm  string
}

func (s *sym) Type() types.Type                   { return s.T }
func (s *sym) Children() []expr.Expr              { return nil }
func (s *sym) WithChildren([]expr.Expr) expr.Expr { return s }

// String names the column and its range variable uniquely: the binder
// compares expressions by their strings (group keys, shared aggregates), so
// it is built without fmt.
func (s *sym) String() string {
	b := make([]byte, 0, len(s.nm)+24)
	b = append(append(b, s.nm...), "@0x"...)
	b = strconv.AppendUint(b, uint64(reflect.ValueOf(s.rv).Pointer()), 16)
	b = strconv.AppendInt(append(b, '.'), int64(s.idx), 10)
	return string(b)
}

// scope is the set of range variables visible to expressions of a SELECT.
type scope struct {
	vars []*rangeVar
	// inner is the first of vars that a parenthesized join being bound
	// added (0 outside one): inside it only its own FROM items are visible,
	// as in BigQuery (`a JOIN (b JOIN c ON c.x = a.x)` cannot read a).
	inner int
	// innerWhy ends the error for a name outside inner: where, and why.
	innerWhy string
	using    *usingScope // JOIN … USING columns (bind_using.go); nil when none
	env      *cteEnv     // the CTEs visible to subqueries in its expressions
}

// visible returns the range variables a name may resolve to: inside a
// parenthesized join, only its own.
func (s *scope) visible() []*rangeVar { return s.vars[s.inner:] }

// outside reports whether name is, outside the parenthesized join being
// bound, a range variable's alias or (has) one of its columns: a reference
// to it is refused rather than read as a field no event has yet.
func (s *scope) outside(name string, has func(*rangeVar) bool) bool {
	for _, rv := range s.vars[:s.inner] {
		if rv.alias != "" && rv.alias == strings.ToLower(name) || has(rv) {
			return true
		}
	}
	return false
}

func (s *scope) find(alias string) *rangeVar {
	for i := len(s.vars) - 1; i >= s.inner; i-- {
		if s.vars[i].alias != "" && s.vars[i].alias == strings.ToLower(alias) {
			return s.vars[i]
		}
	}
	return nil
}

// scanField returns the sym for a field of a scan, adding it to the scan's
// output on first use.
func scanField(rv *rangeVar, path string, t types.Type, presence bool) *sym {
	for i, f := range rv.scan.Fields {
		if f.Path == path && f.Presence == presence {
			return &sym{rv: rv, idx: i, T: f.T, nm: lastName(path)}
		}
	}
	rv.scan.Fields = append(rv.scan.Fields, ScanField{Path: path, T: t, Presence: presence})
	return &sym{rv: rv, idx: len(rv.scan.Fields) - 1, T: t, nm: lastName(path)}
}

func lastName(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

// fieldOf looks a field up in the source behind a scan's range variable.
func fieldOf(rv *rangeVar, path string) (t types.Type, object, ok bool) {
	return rv.table.Field(path)
}

// fieldsUnknown reports whether a name rv lacks may still be one of its
// columns: a source's field no schema (or no event yet) lists, or an open
// derived table's column.
func (rv *rangeVar) fieldsUnknown() bool { return rv.kind == rvScan || rv.open }

// starUnknown reports whether the columns * gives of rv may be more than a
// schema lists: fieldsUnknown, or a path of a source or a view of one.
func (rv *rangeVar) starUnknown() bool {
	return rv.fieldsUnknown() || rv.kind == rvPath || rv.kind == rvView
}

// unknownColumn is what a name binds to while a query is checked without
// schemas when a column no schema lists may be it: a NULL of no type, which
// every operator and function takes (as a NULL value's field is, field).
func unknownColumn() expr.Expr { return &expr.Const{V: types.NullOf(types.Null)} }

// outerSchemaless reports whether a query enclosing the one being bound
// reads an item whose columns a schema may not list.
func (b *binder) outerSchemaless() bool {
	for _, o := range b.outer {
		if o.schemaless() {
			return true
		}
	}
	return false
}

// schemaless reports whether a FROM item in scope is starUnknown.
func (sc *scope) schemaless() bool {
	for _, rv := range sc.vars {
		if rv.starUnknown() {
			return true
		}
	}
	return false
}
