package exec

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	"logq/logstore"
	"logq/planner"
	"logq/types"
)

// A saved query's aggregate over the last 7 days reads the same sealed
// segments on every call, and all that differs from one call to the next
// is the newest rows and where the window starts. So, as Druid keeps each
// segment's partial result per query, the partial aggregate of each
// segment in the scan's time range is kept across calls, keyed by the
// segment and the aggregate's node in the query's kept plan
// (planner.Aggregate.Kept, set only when nothing under the aggregate but
// the scan's time bounds can change from call to call: no time, subquery
// or volatile call in its keys, arguments, filters or projections). A call
// computes the partials it does not find, one per segment, keeps them,
// and merges them all.
//
// A partial is kept with the bounds it was read within, cut to the rows
// it read: a bound outside their time range is no bound. A segment the
// range covers whole is found again whatever the window; one the window's
// start cuts is found again while the start stays where it is: the
// built-in endpoints start at a whole minute, hour or day (invocation-stats
// over the last hour at 10M events reads ~60k rows, most of them in the
// one sealed segment the hour's start cuts). Each segment keeps one
// partial per aggregate, so a start that moves with every call replaces it
// rather than filling the cache.
//
// The open segment's partial is kept too, over the rows it had: an open
// segment only appends (its first rows stay as they were until it is
// sealed), so a later call reads only the rows that arrived since and
// merges them after the kept partial, as one pass reads them after the
// others. Once those new rows are a quarter of the kept ones, the call
// reads the segment whole again and keeps that instead, so the rows read
// again stay in proportion to those that arrived. At 1M events per source
// the last hour is all in the open segment.
//
// The partials are merged in the order the uncached path reads the
// segments (one worker's share after another), so groups come out in the
// same order, and only aggregates whose merged result does not depend on
// how the rows were split are kept (partialsFit): counts, integer and
// decimal sums and averages, MIN and MAX of numbers and times, exact
// APPROX_QUANTILES of numbers. A FLOAT64 sum rounds differently split
// otherwise, and strings would keep their segment's column alive. Plans
// with nested records or late fields (references into the segment) are not
// kept either.
//
// A kept partial is never changed, but for each APPROX_QUANTILES group's
// answer, stored once atomically by the first call that computes it
// (sharedQuantiles): a merge copies its quantile lists into
// lists sized for them first (quantAgg.reserve; a merge adopts a list only
// where no room was made), and its key strings are its own. A segment merged away
// or dropped, or a plan no longer kept, is never asked for again (the key
// holds both weakly) and its partials age out of the byte-bounded LRU.
//
// Where merging partials would not answer as one pass does, the call runs
// the uncached path instead (run): a group past the exact quantiles' limit
// (a t-digest's answer depends on how its values were split), or partials
// past the query's memory budget (computed under a budget of their own;
// the query's is charged the merged groups, where a pass charges each
// worker's).

// partialCacheBytes bounds the partials kept. Quantiles keep every value:
// invocation-stats over 7 days for the demo's busiest project keeps 2.2 MB
// at 1M events per source and 22 MB at 10M (~120 KB a segment); the other
// built-in shapes keep a few KB a segment.
const partialCacheBytes = 32 << 20

type partialKey struct {
	agg weak.Pointer[planner.Aggregate]
	seg weak.Pointer[logstore.Segment]
}

// keptPartial is a segment's partial aggregate over its first rows rows
// (all of a sealed one), and the bounds it was read within, cut to those
// rows' time range [tmin, tmax] (see cut).
type keptPartial struct {
	lo, hi     int64
	tmin, tmax int64
	rows       int
	open       bool // read while the segment was open: rows are a prefix of it
	a          *aggOp
}

var segPartials = struct {
	*byteLRU[partialKey, *keptPartial]
	hits atomic.Int64 // partials found (tests)
}{byteLRU: newByteLRU[partialKey, *keptPartial](partialCacheBytes)}

