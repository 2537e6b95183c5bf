package exec

import (
	"context"
	"runtime"

	"logq/planner"
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

// buildChain builds the Filter/Project chain n (linearScan's) above a
// given scan operator: through build, with a view that answers the scan
// with it.
func buildChain(n planner.Node, scan Operator, ev *evaluator) Operator {
	op, _ := build(n, &Env{view: givenScan{scan}, ev: ev}) // a chain over a given scan cannot fail
	return op
}

// givenScan answers the one Scan of a plan with an operator already made.
type givenScan struct{ op Operator }

func (g givenScan) Table(string) planner.TableSchema { return planner.EmptyCatalog{}.Table("") }
func (g givenScan) Build(n planner.Node, _ *Env) (Operator, error) {
	if _, ok := n.(*planner.Scan); ok {
		return g.op, nil
	}
	return nil, nil
}

// parallelAgg is an Aggregate computed by several workers and merged.
type parallelAgg struct {
	plan    *planner.Aggregate
	parts   []*aggOp
	evs     []*evaluator // the workers', given back on Close
	final   *aggOp
	done    bool
	workers int
}

func newParallelAgg(p *planner.Aggregate, snap snapshot, ev *evaluator) Operator {
	scanPlan, _ := linearScan(p.In)
	parts := shares(scanPlan, snap, runtime.GOMAXPROCS(0))
	if parts == nil {
		return nil
	}
	pa := &parallelAgg{plan: p, workers: len(parts)}
	for _, part := range parts {
		wev := newEvaluator()
		wev.mem = ev.mem
		scan := newScan(scanPlan, snap, wev)
		scan.visit = part
		chain := buildChain(p.In, scan, wev)
		pa.parts = append(pa.parts, newAggOp(chain, p, wev))
		pa.evs = append(pa.evs, wev)
	}
	pa.final = newAggOp(nil, p, ev)
	return pa
}

func (pa *parallelAgg) Close() {
	for _, p := range pa.parts {
		p.Close()
	}
	// The workers' partials are merged into final, which holds values,
	// not their vectors.
	for _, wev := range pa.evs {
		wev.release()
	}
	pa.evs = nil
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
		if err := pa.final.finish(); err != nil {
			return nil, err
		}
		pa.final.done = true
	}
	return pa.final.Next(ctx)
}

// merge adds the groups and states of another partial aggregate.
func (o *aggOp) merge(src *aggOp) {
	o.mergeStates(src, o.mergeKeys(src))
}

// mergeKeys adds src's groups that o lacks and returns, for each group of
// src, its group in o (nil when src has none).
func (o *aggOp) mergeKeys(src *aggOp) []int32 {
	if src.n == 0 {
		return nil
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
	return target
}

// mergeStates folds src's states into o's groups target (mergeKeys').
func (o *aggOp) mergeStates(src *aggOp, target []int32) {
	if src.n == 0 {
		return
	}
	for ai, s := range o.states {
		s.grow(o.n)
		s.merge(target, src.states[ai])
	}
}
