package exec

// sketches is what the sketch aggregates (HLL_COUNT, KLL_QUANTILES) share:
// one sketch per group (nil: the group has none yet), the memory budget
// charged as a sketch grows and released when a partial state is merged
// away, and the first error. P is the sketch's pointer type.
type sketches[T any, P interface {
	*T
	MemSize() int
}] struct {
	what string // the budget's name for it: "HLL_COUNT sketch"
	sk   []P
	size []int // bytes charged per group
	held int   // budget units charged in all
	mem  *memBudget
	err  error
}

func (s *sketches[T, P]) grow(n int) {
	s.sk = growZero(s.sk, n)
	s.size = growZero(s.size, n)
}

func (s *sketches[T, P]) setBudget(m *memBudget) { s.mem = m }

func (s *sketches[T, P]) failed() error { return s.err }

// charge charges what group g's sketch grew by since it was last charged
// (a few comparisons: the budget is asked only when the sketch grew).
func (s *sketches[T, P]) charge(g int32) {
	if s.sk[g] == nil {
		return // no sketch yet (its only value was not one)
	}
	now := s.sk[g].MemSize()
	units := now/bytesPerValue - s.size[g]/bytesPerValue
	if units <= 0 {
		return
	}
	s.size[g] = now
	s.held += units
	if err := s.mem.charge(s.what, units, 1); err != nil && s.err == nil {
		s.err = err
	}
}

// mergeFrom folds partial state o's sketches into the groups target names
// (fold merges one sketch, which it may keep, into a group's), taking its
// error, and releases what o had charged.
func (s *sketches[T, P]) mergeFrom(target []int32, o *sketches[T, P], fold func(g int32, o P)) {
	if o.err != nil && s.err == nil {
		s.err = o.err
	}
	for g, t := range target {
		if o.sk[g] != nil {
			fold(t, o.sk[g])
			o.sk[g] = nil // merged: the partial's is this state's now, or gone
			s.charge(t)
		}
	}
	o.mem.release(o.held, 1)
	o.held = 0
}