// partialsFit reports whether p's partial results may be kept: see above.
func partialsFit(p *planner.Aggregate) bool {
	if p.Kept == nil || p.Sets != nil {
		return false
	}
	for _, k := range p.Keys {
		if storageOf(k.Type()) == inValues {
			return false
		}
	}
	for _, a := range p.Aggs {
		if a.Distinct || a.Having != 0 || a.Filtered || len(a.Order) > 0 || a.HasLimit {
			return false
		}
		var arg types.Kind
		if len(a.Args) > 0 {
			arg = a.Args[0].Type().Kind
		}
		switch a.Fn {
		case "count", "countif":
		case "sum", "avg":
			if arg != types.KindInt64 && arg != types.KindNumeric && arg != types.KindBigNumeric {
				return false
			}
		case "min", "max", "approx_quantiles":
			t := a.Args[0].Type()
			if t.InS() || storageOf(t) == inValues {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// cut returns the bounds [lo, hi] as they select rows whose timestamps
// lie in [slo, shi]: a bound at or beyond them selects them all, and is no
// bound (MinInt64, MaxInt64), so that every window covering the rows whole
// finds the same partial.
func cut(slo, shi, lo, hi int64) (int64, int64) {
	if lo <= slo {
		lo = math.MinInt64
	}
	if hi >= shi {
		hi = math.MaxInt64
	}
	return lo, hi
}

// partialsAgg is an Aggregate computed from one partial per segment, or,
// when that would not answer as the uncached path does, by that path.
type partialsAgg struct {
	plan   *planner.Aggregate
	kept   weak.Pointer[planner.Aggregate] // plan.Kept, the keys' half
	scan   *planner.Scan
	snap   snapshot
	lo, hi int64
	order  []int // the segments read, in the order the uncached path merges them
	// workers is how many goroutines compute the partials not found: one
	// when the range holds few rows (deal).
	workers int
	final   *aggOp
	ev      *evaluator
	out     Operator // final, or the uncached operator
}

// newPartialsAgg returns p computed from kept partials, or nil when p's
// partials are not kept or no segment is in range.
func newPartialsAgg(p *planner.Aggregate, sp *planner.Scan, snap snapshot, ev *evaluator) Operator {
	if sp.Empty || !partialsFit(p) || thrashing.gaveUp(p.Kept) {
		return nil
	}
	for _, f := range sp.Fields {
		if lf, ok := snap.Schema.Lookup(f.Path); ok && (lf.Object || f.Late) {
			return nil
		}
	}
	order, total := inRange(sp, snap)
	if len(order) == 0 {
		return nil
	}
	workers := 1 // few rows in range: read on one, as the uncached path would
	if parts := deal(order, total, runtime.GOMAXPROCS(0)); parts != nil {
		order = order[:0:0]
		for _, part := range parts {
			order = append(order, part...)
		}
		workers = len(parts)
	}
	return &partialsAgg{plan: p, kept: weak.Make(p.Kept), scan: sp, snap: snap,
		lo: max(sp.TimeLo, snap.NotBefore), hi: sp.TimeHi, order: order, workers: workers,
		final: newAggOp(nil, p, ev), ev: ev}
}

func (pa *partialsAgg) Close() {
	if pa.out != nil {
		pa.out.Close()
	}
}

func (pa *partialsAgg) Next(ctx context.Context) (*Batch, error) {
	if pa.out == nil {
		ok, err := pa.run(ctx)
		if err != nil {
			return nil, err
		}
		if ok {
			pa.final.done = true
			pa.out = pa.final
		} else {
			pa.out = pa.uncached()
		}
	}
	return pa.out.Next(ctx)
}

// uncached builds the aggregate as Build does without kept partials.
func (pa *partialsAgg) uncached() Operator {
	if op := newParallelAgg(pa.plan, pa.snap, pa.ev); op != nil {
		return op
	}
	return newAggOp(buildChain(pa.plan.In, newParallelScan(pa.scan, pa.snap, 0), pa.ev), pa.plan, pa.ev)
}

// run finds or computes each segment's partial and merges them into
// final. It reports false, having merged nothing, when the partials would
// not answer as one pass does: a group past the exact quantiles' limit (a
// t-digest's answer depends on how its values were split), or partials
// past the query's memory budget (a pass holds one partial per worker,
// not one per segment).
func (pa *partialsAgg) run(ctx context.Context) (bool, error) {
	// parts[k] is the partial of the k-th segment in order: kept[k] when
	// it is kept (read-only), and rest[k] that of the rows an open
	// segment took since, read from row from[k].
	n := len(pa.order)
	parts, rest := make([]*aggOp, n), make([]*aggOp, n)
	kept, from := make([]bool, n), make([]int, n)
	// drop gives up on the partials for this call, and for the next ones
	// (for a while: thrashWatch).
	drop := func() {
		for k, a := range parts {
			if a != nil && !kept[k] {
				a.release()
			}
			if rest[k] != nil {
				rest[k].release()
			}
		}
		thrashing.giveUp(pa.plan.Kept)
	}
	var todo []int
	missed := 0
	for k, i := range pa.order {
		sg := pa.snap.Segments[i]
		if p := pa.find(sg); p != nil {
			segPartials.hits.Add(1)
			parts[k], kept[k] = p.a, true
			if p.rows < sg.Rows() {
				from[k] = p.rows
				todo = append(todo, k)
			}
			continue
		}
		missed++
		todo = append(todo, k)
	}
	thrashing.note(pa.plan.Kept, n, missed)
	// The partials computed here are charged to a budget of their own: the
	// query's holds only the merged groups (below), as a pass's final does.
	var mem *memBudget
	if pa.ev.mem != nil {
		mem = &memBudget{limit: pa.ev.mem.limit}
	}
	workers := min(pa.workers, len(todo))
	err := onAll(workers, func(w int) error {
		ev := newEvaluator()
		ev.mem = mem
		defer ev.release()
		for j := w; j < len(todo); j += workers {
			k := todo[j]
			a, keep, err := pa.partial(ctx, pa.order[k], from[k], ev)
			if err != nil {
				return err
			}
			if from[k] > 0 {
				rest[k] = a
			} else {
				parts[k], kept[k] = a, keep
			}
		}
		return nil
	})
	if err != nil {
		drop()
		if e := (*Error)(nil); errors.As(err, &e) && e.Kind == KindResources {
			return false, nil
		}
		return false, err
	}
	// The groups first, then each quantile list made once at its whole
	// size: appended to partial by partial, the lists of a week at 10M
	// events were copied over and over as they grew. With room made, a
	// merge copies a kept partial's list and never adopts it.
	// The rows an open segment took since its partial was kept come after
	// it, as one pass reads them.
	all := make([]*aggOp, 0, n+len(todo))
	fresh := make([]bool, 0, cap(all)) // released once merged
	for k, a := range parts {
		all, fresh = append(all, a), append(fresh, !kept[k])
		if rest[k] != nil {
			all, fresh = append(all, rest[k]), append(fresh, true)
		}
	}
	targets := make([][]int32, len(all))
	for k, a := range all {
		targets[k] = pa.final.mergeKeys(a)
	}
	for ai, s := range pa.final.states {
		q, ok := s.(*quantAgg)
		if !ok {
			continue
		}
		q.grow(pa.final.n)
		sizes := make([]int, pa.final.n)
		for k, a := range all {
			src := a.states[ai].(*quantAgg)
			for g, t := range targets[k] {
				if src.q[g].digest != nil {
					drop()
					return false, nil
				}
				sizes[t] += len(src.q[g].vals)
			}
		}
		for _, n := range sizes {
			if n > exactQuantileLimit {
				drop()
				return false, nil
			}
		}
		// A group whose values all come from one kept partial's group has
		// its quantiles: computed by the first call that needs them, and
		// found by the next (invocation-stats over the last hour: every
		// minute but the newest few in one segment), which copies none of
		// its values.
		q.only = make([]*sharedQuantiles, pa.final.n)
		q.known = make([]bool, pa.final.n)
		for k, a := range all {
			src := a.states[ai].(*quantAgg)
			for g, t := range targets[k] {
				if sh := src.q[g].shared; sh != nil && len(src.q[g].vals) == sizes[t] && sizes[t] > 0 {
					q.only[t] = sh
					if q.known[t] = sh.answer.Load() != nil; q.known[t] {
						sizes[t] = 0
					}
				}
			}
		}
		q.reserve(sizes)
	}
	if err := pa.ev.mem.charge("GROUP BY or DISTINCT", pa.final.n, len(pa.plan.Keys)+len(pa.plan.Aggs)); err != nil {
		drop()
		return false, err
	}
	for k, a := range all {
		pa.final.mergeStates(a, targets[k])
		if fresh[k] {
			a.release()
		}
		if err := pa.final.failed(); err != nil {
			return false, err
		}
	}
	return true, pa.final.finish()
}

// key is sg's partial's key: the live segment, the same for every view a
// snapshot takes of an open segment (and for it once sealed in memory).
func (pa *partialsAgg) key(sg *logstore.Segment) partialKey {
	return partialKey{agg: pa.kept, seg: weak.Make(sg.Live())}
}

// find returns sg's kept partial when it answers this call: read within
// the call's bounds (cut to its rows), over all of a sealed segment's rows,
// or over the first rows of an open one that has taken fewer than a
// quarter as many since. A partial read while the segment was open is not
// one of its rows once sealed (sealing orders them by time).
func (pa *partialsAgg) find(sg *logstore.Segment) *keptPartial {
	p, ok := segPartials.get(pa.key(sg))
	if !ok || p.open == sg.Sealed() {
		return nil
	}
	if lo, hi := cut(p.tmin, p.tmax, pa.lo, pa.hi); lo != p.lo || hi != p.hi {
		return nil
	}
	switch more := sg.Rows() - p.rows; {
	case more == 0:
		return p
	case p.open && more > 0 && 4*more < p.rows: // the caller reads the rest
		return p
	}
	return nil
}

// partial computes the partial aggregate of segment seg's rows from row
// from on, and keeps it when it covers the segment whole (from 0) and its
// quantiles are exact lists.
func (pa *partialsAgg) partial(ctx context.Context, seg, from int, ev *evaluator) (*aggOp, bool, error) {
	scan := newScan(pa.scan, pa.snap, ev)
	scan.visit, scan.from = []int{seg}, from
	chain := buildChain(pa.plan.In, scan, ev)
	a := newAggOp(chain, pa.plan, ev)
	err := a.accumulate(ctx)
	chain.Close()
	if err == nil {
		err = a.failed()
	}
	if err != nil {
		a.release()
		return nil, false, err
	}
	// What reading needed, and what points into the segment or the call,
	// goes.
	a.in, a.ev, a.plan, a.groups, a.gidx, a.setCols = nil, nil, nil, nil, nil, nil
	sg := pa.snap.Segments[seg]
	if from > 0 || hasDigest(a) {
		return a, false, nil
	}
	p := &keptPartial{rows: sg.Rows(), open: !sg.Sealed(), a: a}
	p.tmin, p.tmax = sg.TimeRange()
	p.lo, p.hi = cut(p.tmin, p.tmax, pa.lo, pa.hi)
	return a, segPartials.add(pa.key(sg), p, sharePartial(a)), nil
}

// hasDigest reports whether a quantile group of a holds a t-digest (which
// merging changes in place).
func hasDigest(a *aggOp) bool {
	for _, s := range a.states {
		if q, ok := s.(*quantAgg); ok {
			for i := range q.q {
				if q.q[i].digest != nil {
					return true
				}
			}
		}
	}
	return false
}

// sharePartial makes a a partial that queries may share, never changed
// again but for its quantile groups' answers, stored once atomically (its
// key strings copied out of the segment's columns, its quantile lists of
// their own size), and returns the bytes it holds (the answers stored later
// are not counted: a few values a group).
func sharePartial(a *aggOp) int64 {
	bytes := int64(a.n)*int64(len(a.keys.cols)+len(a.states))*bytesPerValue + 256
	for _, v := range a.keys.cols {
		for i, s := range v.S {
			v.S[i] = strings.Clone(s)
			bytes += int64(len(s))
		}
	}
	for _, s := range a.states {
		if q, ok := s.(*quantAgg); ok {
			q.mem = nil
			for i := range q.q {
				// A list from the pool may be far longer than the values it
				// holds (a whole query's, before): kept, it would hold that
				// memory for a segment's few values. It goes back, and a
				// list of their size is kept.
				st := &q.q[i]
				if st.vals != nil {
					exact := slices.Clone(st.vals)
					st.release()
					st.vals = exact
					st.shared = new(sharedQuantiles)
				}
				bytes += int64(cap(st.vals)) * 8
			}
		}
	}
	return bytes
}

// A call that finds most of its partials gone since the last call (pushed
// out by other queries' or its own, larger than the budget, or kept within
// bounds other than its own: a window whose edges move with every call
// through the few segments of a short range) computes them
// one segment at a time, keeps them and merges copies: about twice the
// work of reading those segments in one pass (invocation-stats over 7 days
// at 10M events: 90 against 41 ms). An aggregate whose calls find that
// twice in a row, or whose partials could not answer (run), gives them up
// and is computed as before, for giveUpCalls calls; then it tries again,
// as the pressure on the cache may have passed.
var thrashing = &thrashWatch{seen: map[weak.Pointer[planner.Aggregate]]*thrashState{}}

const giveUpCalls = 100

type thrashWatch struct {
	mu   sync.Mutex
	seen map[weak.Pointer[planner.Aggregate]]*thrashState
}

type thrashState struct {
	calls, lost int
	off         int // calls left computed as before
}

// state returns a's state, made when new. Called with mu held.
func (w *thrashWatch) state(a *planner.Aggregate) *thrashState {
	k := weak.Make(a)
	st := w.seen[k]
	if st == nil {
		for old := range w.seen { // the aggregates of plans no longer kept go
			if old.Value() == nil {
				delete(w.seen, old)
			}
		}
		st = &thrashState{}
		w.seen[k] = st
	}
	return st
}

// note records a call that read segs segments, of which missed had no
// partial kept within the call's bounds.
func (w *thrashWatch) note(a *planner.Aggregate, segs, missed int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.state(a)
	st.calls++
	switch {
	case st.calls == 1: // the first call computes them all
	case 2*missed > segs:
		if st.lost++; st.lost >= 2 {
			st.off, st.lost = giveUpCalls, 0
		}
	default:
		st.lost = 0
	}
}

// giveUp makes a's next calls run as before.
func (w *thrashWatch) giveUp(a *planner.Aggregate) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.state(a).off = giveUpCalls
}

// gaveUp reports, counting the call, whether a runs as before.
func (w *thrashWatch) gaveUp(a *planner.Aggregate) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.seen[weak.Make(a)]
	if st == nil || st.off == 0 {
		return false
	}
	if st.off--; st.off == 0 {
		st.calls = 0 // tries again, its first call computing them all
	}
	return true
}
