package exec

import (
	"context"
	"runtime"

	"logq/logstore"
	"logq/planner"
	"logq/types"
)

// Parallel aggregation: when an Aggregate reads a scan through filters and
// projections only, each worker runs that whole pipeline over its share of the
// segments into its own partial aggregate, and the partials are merged. Every
// aggregate state is mergeable (counts add, extremes compare, quantile value
// lists concatenate, t-digests merge).

// linearScan returns the scan under a chain of Filter and Project nodes.
func linearScan(n planner.Node) (*planner.Scan, bool) {
	for {
		switch x := n.(type) {
		case *planner.Filter:
			n = x.In
		case *planner.Project:
			n = x.In
		case *planner.Scan:
			return x, true
		default:
			return nil, false
		}
	}
}

// buildChain builds the Filter/Project chain above a given scan operator.
func buildChain(n planner.Node, scan Operator, ev *evaluator) Operator {
	switch x := n.(type) {
	case *planner.Filter:
		return &filterOp{in: buildChain(x.In, scan, ev), cond: x.Cond, ev: ev}
	case *planner.Project:
		return &projectOp{in: buildChain(x.In, scan, ev), exprs: x.Exprs, ev: ev}
	}
	return scan
}

// parallelAgg is an Aggregate computed by several workers and merged.
type parallelAgg struct {
	plan    *planner.Aggregate
	parts   []*aggOp
	final   *aggOp
	done    bool
	workers int
}

func newParallelAgg(p *planner.Aggregate, snap logstore.Snapshot, ev *evaluator) Operator {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || len(snap.Segments) < minParallelSegments {
		return nil
	}
	pa := &parallelAgg{plan: p, workers: workers}
	scanPlan, _ := linearScan(p.In)
	for w := 0; w < workers; w++ {
		wev := newEvaluator()
		wev.mem = ev.mem
		scan := newScan(scanPlan, snap, wev)
		scan.visit = share(len(snap.Segments), w, workers)
		chain := buildChain(p.In, scan, wev)
		pa.parts = append(pa.parts, newAggOp(chain, p, wev))
	}
	pa.final = newAggOp(nil, p, ev)
	return pa
}

func (pa *parallelAgg) Close() {
	for _, p := range pa.parts {
		p.Close()
	}
}

func (pa *parallelAgg) Next(ctx context.Context) (*Batch, error) {
	if !pa.done {
		pa.done = true
		if err := onAll(len(pa.parts), func(i int) error { return pa.parts[i].accumulate(ctx) }); err != nil {
			return nil, err
		}
		for _, p := range pa.parts {
			pa.final.merge(p)
			p.release()
			if err := pa.final.failed(); err != nil {
				return nil, err
			}
		}
		pa.final.finish()
		pa.final.done = true
	}
	return pa.final.Next(ctx)
}

// merge adds the groups and states of another partial aggregate.
func (o *aggOp) merge(src *aggOp) {
	if src.n == 0 {
		return
	}
	idx := make([]int32, src.n)
	for i := range idx {
		idx[i] = int32(i)
	}
	var keys *Batch
	if len(o.plan.Keys) > 0 {
		keys = src.keys.batch(idx)
	}
	var target, newRows []int32
	if keys == nil {
		target = make([]int32, src.n)
		o.n = 1
	} else {
		target, newRows = o.groups.assign(keys.Cols, src.n, nil, nil)
		o.n = o.groups.n
	}
	if len(newRows) > 0 {
		o.keys.appendRows(keys, newRows)
	}
	for ai, s := range o.states {
		s.grow(o.n)
		s.merge(target, src.states[ai])
	}
}

func (s *countState) merge(target []int32, other aggState) {
	o := other.(*countState)
	for g, t := range target {
		s.c[t] += o.c[g]
	}
}

func (s *distinctState) merge(target []int32, other aggState) {
	o := other.(*distinctState)
	added := 0
	for g, t := range target {
		for k := range o.sets[g] {
			if !s.sets[t][k] {
				s.sets[t][k] = true
				added++
			}
		}
		o.sets[g] = nil // merged: the partial's copy can go
	}
	s.charge(added)
	o.mem.release(o.held, 1)
	o.held = 0
}

func (s *sumState) merge(target []int32, other aggState) {
	o := other.(*sumState)
	for g, t := range target {
		if s.float {
			s.f[t] += o.f[g]
			s.c[t] += o.c[g]
			continue
		}
		sum := s.i[t] + o.i[g]
		wrapped := (o.i[g] > 0 && sum < s.i[t]) || (o.i[g] < 0 && sum > s.i[t])
		if (wrapped || o.overflow[g]) && !s.overflow[t] {
			s.f[t] = float64(s.i[t])
			s.overflow[t] = true
		}
		if s.overflow[t] {
			if o.overflow[g] {
				s.f[t] += o.f[g]
			} else {
				s.f[t] += float64(o.i[g])
			}
		}
		s.i[t] = sum
		s.c[t] += o.c[g]
	}
}

func (s *extremeState) merge(target []int32, other aggState) {
	o := other.(*extremeState)
	if s.intLike() {
		for g, t := range target {
			if o.set[g] && (!s.set[t] || (s.fn == "min" && o.ints[g] < s.ints[t]) || (s.fn == "max" && o.ints[g] > s.ints[t])) {
				s.ints[t], s.set[t] = o.ints[g], true
			}
		}
		return
	}
	for g, t := range target {
		if !o.set[g] {
			continue
		}
		if !s.set[t] {
			s.v[t], s.set[t] = o.v[g], true
			continue
		}
		if s.fn == "any_value" {
			continue
		}
		c, _ := types.Compare(o.v[g], s.v[t])
		if (s.fn == "min" && c < 0) || (s.fn == "max" && c > 0) {
			s.v[t] = o.v[g]
		}
	}
}

func (s *logicalState) merge(target []int32, other aggState) {
	o := other.(*logicalState)
	for g, t := range target {
		if !o.set[g] {
			continue
		}
		switch {
		case !s.set[t]:
			s.val[t], s.set[t] = o.val[g], true
		case s.and:
			s.val[t] = s.val[t] && o.val[g]
		default:
			s.val[t] = s.val[t] || o.val[g]
		}
	}
}

func (s *quantAgg) merge(target []int32, other aggState) {
	o := other.(*quantAgg)
	for g, t := range target {
		s.q[t].merge(&o.q[g])
	}
}

// merge adds another group's values: exact lists concatenate (turning into a
// t-digest past the exact limit), digests merge centroid by centroid.
func (q *quantileState) merge(o *quantileState) {
	if q.digest == nil && len(q.vals) == 0 && o.digest == nil {
		q.vals, o.vals = o.vals, nil // adopt the list rather than copy it
		return
	}
	if o.digest == nil {
		for _, v := range o.vals {
			q.add(v)
		}
		return
	}
	if q.digest == nil {
		q.digest = newTDigest(200)
		for _, v := range q.vals {
			q.digest.add(v)
		}
		q.vals = nil
	}
	q.digest.mergeFrom(o.digest)
}
