package exec

import (
	"fmt"
	"sync/atomic"
)

// memBudget bounds what one query's row-holding operators keep: the hash or
// cross join's materialised right side, a sort's rows, an aggregate's groups
// (DISTINCT and UNION DISTINCT are aggregates), the values of an IN or ARRAY
// subquery. A caller's sql= is untrusted,
// and a cross join of two large CTEs must stop with a clear error, not grow
// until the process is killed. Streaming operators (scan, filter, project,
// unnest, the join's output) hold one batch and are not charged.
//
// The charge is an estimate, bytesPerValue for every value kept, not a
// measurement: exact accounting would cost the hot path more than the bound is
// worth, and the estimate errs high for the dictionary-coded strings and
// lazily assembled records that dominate logs. One budget is shared by every
// operator and worker of a query, so it is atomic.
type memBudget struct {
	limit int64 // bytes; <= 0: unbounded
	used  atomic.Int64
}

// bytesPerValue is the estimated cost of one kept value (a vector slot, its
// share of strings and of the operator's index over it).
const bytesPerValue = 24

// charge accounts rows × cols values and fails once the total is past the
// limit. A nil budget is unbounded.
func (m *memBudget) charge(what string, rows, cols int) error {
	if m == nil || m.limit <= 0 || rows == 0 {
		return nil
	}
	if m.used.Add(int64(rows)*int64(max(cols, 1))*bytesPerValue) > m.limit {
		return &Error{Kind: KindResources, Msg: fmt.Sprintf(
			"the query holds more rows than its memory budget of %s allows (in a %s); narrow it with WHERE, GROUP BY or LIMIT, or raise --query-memory",
			formatBytes(m.limit), what)}
	}
	return nil
}

// release returns rows × cols values an operator no longer keeps (a top-k
// dropping rows that fell out of it).
func (m *memBudget) release(rows, cols int) {
	if m == nil || m.limit <= 0 {
		return
	}
	m.used.Add(-int64(rows) * int64(max(cols, 1)) * bytesPerValue)
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
