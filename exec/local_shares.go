package exec

import (
	"logq/logstore"
	"logq/planner"
)

// Which segments each parallel worker reads (op_parallel.go, op_aggpar.go,
// op_window_parallel.go).

// minParallelRows is the least number of rows in a scan's time range worth
// a second worker, a floor under which splitting cannot pay for starting
// the workers and merging what they made. What made the short windows
// faster (invocation-stats 1hr at 1M 0.48 → 0.31 ms) is leaving out the
// segments outside the range, which leaves their one or two segments to one
// worker; between 0 and 64k rows the threshold moved no shape beyond noise.
var minParallelRows = 16 * logstore.TimeBlock // a variable for the package's tests (main_test.go)

// shares splits the segments a scan reads among at most workers workers,
// or returns nil when one would do: workers < 2, fewer than two segments
// meet the scan's time range, or they hold fewer than minParallelRows rows
// in it. Segments outside the range are left out, so that a short window's
// few segments are not all one worker's; the rest are dealt out in turn, so
// that each worker gets old and new ones alike (dealing them out by rows,
// largest first to the least loaded, was ~5% slower on invocation-stats
// over 7 days).
func shares(p *planner.Scan, snap snapshot, workers int) [][]int {
	if workers < 2 || p.Empty {
		return nil
	}
	in, total := inRange(p, snap)
	return deal(in, total, workers)
}

// deal is shares of the segments in range (inRange's).
func deal(in []int, total, workers int) [][]int {
	if workers < 2 || len(in) < 2 || total < minParallelRows {
		return nil
	}
	workers = min(workers, len(in))
	parts := make([][]int, workers)
	for k, i := range in {
		parts[k%workers] = append(parts[k%workers], i)
	}
	return parts
}

// inRange returns the segments that may hold rows in the scan's time range
// (in order), and about how many rows of theirs are in it.
func inRange(p *planner.Scan, snap snapshot) (in []int, total int) {
	lo, hi := max(p.TimeLo, snap.NotBefore), p.TimeHi
	for i, sg := range snap.Segments {
		n, known := rowsInRange(sg, lo, hi)
		if !known {
			n = sg.Rows()
		}
		if n > 0 {
			in = append(in, i)
			total += n
		}
	}
	return in, total
}
