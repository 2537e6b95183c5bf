package clickhouse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"logq/event"
	"logq/exec"
	"logq/planner"
	"logq/types"
)

// Queries: a query's view runs on one server, picked in turn; it reads each
// source's columns from that server once, on first use (its schema is what
// the query binds against), and answers
// plan nodes: the largest subtree it can translate to ClickHouse SQL
// (translate.go) runs there, its rows streamed back and decoded into exec's
// vectors; exec runs the rest over them.

// View returns what one query reads.
func (e *Engine) View() exec.View {
	return &view{e: e, srv: e.server(), tables: map[string]*snapshot{}}
}

type view struct {
	e      *Engine
	srv    *client // every query of the view goes to this server
	tables map[string]*snapshot
	err    error // reading a schema failed: Build answers with it
}

// snapshot is one source as a query reads it.
type snapshot struct {
	name   string
	lay    *layout
	schema *event.Schema
}

func (v *view) snapshot(name string) *snapshot {
	if s := v.tables[name]; s != nil {
		return s
	}
	lay, err := v.e.queryLayout(context.Background(), v.srv, name)
	if err != nil {
		if v.err == nil {
			v.err = unavailable(err)
		}
		lay = newLayout()
	}
	s := &snapshot{name: name, lay: lay, schema: lay.tree(0).Schema()}
	v.tables[name] = s
	return s
}

func (v *view) Table(name string) planner.TableSchema {
	return exec.SchemaTable{Schema: v.snapshot(name).schema}
}

// Build answers what ClickHouse can compute of n, and every scan.
func (v *view) Build(n planner.Node, env *exec.Env) (exec.Operator, error) {
	if v.err != nil {
		return nil, v.err
	}
	if q, ok := v.translate(n); ok {
		return v.remote(q), nil
	}
	if s, ok := n.(*planner.Scan); ok {
		return v.scan(s, env)
	}
	return nil, nil
}

// unavailable wraps a failure to reach ClickHouse as the query's error.
func unavailable(err error) error {
	return &exec.Error{Kind: exec.KindUnavailable, Msg: "the ClickHouse servers could not answer; retry later", Err: err}
}

// settings are the ClickHouse settings of a query: read-only, bounded by
// the server's time and memory limits.
func (v *view) settings() map[string]string {
	s := map[string]string{"readonly": "2"}
	if t := v.e.cfg.QueryTimeout; t > 0 {
		s["max_execution_time"] = strconv.Itoa(max(1, int(t.Seconds())))
	}
	if m := v.e.cfg.QueryMemory; m > 0 {
		s["max_memory_usage"] = strconv.FormatInt(m, 10)
	}
	return s
}

// scan answers a Scan node: its time range, equalities, presence checks and
// fields read in ClickHouse, its filter in exec (when the whole scan could
// not be translated, filter included).
func (v *view) scan(p *planner.Scan, env *exec.Env) (exec.Operator, error) {
	r, goEq, _ := v.scanRel(p, false)
	q, _ := r.query()
	if len(goEq) > 0 {
		q.keep = func(b *exec.Batch) (*exec.Batch, error) { return keepEq(b, goEq), nil }
	}
	q.none = len(v.snapshot(p.Source).lay.order) == 0 // no table: a source nobody wrote to reads as empty
	op := v.remote(q)
	if p.Filter != nil {
		return env.Filter(op, p.Filter), nil
	}
	return op, nil
}

// remote runs a translated query and streams its rows as batches.
func (v *view) remote(q *remoteQuery) exec.Operator {
	return &remoteOp{v: v, q: q}
}

// remoteOp streams a query's TabSeparated rows into batches of its
// columns' types.
type remoteOp struct {
	v    *view
	q    *remoteQuery
	body io.ReadCloser
	rd   *tsvReader
	done bool
}

func (o *remoteOp) Close() {
	if o.body != nil {
		o.body.Close()
		o.body = nil
	}
}

