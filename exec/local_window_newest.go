package exec

import (
	"logq/expr"
	"logq/logstore"
	"logq/planner"
	"logq/types"
)

// A Window that keeps each partition's first row by the scan's own
// timestamp, newest first (ROW_NUMBER() OVER (PARTITION BY path ORDER BY
// timestamp DESC) = 1: "the newest request per path"), reads its scan's
// segments newest first, each one's rows newest first, and skips a segment
// once every partition its rows can have already has a row newer than all
// of the segment's: no row of it could come first. For a STRING partition
// key the partitions a segment can have are its dictionary's entries, for
// an INT64 key the distinct values of a column packed narrow (a status
// code), and NULL where it has NULLs; a segment whose key column is plain
// or wide, or a key of another type, is read. Logs arrive roughly in time order, so segments
// cover successive spans of time and all but the newest one or two are
// skipped.
//
// Rows that tie on the timestamp may be numbered in another order than an
// oldest-first read gives, which BigQuery leaves unspecified too.

// newestFirstWindow returns, when p is such a Window over a scan, the path
// of its partition key ("" for none) and true.
func newestFirstWindow(p *planner.Window) (string, bool) {
	sp, ok := p.In.(*planner.Scan)
	if !ok || p.TopN != 1 || len(p.Calls) != 1 || len(p.Calls[0].Partition) > 1 {
		return "", false
	}
	call := &p.Calls[0]
	if call.Fn != "row_number" || len(call.Order) != 1 || !call.Order[0].Desc || call.Order[0].NullsFirst {
		return "", false
	}
	if oc, ok := call.Order[0].Expr.(*expr.ColRef); !ok || !isTimestampField(sp.Fields[oc.Idx]) {
		return "", false
	}
	if len(call.Partition) == 0 {
		return "", true
	}
	pc, ok := call.Partition[0].(*expr.ColRef)
	if !ok {
		return "", false
	}
	f := sp.Fields[pc.Idx]
	if f.T.Kind != types.KindString && f.T.Kind != types.KindInt64 || f.Presence {
		return "", false
	}
	return f.Path, true
}

func isTimestampField(f planner.ScanField) bool {
	return f.Path == "timestamp" && f.T.Kind == types.KindTimestamp && !f.Presence
}

// readNewestFirst makes scan feed w newest first, skipping the segments w
// no longer needs.
func readNewestFirst(scan *scanOp, w *windowOp, keyPath string) {
	scan.newestFirst = true
	scan.skipSeg = func(seg *logstore.Segment) bool { return w.dominates(seg, keyPath) }
}

// dominates reports whether every partition that seg's rows can have has a
// first row newer than seg's newest row (the key's field is keyPath, "" for
// no PARTITION BY).
func (o *windowOp) dominates(seg *logstore.Segment, keyPath string) bool {
	t := o.top
	if t == nil || !t.first() {
		return false
	}
	_, newest := seg.TimeRange()
	newer := func(g int32) bool {
		return g >= 0 && int(g) < len(t.best) && t.best[g].at >= 0 && !t.best[g].inull && t.best[g].ik > newest
	}
	if keyPath == "" {
		return newer(0)
	}
	col, err := seg.Column(keyPath)
	if err != nil {
		return false // not skipped: reading the segment meets the error
	}
	if col == nil {
		return newer(t.groups.nullG) // every row's key is NULL
	}
	if col.HasNulls() && !newer(t.groups.nullG) {
		return false
	}
	if col.IsDict() {
		for c := 0; c < col.DictLen(); c++ {
			g, ok := t.groups.groupOf(col.DictEntry(uint32(c)), 0, true)
			if !ok || !newer(g) {
				return false
			}
		}
		return true
	}
	all := true
	enumerated := col.DistinctInts(func(v int64) bool {
		g, ok := t.groups.groupOf("", v, false)
		all = ok && newer(g)
		return all
	})
	return enumerated && all
}
