package exec

import (
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// exactQuantileLimit is the number of values per group up to which
// APPROX_QUANTILES is exact; above it a t-digest answers. A variable for
// the package's tests.
var exactQuantileLimit = 1 << 20

// quantileState collects one group's values for APPROX_QUANTILES.
type quantileState struct {
	vals   []float64
	digest *tdigest
	// shared, set on a kept partial's groups (local_partials.go), holds
	// the quantiles computed of their values: a later call whose group
	// holds exactly those values answers with them.
	shared *sharedQuantiles
}

// sharedQuantiles is where the calls reading one kept partial's group
// leave its quantiles (at the ranks its aggregate reads), computed once.
type sharedQuantiles struct{ answer atomic.Pointer[[]float64] }

// valueLists recycles the value lists of exact quantiles between queries:
// they are the bulk of what an aggregate allocates, and fresh memory costs
// page faults as well as garbage collection.
var valueLists sync.Pool

func (q *quantileState) add(v float64) {
	if q.digest != nil {
		q.digest.add(v)
		return
	}
	q.takeList()
	q.vals = append(q.vals, v)
	if len(q.vals) > exactQuantileLimit {
		q.digest = newTDigest(200)
		for _, x := range q.vals {
			q.digest.add(x)
		}
		q.vals = nil
	}
}

// appendInts adds the values of x whose NULL flags (null[at:], nil: none)
// are unset, as add does one by one; false (nothing added) when they would
// not all stay exact values.
func (q *quantileState) appendInts(x []int64, null []bool, at int) bool {
	if q.digest != nil || len(q.vals)+len(x) > exactQuantileLimit {
		return false
	}
	q.takeList()
	vals := slices.Grow(q.vals, len(x))
	if null == nil {
		for _, v := range x {
			vals = append(vals, float64(v))
		}
	} else {
		for k, v := range x {
			if !null[at+k] {
				vals = append(vals, float64(v))
			}
		}
	}
	q.vals = vals
	return true
}

// takeList gives a state without a value list one from valueLists.
func (q *quantileState) takeList() {
	if q.vals == nil {
		if p, ok := valueLists.Get().(*[]float64); ok {
			q.vals = (*p)[:0]
		}
	}
}

// release returns the value list for reuse; the state is empty afterwards.
func (q *quantileState) release() {
	if cap(q.vals) >= 1024 {
		v := q.vals[:0]
		valueLists.Put(&v)
	}
	q.vals, q.shared = nil, nil
}

func (q *quantileState) count() int {
	if q.digest != nil {
		return int(q.digest.total + float64(len(q.digest.buf)))
	}
	return len(q.vals)
}

// quantiles returns element i of APPROX_QUANTILES(x, n) for each i in ranks:
// the ⌈i·N/n⌉-th smallest of the N values (the minimum for i = 0).
//
// NaN orders first, as BigQuery orders FLOAT64 values (and slices.Sort
// does); floats says the values may hold one.
func (q *quantileState) quantiles(n int, ranks []int, floats bool) []float64 {
	out := make([]float64, len(ranks))
	N := q.count()
	if N == 0 {
		return nil
	}
	if q.digest != nil {
		q.digest.flush()
		for k, i := range ranks {
			out[k] = q.digest.quantile(float64(i) / float64(n))
		}
		return out
	}
	pos := make([]int, len(ranks))
	for k, i := range ranks {
		pos[k] = exactRank(i, n, N)
	}
	if len(ranks) > 8 {
		slices.Sort(q.vals)
		for k, p := range pos {
			out[k] = q.vals[p]
		}
		return out
	}
	// Few ranks: selection in linear time, smallest rank first; each later
	// rank lies right of the previous one, so p99 after p95 only searches
	// the top 5%. Selection compares values and cannot place a NaN: the
	// NaNs are moved to the front first.
	nan := 0
	if floats {
		for i, x := range q.vals {
			if x != x {
				q.vals[i], q.vals[nan] = q.vals[nan], x
				nan++
			}
		}
	}
	order := make([]int, len(pos))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return pos[order[a]] < pos[order[b]] })
	lo := nan
	for _, k := range order {
		p := pos[k]
		if p < lo { // a NaN, or a repeated rank
			out[k] = q.vals[p]
			continue
		}
		out[k] = selectKth(q.vals[lo:], p-lo)
		lo = p + 1
	}
	return out
}

