package exec

import (
	"context"
	"runtime"

	"logq/planner"
)

// A Window that keeps only the first TopN rows of each partition (the
// "newest row per path" shape) and reads a scan through filters and
// projections only is fed by several workers: each runs that pipeline over
// its share of the segments and keeps the first TopN rows of each partition
// it sees; the union of those holds every partition's first TopN rows, and
// the Window computes its calls over the union alone. Rows that tie in the
// window's order may then be numbered in another order than a serial read
// gives, which BigQuery leaves unspecified too.

// newParallelTopN returns the workers' union as the Window's input, or nil
// when one worker would do.
func newParallelTopN(p *planner.Window, snap snapshot, ev *evaluator) Operator {
	scanPlan, ok := linearScan(p.In)
	if !ok || p.TopN <= 0 {
		return nil
	}
	parts := shares(scanPlan, snap, runtime.GOMAXPROCS(0))
	if parts == nil {
		return nil
	}
	u := &gatherOp{}
	_, lazy := scanFields(scanPlan, snap)
	for _, part := range parts {
		wev := newEvaluator()
		wev.mem = ev.mem
		scan := newScan(scanPlan, snap, wev)
		scan.visit = part
		scan.lazy = lazy
		part := newWindowOp(buildChain(p.In, scan, wev), p, wev)
		part.partial = true
		if key, ok := newestFirstWindow(p); ok {
			readNewestFirst(scan, part, key)
		}
		u.parts = append(u.parts, part)
	}
	return u
}

// gatherOp runs each of its inputs to the end on a goroutine of its own and
// then emits their batches, input by input.
type gatherOp struct {
	parts []Operator
	out   []*Batch
	done  bool
}

func (g *gatherOp) Close() {
	for _, p := range g.parts {
		p.Close()
	}
}

func (g *gatherOp) Next(ctx context.Context) (*Batch, error) {
	if !g.done {
		g.done = true
		outs := make([][]*Batch, len(g.parts))
		if err := onAll(len(g.parts), func(i int) error {
			for {
				b, err := g.parts[i].Next(ctx)
				if b == nil || err != nil {
					return err
				}
				outs[i] = append(outs[i], b)
			}
		}); err != nil {
			return nil, err
		}
		for _, o := range outs {
			g.out = append(g.out, o...)
		}
	}
	if len(g.out) == 0 {
		return nil, nil
	}
	b := g.out[0]
	g.out = g.out[1:]
	return b, nil
}
