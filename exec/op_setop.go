package exec

import (
	"context"

	"logq/planner"
)

// setOp is INTERSECT or EXCEPT. It reads the right input into a set of row
// keys, then streams the left input. DISTINCT emits each distinct left row
// once, in order of first appearance, when it is (INTERSECT) or is not
// (EXCEPT) in that set. ALL counts the right rows instead: a left row meeting
// a count left uses one up, and is emitted (INTERSECT) or dropped (EXCEPT).
// Row keys encode NULL as a value of its own, so NULLs compare equal, as
// BigQuery's set operations require. What is kept (the right rows, the left
// rows seen) is charged to the query's memory budget.
type setOp struct {
	left, right Operator
	plan        *planner.SetOp
	ev          *evaluator
	built       bool
	rightKeys   map[string]struct{}
	seen        map[string]struct{}
	counts      map[string]int // ALL: the right rows not used up yet
	name        string         // INTERSECT ALL, …: for the memory budget's errors
}

func (o *setOp) Close() { o.left.Close(); o.right.Close() }

// rowKeys encodes every row of b: all columns, NULLs included.
func rowKeys(b *Batch) []string {
	out := make([]string, b.N)
	var buf []byte
	for r := 0; r < b.N; r++ {
		buf = buf[:0]
		for _, v := range b.Cols {
			buf = appendKey(buf, v.Value(r))
		}
		out[r] = string(buf)
	}
	return out
}

func (o *setOp) build(ctx context.Context) error {
	o.rightKeys, o.seen, o.counts = map[string]struct{}{}, map[string]struct{}{}, map[string]int{}
	o.name = o.plan.Name()
	for {
		b, err := o.right.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		added := 0
		for _, k := range rowKeys(b) {
			if o.plan.All {
				o.counts[k]++
				added++
			} else if _, ok := o.rightKeys[k]; !ok {
				o.rightKeys[k] = struct{}{}
				added++
			}
		}
		if err := o.ev.mem.charge(o.name, added, len(b.Cols)); err != nil {
			return err
		}
	}
	o.built = true
	return nil
}

func (o *setOp) Next(ctx context.Context) (*Batch, error) {
	if !o.built {
		if err := o.build(ctx); err != nil {
			return nil, err
		}
	}
	want := o.plan.Kind == planner.SetIntersect
	for {
		b, err := o.left.Next(ctx)
		if b == nil || err != nil {
			return nil, err
		}
		var keep []int32
		added := 0
		for r, k := range rowKeys(b) {
			if o.plan.All {
				if n := o.counts[k]; n > 0 {
					o.counts[k] = n - 1
					if want {
						keep = append(keep, int32(r))
					}
				} else if !want {
					keep = append(keep, int32(r))
				}
				continue
			}
			if _, dup := o.seen[k]; dup {
				continue
			}
			o.seen[k] = struct{}{}
			added++
			if _, in := o.rightKeys[k]; in == want {
				keep = append(keep, int32(r))
			}
		}
		if err := o.ev.mem.charge(o.name, added, len(b.Cols)); err != nil {
			return nil, err
		}
		if len(keep) == 0 {
			continue
		}
		return b.take(keep), nil
	}
}