// exactRank is the 0-based position, among N sorted values, of element i
// of APPROX_QUANTILES(x, n): the ⌈i·N/n⌉-th smallest, the minimum for i = 0.
func exactRank(i, n, N int) int {
	return max(int(math.Ceil(float64(i)*float64(N)/float64(n))), 1) - 1
}

// selectKth partially orders v so that v[k] is the k-th smallest (from 0),
// none before it larger and none after it smaller, and returns it.
//
// Floyd and Rivest's selection: over a long range, the k-th is first
// selected within a sample's narrow band around where it should fall,
// which makes it a pivot that leaves little on k's side, so the range
// shrinks to about what lies between k and the band in one pass (~n plus
// min(k, n-k) comparisons against quickselect's ~2–3n). invocation-stats'
// p95 and p99 of thousands of values per bucket spent most of
// APPROX_QUANTILES' time here.
func selectKth(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for hi > lo {
		if hi-lo > 600 {
			n := float64(hi - lo + 1)
			i := float64(k - lo + 1)
			z := math.Log(n)
			s := 0.5 * math.Exp(2*z/3)
			sd := 0.5 * math.Sqrt(z*s*(n-s)/n)
			if i < n/2 {
				sd = -sd
			}
			newLo := max(lo, int(math.Floor(float64(k)-i*s/n+sd)))
			newHi := min(hi, int(math.Floor(float64(k)+(n-i)*s/n+sd)))
			selectKth(v[newLo:newHi+1], k-newLo)
		}
		// Partition [lo, hi] around t = v[k].
		t := v[k]
		i, j := lo, hi
		v[lo], v[k] = v[k], v[lo]
		if v[hi] > t {
			v[hi], v[lo] = v[lo], v[hi]
		}
		for i < j {
			v[i], v[j] = v[j], v[i]
			i++
			j--
			for v[i] < t {
				i++
			}
			for v[j] > t {
				j--
			}
		}
		if v[lo] == t {
			v[lo], v[j] = v[j], v[lo]
		} else {
			j++
			v[j], v[hi] = v[hi], v[j]
		}
		if j <= k {
			lo = j + 1
		}
		if k <= j {
			hi = j - 1
		}
	}
	return v[k]
}

// tdigest is a merging t-digest (Dunning): values are buffered, then merged
// into centroids whose size is bounded by the k1 scale function, which keeps
// the tails accurate. It is mergeable, so partial states could be combined.
type tdigest struct {
	compression float64
	means       []float64
	weights     []float64
	total       float64
	buf         []float64
	min, max    float64
}

func newTDigest(compression float64) *tdigest {
	return &tdigest{compression: compression, min: math.Inf(1), max: math.Inf(-1)}
}

func (t *tdigest) add(v float64) {
	t.buf = append(t.buf, v)
	if len(t.buf) >= int(t.compression*20) {
		t.flush()
	}
}

func (t *tdigest) flush() {
	if len(t.buf) == 0 {
		return
	}
	t.mergeBuffer()
}

// recompress re-runs compression over the centroids alone.
func (t *tdigest) recompress() {
	if len(t.means) > int(4*t.compression) {
		t.mergeBuffer()
	}
}

