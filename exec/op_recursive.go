package exec

import (
	"context"
	"fmt"

	"logq/planner"
	"logq/types"
)

// recursiveOp runs a recursive CTE (planner.RecursiveUnion): it passes the
// base's rows on and keeps them, then runs the step over the rows kept from
// the run before (its WorkTable reads them), passing each run's rows on,
// until a run makes no row. A fresh step operator is built for each run;
// the rows kept are charged to the query's memory budget.
type recursiveOp struct {
	plan     *planner.RecursiveUnion
	env      *Env
	in       Operator  // the base, then the current run's step
	cur      *rowStore // what this run has made so far
	runs     int       // step runs started
	seen     *grouper  // UNION DISTINCT: every row made so far, a group each
	g, fresh []int32   // its scratch
}

func newRecursiveOp(x *planner.RecursiveUnion, env *Env) (Operator, error) {
	base, err := build(x.Base, env)
	if err != nil {
		return nil, err
	}
	return &recursiveOp{plan: x, env: env, in: base, cur: newStoreOf(x.Cols)}, nil
}

// newStoreOf is an empty row store for rows of cols.
func newStoreOf(cols []planner.Column) *rowStore {
	ts := make([]types.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.T
	}
	return newRowStore(ts)
}

func (o *recursiveOp) Close() {
	if o.in != nil {
		o.in.Close()
	}
}

func (o *recursiveOp) Next(ctx context.Context) (*Batch, error) {
	for {
		if o.in != nil {
			b, err := o.in.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b != nil {
				if o.plan.Distinct {
					b = o.unseen(b)
				}
				if b.N == 0 {
					continue
				}
				if err := o.env.ev.mem.charge("a recursive CTE", b.N, len(b.Cols)); err != nil {
					return nil, err
				}
				o.cur.appendRows(b, seq(b.N))
				return b, nil
			}
			o.in.Close()
			o.in = nil
		}
		// A run has ended: the next one reads what it made. The step runs
		// at least once, over no row when the base made none: a step may
		// make rows without reading the CTE (ZetaSQL's reference
		// implementation runs it so).
		if o.cur.n == 0 && o.runs > 0 {
			return nil, nil
		}
		if o.runs == planner.MaxRecursion {
			return nil, &Error{Kind: KindEvaluation, Msg: fmt.Sprintf("recursive CTE %s did not end after %d steps", o.plan.Work.Name, planner.MaxRecursion)}
		}
		o.runs++
		if o.env.work == nil {
			o.env.work = map[*planner.WorkTable]*rowStore{}
		}
		o.env.work[o.plan.Work] = o.cur
		o.cur = newStoreOf(o.plan.Cols)
		step, err := build(o.plan.Step, o.env)
		if err != nil {
			return nil, err
		}
		o.in = step
	}
}

// unseen keeps the rows of b not made before, and remembers them.
// The rows made are numbered as GROUP BY numbers its groups (grouper): a
// row that opens a new group is new.
func (o *recursiveOp) unseen(b *Batch) *Batch {
	if o.seen == nil {
		o.seen = newGrouper()
	}
	o.g, o.fresh = o.seen.assign(b.Cols, b.N, o.g[:0], o.fresh[:0])
	if len(o.fresh) == b.N {
		return b
	}
	return b.take(o.fresh)
}

// workTableOp reads the rows of the run before of a recursive CTE, in
// batches of at most workBatch rows.
type workTableOp struct {
	plan *planner.WorkTable
	env  *Env
	rows *rowStore
	at   int
}

const workBatch = 1024

func (o *workTableOp) Close() {}

func (o *workTableOp) Next(context.Context) (*Batch, error) {
	if o.rows == nil {
		o.rows = o.env.work[o.plan]
		if o.rows == nil {
			return nil, &Error{Kind: KindInternal, Msg: "work table " + o.plan.Name + " read outside its recursion"}
		}
	}
	if o.at >= o.rows.n {
		return nil, nil
	}
	end := min(o.at+workBatch, o.rows.n)
	idx := make([]int32, 0, end-o.at)
	for i := o.at; i < end; i++ {
		idx = append(idx, int32(i))
	}
	o.at = end
	return o.rows.batch(idx), nil
}