func (o *remoteOp) Next(ctx context.Context) (*exec.Batch, error) {
	if o.done || o.q.none {
		return nil, nil
	}
	if o.body == nil {
		o.v.e.cfg.Logger.Debug("clickhouse query", "sql", o.q.sql)
		body, err := o.v.srv.do(ctx, o.q.sql+" FORMAT TabSeparated", nil, o.v.settings())
		if err != nil {
			o.v.e.cfg.Logger.Debug("clickhouse query failed", "sql", o.q.sql, "err", err)
			return nil, queryError(ctx, err)
		}
		o.body, o.rd = body, newTSVReader(body)
	}
	var rows [][][]byte
	for len(rows) < exec.BatchSize {
		fields, err := o.rd.row()
		if err != nil {
			return nil, queryError(ctx, err)
		}
		if fields == nil {
			o.done = true
			break
		}
		if len(fields) != o.q.width {
			// An exception after the answer began comes as its text.
			if m := codeRE.FindSubmatch(fields[0]); m != nil {
				code, _ := strconv.Atoi(string(m[1]))
				return nil, queryError(ctx, &Error{Code: code, Message: string(bytes.Join(fields, []byte("\t"))), Status: http.StatusOK})
			}
			return nil, &exec.Error{Kind: exec.KindInternal, Msg: fmt.Sprintf("clickhouse: a row of %d fields, want %d", len(fields), o.q.width)}
		}
		cp := make([][]byte, len(fields))
		for i, f := range fields {
			if f != nil {
				cp[i] = append([]byte{}, f...)
			}
		}
		rows = append(rows, cp)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	o.v.e.rowsMoved.Add(int64(len(rows)))
	b := &exec.Batch{N: len(rows)}
	for _, c := range o.q.cols {
		vec := exec.NewVector(c.t, len(rows))
		for r, fields := range rows {
			x, err := c.read(fields)
			if err != nil {
				return nil, &exec.Error{Kind: exec.KindInternal, Msg: "clickhouse: " + err.Error(), Err: err}
			}
			vec.Set(r, x, len(rows))
		}
		b.Cols = append(b.Cols, vec)
	}
	if o.q.keep != nil {
		return o.q.keep(b)
	}
	return b, nil
}

// queryError classifies a failed query as exec errors are: the servers
// out of reach or overloaded, 503; past a limit, the limit's error; any
// other refusal is of a query logq wrote, logq's bug: an internal error
// whose message is logq's (ClickHouse's text is kept for the log).
func queryError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ce *Error
	if !errors.As(err, &ce) {
		return unavailable(err)
	}
	switch ce.Code {
	case codeTimeout:
		return &exec.Error{Kind: exec.KindDeadline, Msg: "the query ran past its time limit", Err: err}
	case codeMemoryLimit, codeResultTooLarge:
		return &exec.Error{Kind: exec.KindResources, Msg: "the query went past its memory budget on the ClickHouse servers", Err: err}
	case codeAllConnectFailed, codeNetwork, codeSocketTimeout, codeTooManyQueries, codeUnknownTable, codeUnknownDatabase, 0:
		return unavailable(err)
	}
	if ce.Code == codeDecimalOverflow {
		// the only Decimal logq writes is the exact INT64 SUM (translate_agg.go)
		return &exec.Error{Kind: exec.KindEvaluation, Msg: "integer overflow: SUM is outside INT64", Err: err}
	}
	if ce.Code == codeThrowIf {
		// the only throwIf logq writes guards FLOAT64 SUM and AVG (translate_agg.go)
		// (the local engine's message; over ClickHouse a partial sum past
		// FLOAT64 raises it too, as docs/clickhouse.md says)
		return &exec.Error{Kind: exec.KindEvaluation, Msg: "floating point overflow: SUM is outside FLOAT64", Err: err}
	}
	return &exec.Error{Kind: exec.KindInternal, Msg: "internal error: ClickHouse refused a query logq wrote", Err: err}
}

// remoteQuery is SQL for ClickHouse and how to read its rows.
type remoteQuery struct {
	sql   string
	none  bool // known to have no rows: nothing is asked
	width int  // fields per row
	cols  []outCol
	// keep, when set, filters a decoded batch (what the SQL could not).
	keep func(*exec.Batch) (*exec.Batch, error)
}