func (t *tdigest) mergeBuffer() {
	slices.Sort(t.buf)
	if len(t.buf) > 0 {
		t.min = math.Min(t.min, t.buf[0])
		t.max = math.Max(t.max, t.buf[len(t.buf)-1])
	}
	// merge sorted buffer (weight 1 each) with sorted centroids
	means := make([]float64, 0, len(t.means)+len(t.buf))
	weights := make([]float64, 0, cap(means))
	i, j := 0, 0
	for i < len(t.means) || j < len(t.buf) {
		if j >= len(t.buf) || (i < len(t.means) && t.means[i] <= t.buf[j]) {
			means, weights = append(means, t.means[i]), append(weights, t.weights[i])
			i++
		} else {
			means, weights = append(means, t.buf[j]), append(weights, 1)
			j++
		}
	}
	total := t.total + float64(len(t.buf))
	t.buf = t.buf[:0]
	if len(means) == 0 {
		return
	}
	// compress in one pass with the k1 scale: k(q) = δ/(2π)·asin(2q−1)
	k := func(q float64) float64 { return t.compression / (2 * math.Pi) * math.Asin(2*q-1) }
	outM, outW := means[:0:0], weights[:0:0]
	curM, curW := means[0], weights[0]
	done := 0.0
	kLow := k(0)
	for n := 1; n < len(means); n++ {
		q := (done + curW + weights[n]) / total
		if k(q)-kLow <= 1 {
			curM += (means[n] - curM) * weights[n] / (curW + weights[n])
			curW += weights[n]
			continue
		}
		outM, outW = append(outM, curM), append(outW, curW)
		done += curW
		kLow = k(done / total)
		curM, curW = means[n], weights[n]
	}
	outM, outW = append(outM, curM), append(outW, curW)
	t.means, t.weights, t.total = outM, outW, total
}

// quantile estimates the value at rank q·total by interpolating between
// centroid centres; q = 0 and q = 1 give the exact minimum and maximum.
func (t *tdigest) quantile(q float64) float64 {
	t.flush()
	if len(t.means) == 0 {
		return math.NaN()
	}
	if q <= 0 {
		return t.min
	}
	if q >= 1 {
		return t.max
	}
	target := q * t.total
	cum := 0.0
	for i, w := range t.weights {
		centre := cum + w/2
		if target < centre {
			if i == 0 {
				return t.min + (t.means[0]-t.min)*target/centre
			}
			prevCentre := cum - t.weights[i-1]/2
			f := (target - prevCentre) / (centre - prevCentre)
			return t.means[i-1] + f*(t.means[i]-t.means[i-1])
		}
		cum += w
	}
	last := len(t.means) - 1
	lastCentre := t.total - t.weights[last]/2
	f := (target - lastCentre) / (t.total - lastCentre)
	return t.means[last] + f*(t.max-t.means[last])
}

// mergeFrom adds another digest's centroids (and pending values).
func (t *tdigest) mergeFrom(o *tdigest) {
	o.flush()
	for i, m := range o.means {
		t.addWeighted(m, o.weights[i])
	}
	t.min = math.Min(t.min, o.min)
	t.max = math.Max(t.max, o.max)
}

// addWeighted inserts a centroid as a weighted value; it is buffered like
// single values and compressed with them.
func (t *tdigest) addWeighted(v, w float64) {
	if w == 1 {
		t.add(v)
		return
	}
	t.flush()
	// insert in order, then recompress through flush with an empty buffer
	i := sort.SearchFloat64s(t.means, v)
	t.means = append(t.means, 0)
	t.weights = append(t.weights, 0)
	copy(t.means[i+1:], t.means[i:])
	copy(t.weights[i+1:], t.weights[i:])
	t.means[i], t.weights[i] = v, w
	t.total += w
	t.recompress()
}

// merge adds another group's values: exact lists concatenate (turning into a
// t-digest past the exact limit), digests merge centroid by centroid. The
// other's list is adopted rather than copied when q has no values nor room
// made for them (reserve: a merge of kept partials, whose lists others
// read, always makes room first).
func (q *quantileState) merge(o *quantileState) {
	if q.digest == nil && len(q.vals) == 0 && cap(q.vals) < len(o.vals) && o.digest == nil {
		q.vals, o.vals = o.vals, nil
		return
	}
	if o.digest == nil {
		if q.digest == nil && len(q.vals)+len(o.vals) <= exactQuantileLimit {
			q.takeList()
			q.vals = append(q.vals, o.vals...) // what adding each would do
			return
		}
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
