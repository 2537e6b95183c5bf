package exec

import (
	"errors"
	"logq/event"
	"logq/expr"
	"logq/logstore"
	"logq/planner"
	"logq/types"
	"sync"
)

// Local is the local log store as a Storage: plans run over snapshots of its
// sources' segments, with the scans and fast paths that know segments
// (parallel scans and aggregates, newest-first top-k, first-rows windows).
func Local(store *logstore.Store) Storage { return localStorage{store} }

type localStorage struct{ store *logstore.Store }

func (l localStorage) View() View {
	return &localView{store: l.store, snaps: map[string]snapshot{}}
}

// plansKept: a source's schema is one event.Schema value until it changes
// (plancache.go).
func (*localView) plansKept() {}

// localView serves one query from one snapshot per source, taken on first
// use, so the query sees one consistent state of each source.
type localView struct {
	store *logstore.Store
	// mu guards snaps: the plans of two per-row subqueries can be built at
	// once, by parallel workers evaluating their outer rows (op_apply.go).
	mu     sync.Mutex
	snaps  map[string]snapshot
	failed readFailure // late reads of every snapshot (lazyField)
}

// snapshot is one source as a query reads it: the store's snapshot, and
// where its late reads report a failure.
type snapshot struct {
	logstore.Snapshot
	failed *readFailure
}

func (v *localView) snapshot(name string) snapshot {
	v.mu.Lock()
	defer v.mu.Unlock()
	s, ok := v.snaps[name]
	if !ok {
		s = snapshot{v.store.Snapshot(name), &v.failed}
		v.snaps[name] = s
	}
	return s
}

// lateErr is the first error met reading a value late, if any.
func (v *localView) lateErr() error { return v.failed.get() }

// Build answers scans, and the shapes over a scan that the store's segments
// make faster: a top-k on the event time read newest segment first, an
// aggregate over a scan chain from the sealed segments' kept partials
// (local_partials.go) or computed by parallel workers, a first-rows window
// over a scan chain by parallel workers, a first-rows window read newest
// first.
func (v *localView) Build(n planner.Node, env *Env) (Operator, error) {
	ev := env.ev
	switch x := n.(type) {
	case *planner.Scan:
		return newParallelScan(x, v.snapshot(x.Source), 0), nil
	case *planner.Sort:
		if sp, ok := x.In.(*planner.Scan); ok && x.Limit >= 0 && newestFirstKey(x, sp) {
			// Newest segments first, serially, stopping once the top-k is full.
			op := &sortOp{plan: x, ev: ev}
			scan := newScan(sp, v.snapshot(sp.Source), ev)
			scan.newestFirst, scan.floor = true, op.timeFloor
			op.in = scan
			return op, nil
		}
	case *planner.Aggregate:
		if sp, ok := linearScan(x.In); ok {
			snap := v.snapshot(sp.Source)
			if op := newPartialsAgg(x, sp, snap, ev); op != nil {
				return op, nil
			}
			if op := newParallelAgg(x, snap, ev); op != nil {
				return op, nil
			}
		}
	case *planner.Window:
		if sp, ok := linearScan(x.In); ok && x.TopN > 0 {
			if in := newParallelTopN(x, v.snapshot(sp.Source), ev); in != nil {
				return newWindowOp(in, x, ev), nil
			}
		}
		if key, ok := newestFirstWindow(x); ok {
			sp := x.In.(*planner.Scan)
			scan := newScan(sp, v.snapshot(sp.Source), ev)
			w := newWindowOp(scan, x, ev)
			readNewestFirst(scan, w, key)
			return w, nil
		}
	}
	return nil, nil
}

func (v *localView) Table(name string) planner.TableSchema {
	return SchemaTable{v.snapshot(name).Schema}
}

// SchemaTable is a source's event.Schema as the planner reads it; every
// engine that keeps its sources' fields in an event.Tree serves it.
type SchemaTable struct{ Schema *event.Schema }

// Field looks a dotted path up.
func (t SchemaTable) Field(path string) (types.Type, bool, bool) {
	if f, ok := t.Schema.Lookup(path); ok {
		return f.Type, f.Object, true
	}
	return planner.EmptyCatalog{}.Table("").Field(path)
}

// Children lists the fields under path in first-seen order.
func (t SchemaTable) Children(path string) []string {
	var fields []*event.Field
	if path == "" {
		fields = t.Schema.Top
	} else if f, ok := t.Schema.Lookup(path); ok {
		fields = f.Children
	}
	if len(fields) == 0 && path == "" {
		return planner.EmptyCatalog{}.Table("").Children("")
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

// newestFirstKey reports whether a sort's first key is the scan's event
// timestamp, descending: then the scan can visit the newest segments first
// and stop once the top-k is full.
func newestFirstKey(s *planner.Sort, scan *planner.Scan) bool {
	k := s.Keys[0]
	c, ok := k.Expr.(*expr.ColRef)
	if !ok || !k.Desc {
		return false
	}
	f := scan.Fields[c.Idx]
	return f.Path == "timestamp" && !f.Presence
}

// classifyLocal is the query error of a failure of the local store (nil for
// any other error): a segment file that cannot be read.
func classifyLocal(err error) *Error {
	var ste *logstore.StorageError
	if errors.As(err, &ste) {
		// The message goes to clients: no server path (Err, which the
		// server logs, has it).
		return &Error{Kind: KindUnavailable, Msg: "a segment file could not be read; it has been moved aside and its events are lost (the server log names it)", Err: err}
	}
	return nil
}
