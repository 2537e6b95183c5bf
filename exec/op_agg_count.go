package exec

import "logq/types"

// countState is COUNT(*), COUNT(x) (non-NULL values) or COUNTIF(cond).
type countState struct {
	star, cond bool
	c          []int64
}

func (s *countState) grow(n int) { s.c = growZero(s.c, n) }

func (s *countState) update(g []int32, args []*Vector, n int) {
	// Counted run by run of one group, in a register: rows read in time
	// order and grouped by a time bucket come in long runs, and adding to
	// the group's counter row by row waits on the store before it.
	switch {
	case s.star || !s.cond && args[0].Null == nil && args[0].Lazy == nil:
		// COUNT(*), or COUNT(x) of a vector without NULLs.
		for i := 0; i < len(g); {
			gi, start := g[i], i
			for i < len(g) && g[i] == gi {
				i++
			}
			s.c[gi] += int64(i - start)
		}
	case s.cond && args[0].Null == nil:
		x := args[0].I
		for i := 0; i < len(g); {
			gi, c := g[i], int64(0)
			for ; i < len(g) && g[i] == gi; i++ {
				c += b2i(x[i] != 0)
			}
			s.c[gi] += c
		}
	case s.cond:
		v := args[0]
		for i := 0; i < len(g); {
			gi, c := g[i], int64(0)
			for ; i < len(g) && g[i] == gi; i++ {
				c += b2i(v.I[i] != 0 && !v.isNull(i))
			}
			s.c[gi] += c
		}
	default:
		v := args[0]
		for i := 0; i < len(g); {
			gi, c := g[i], int64(0)
			for ; i < len(g) && g[i] == gi; i++ {
				c += b2i(!v.isNull(i))
			}
			s.c[gi] += c
		}
	}
}

func (s *countState) result(g int) types.Value { return types.IntValue(s.c[g]) }

// distinctState is COUNT(DISTINCT x): a set of value keys per group. Every
// value it keeps is charged to the query's memory budget (mem, set by
// newAggOp), and a merge charges what it adds and releases what the merged
// partial held (op_aggpar.go).
type distinctState struct {
	sets []map[string]bool
	mem  *memBudget
	held int // values charged for
	err  error
}

// distinctWhat names COUNT(DISTINCT) in a memory-budget error.
const distinctWhat = "COUNT(DISTINCT)"

func (s *distinctState) setBudget(m *memBudget) { s.mem = m }

func (s *distinctState) failed() error { return s.err }

func (s *distinctState) charge(n int) {
	if n == 0 || s.err != nil {
		return
	}
	s.held += n
	s.err = s.mem.charge(distinctWhat, n, 1)
}

func (s *distinctState) grow(n int) {
	for len(s.sets) < n {
		s.sets = append(s.sets, map[string]bool{})
	}
}

func (s *distinctState) update(g []int32, args []*Vector, n int) {
	added := 0
	var buf []byte
	for r, gi := range g {
		x := args[0].Value(r)
		if x.Null {
			continue
		}
		buf = appendKey(buf[:0], x)
		if !s.sets[gi][string(buf)] {
			s.sets[gi][string(buf)] = true
			added++
		}
	}
	s.charge(added)
}

func (s *distinctState) result(g int) types.Value { return types.IntValue(int64(len(s.sets[g]))) }

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