// outCol reads one output column of logq's from a row's fields.
type outCol struct {
	t    types.Type
	read func(fields [][]byte) (types.Value, error)
}

// stringColumn is the one column of a STRING field (a fixed column, or a
// field that only ever held strings), which equalities compare directly.
func stringColumn(snap *snapshot, path string) (string, bool) {
	if k, ok := fixedColumns[path]; ok && k == types.KindString {
		return path, true
	}
	codes := snap.lay.codes[path]
	if len(codes) == 1 && codes[0] == codeString {
		return columnName(path, codeString), true
	}
	return "", false
}

// keepEq keeps the rows whose fields equal the predicates' values.
func keepEq(b *exec.Batch, eqs []planner.EqPred) *exec.Batch {
	var keep []int
	for r := 0; r < b.N; r++ {
		ok := true
		for _, eq := range eqs {
			x := b.Cols[eq.Field].Value(r)
			if x.Null || x.S != eq.Value {
				ok = false
			}
		}
		if ok {
			keep = append(keep, r)
		}
	}
	out := &exec.Batch{N: len(keep)}
	for _, c := range b.Cols {
		v := exec.NewVector(c.T, len(keep))
		for k, r := range keep {
			v.Set(k, c.Value(r), len(keep))
		}
		out.Cols = append(out.Cols, v)
	}
	return out
}

// valueReader reads a field's value as the schema types it: a scalar from
// the column of whichever kind its row holds, converted to the field's kind
// now; an object from its presence and its children; an array from its
// JSON text.
func valueReader(snap *snapshot, f *event.Field, need func(string) int) func([][]byte) (types.Value, error) {
	if k, ok := fixedColumns[f.Path]; ok {
		i := need(f.Path)
		return func(fs [][]byte) (types.Value, error) { return decodeScalar(fs[i], k, f.Type) }
	}
	if f.Object {
		pi := need(columnName(f.Path, codeObject))
		var children []func([][]byte) (types.Value, error)
		for _, c := range f.Children {
			children = append(children, valueReader(snap, c, need))
		}
		st := *f.Type.Elem
		return func(fs [][]byte) (types.Value, error) {
			if string(fs[pi]) != "1" {
				return types.NullOf(f.Type), nil
			}
			vals := make([]types.Value, len(children))
			for i, c := range children {
				v, err := c(fs)
				if err != nil {
					return types.Value{}, err
				}
				vals[i] = v
			}
			return types.ArrayValue(st, []types.Value{types.StructValue(st, vals)}), nil
		}
	}
	type phys struct {
		at   int
		kind types.Kind
	}
	var cols []phys
	for _, code := range snap.lay.codes[f.Path] {
		if code == codeObject {
			continue
		}
		cols = append(cols, phys{need(columnName(f.Path, code)), codeKind(code)})
	}
	return func(fs [][]byte) (types.Value, error) {
		for _, c := range cols {
			if fs[c.at] != nil {
				return decodeScalar(fs[c.at], c.kind, f.Type)
			}
		}
		return types.NullOf(f.Type), nil
	}
}

// decodeScalar reads a column's text, stored as kind, as a value of type
// want (a widened field's: event.Widened).
func decodeScalar(b []byte, kind types.Kind, want types.Type) (types.Value, error) {
	if b == nil {
		return types.NullOf(want), nil
	}
	var v types.Value
	switch kind {
	case types.KindInt64, types.KindTimestamp:
		i, err := parseInt(b)
		if err != nil {
			return v, err
		}
		v = types.Value{T: types.Type{Kind: kind}, I: i}
	case types.KindBool:
		v = types.BoolValue(string(b) == "1")
	case types.KindFloat64:
		f, err := parseFloat(b)
		if err != nil {
			return v, err
		}
		v = types.FloatValue(f)
	case types.KindArray:
		a, err := event.DecodeArray(b)
		if err != nil {
			return v, err
		}
		v = a
	default:
		v = types.StringValue(string(b))
	}
	return event.Widened(v, want), nil
}
