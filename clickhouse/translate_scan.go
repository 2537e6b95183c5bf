package clickhouse

import (
	"logq/event"
	"logq/planner"
	"logq/types"
)

// scanRel is a Scan as a rel: its fields as columns (schema.go's layout
// read back), its time range (clamped to the retention), presence checks
// and equalities in WHERE, and with withFilter its filter too. An equality
// on a field that has no single expression is returned in goEq, for exec
// to check; a filter that cannot be written makes ok false.
func (v *view) scanRel(p *planner.Scan, withFilter bool) (r *rel, goEq []planner.EqPred, ok bool) {
	snap := v.snapshot(p.Source)
	r = &rel{from: v.e.table(p.Source), local: v.e.local(p.Source)}
	for _, f := range p.Fields {
		r.cols = append(r.cols, fieldCol(snap, f))
	}
	lo, hi := p.TimeLo, p.TimeHi
	if ret := v.e.cfg.Retention; ret > 0 {
		lo = max(lo, v.e.cfg.Now().Add(-ret).UnixMicro())
	}
	if lo > minTime {
		r.where = append(r.where, "`timestamp` >= "+intSQL(lo))
	}
	if hi < maxTime {
		r.where = append(r.where, "`timestamp` <= "+intSQL(hi))
	}
	if p.Empty || lo > hi {
		r.where = append(r.where, "0")
	}
	for i, f := range p.Fields {
		r.cols[i].nonNeg = lo >= 0 && f.Path == "timestamp" && r.cols[i].sql == ident("timestamp")
	}
	for _, path := range p.Present {
		if !snap.lay.cols[columnName(path, codeObject)] {
			r.where = append(r.where, "0")
			continue
		}
		r.where = append(r.where, ident(columnName(path, codeObject))+" = 1")
	}
	for _, eq := range p.Eq {
		if c := r.cols[eq.Field]; c.sql != "" && c.t.Kind == types.KindString {
			r.where = append(r.where, "("+c.sql+" = "+quote(eq.Value)+")")
		} else {
			goEq = append(goEq, eq)
		}
	}
	ok = len(snap.lay.order) > 0 // no table: exec reads the source as empty
	if withFilter && p.Filter != nil {
		cond, fok := chExpr(r.cols, p.Filter, true)
		r.where = append(r.where, cond)
		ok = ok && fok
	}
	return r, goEq, ok
}

const (
	minTime = int64(-1 << 63)
	maxTime = int64(1<<63 - 1)
)

// fieldCol is a scan field as a column: one expression when the field's
// values can be written as one (a column of its kind; an INT64 column read
// as FLOAT64 or STRING beside columns of that kind), else the columns it
// is read from, decoded in Go (objects, arrays, other widenings).
func fieldCol(snap *snapshot, f planner.ScanField) rcol {
	if f.Presence {
		if !snap.lay.cols[columnName(f.Path, codeObject)] {
			return rcol{t: types.Bool, sql: "CAST(NULL AS Nullable(UInt8))"}
		}
		return rcol{t: types.Bool, sql: "multiIf(" + ident(columnName(f.Path, codeObject)) + " = 1, toNullable(toUInt8(1)), CAST(NULL AS Nullable(UInt8)))"}
	}
	field, ok := snap.schema.Lookup(f.Path)
	if !ok || f.T.Kind == types.KindNull {
		s, _ := constSQL(types.NullOf(f.T))
		return rcol{t: f.T, sql: s, read: func([][]byte) (types.Value, error) { return types.NullOf(f.T), nil }}
	}
	if s, ok := scalarSQL(snap, field, f.T); ok {
		return rcol{t: f.T, sql: s}
	}
	var raw []string
	at := map[string]int{}
	need := func(name string) int {
		if i, ok := at[name]; ok {
			return i
		}
		raw = append(raw, ident(name))
		at[name] = len(raw) - 1
		return len(raw) - 1
	}
	read := valueReader(snap, field, need)
	return rcol{t: f.T, raw: raw, read: read}
}

// scalarSQL writes a scalar field's value as one expression, where its
// columns allow it exactly.
func scalarSQL(snap *snapshot, f *event.Field, t types.Type) (string, bool) {
	if k, ok := fixedColumns[f.Path]; ok {
		return ident(f.Path), k == t.Kind
	}
	if f.Object || !encodable(t) {
		return "", false
	}
	var parts []string
	for _, code := range snap.lay.codes[f.Path] {
		col := ident(columnName(f.Path, code))
		switch k := codeKind(code); {
		case code == codeObject:
			continue
		case k == t.Kind:
			parts = append(parts, col)
		case k == types.KindInt64 && t.Kind == types.KindFloat64:
			parts = append(parts, "toFloat64("+col+")") // exact as Go's float64(int64)
		case k == types.KindInt64 && t.Kind == types.KindString:
			parts = append(parts, "toString("+col+")") // strconv.FormatInt's text
		default:
			return "", false
		}
	}
	switch len(parts) {
	case 0:
		return "", false
	case 1:
		return parts[0], true
	}
	// A row holds its value in the column of the kind it was written as.
	s := "coalesce("
	for i, p := range parts {
		if i > 0 {
			s += ", "
		}
		s += p
	}
	return s + ")", true
}
