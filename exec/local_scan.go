package exec

import (
	"context"
	"slices"
	"sort"

	"logq/event"
	"logq/expr"
	"logq/logstore"
	"logq/planner"
	"logq/types"
)

// scanOp reads one source's snapshot segment by segment.
type scanOp struct {
	plan  *planner.Scan
	snap  snapshot
	ev    *evaluator
	seg   int // current segment
	pos   int // position of seg in order
	row   int // next row in it
	eqCol []eqCheck
	// value predicates answered per dictionary entry (local_scan_dict.go)
	valuePreds   []valuePred
	restFilter   []expr.Expr
	masks        []dictMask
	segFilter    expr.Expr // the row filter for the current segment
	err          error
	present      []*logstore.Column
	cols         []*logstore.Column // the fields' columns in colsOf (columns)
	colsOf       *logstore.Segment
	*scanBuffers         // from the pool (vector_pool.go), given back on Close
	lazyBuf      []uint8 // lazy dictionary masks' states (local_scan_dict.go)
	fields       []*event.Field
	out          Batch
	// newestFirst visits segments by descending newest timestamp, and
	// floor, when set, reports a timestamp below which no row is wanted any
	// more (a top-k on timestamp DESC that is full); see sortOp.
	// fresh makes every batch new storage, for batches handed to another
	// goroutine (parallelScan); otherwise the output vectors are reused.
	fresh       bool
	newestFirst bool
	floor       func() (int64, bool)
	// skipSeg, when set, reports that no row of a segment can matter any
	// more (a first-rows window ordered newest first: local_window_newest.go).
	skipSeg func(*logstore.Segment) bool
	skipped int // segments skipSeg skipped
	order   []int
	// visit, when set, lists the segments this scan reads (a parallel
	// worker's share); references to rows still index the whole snapshot.
	visit []int
	// from is the first row read of each segment: a kept partial's
	// remainder, the rows an open segment took since (local_partials.go).
	// Oldest rows first only: a newestFirst scan counts rows from the end.
	from int
	// lazy holds, per field read as row references, their resolver: made
	// once per query, shared by parallel workers, so references from any
	// of them compare equal (rowStore keeps them as references).
	lazy []*lazyField
}

type eqCheck struct {
	col  *logstore.Column
	code uint32
	str  string
}

// scanFields looks up a scan's fields in the snapshot's schema and makes a
// resolver for each one read as row references (nested records, late
// fields). Parallel workers of one scan share its resolvers, so references
// from any of them compare equal.
func scanFields(p *planner.Scan, snap snapshot) ([]*event.Field, []*lazyField) {
	fields := make([]*event.Field, len(p.Fields))
	lazy := make([]*lazyField, len(p.Fields))
	for i, f := range p.Fields {
		if lf, ok := snap.Schema.Lookup(f.Path); ok {
			fields[i] = lf
			if lf.Object || f.Late {
				lazy[i] = &lazyField{rows: localRows(snap.Segments), field: lf, failed: snap.failed}
			}
		}
	}
	return fields, lazy
}

func newScan(p *planner.Scan, snap snapshot, ev *evaluator) *scanOp {
	if snap.NotBefore > p.TimeLo {
		// Retention: rows past it are never returned, as if the query's
		// own time range excluded them.
		clamped := *p
		clamped.TimeLo = snap.NotBefore
		p = &clamped
	}
	s := &scanOp{plan: p, snap: snap, ev: ev, seg: -1, pos: -1, scanBuffers: takeScanBuffers()}
	s.fields, s.lazy = scanFields(p, snap)
	s.out.Cols = make([]*Vector, len(p.Fields)) // taken at the first batch, unless fresh
	s.valuePreds, s.restFilter = splitValuePreds(p)
	s.segFilter = p.Filter
	return s
}

// Close gives the scan's vectors back (vector_pool.go): its last batch
// has been read, or the query has ended.
func (s *scanOp) Close() {
	for i, v := range s.out.Cols {
		if v != nil {
			releaseVector(v)
			s.out.Cols[i] = nil
		}
	}
	if s.scanBuffers != nil {
		scanBufferPool.Put(s.scanBuffers)
		s.scanBuffers = nil
	}
}

// nextSegment advances to the next segment that may hold matching rows.
func (s *scanOp) nextSegment() bool {
	if s.order == nil {
		s.order = s.visit
		if s.order == nil {
			s.order = make([]int, len(s.snap.Segments))
			for i := range s.order {
				s.order[i] = i
			}
		}
		if s.newestFirst {
			segs := s.snap.Segments
			sort.SliceStable(s.order, func(a, b int) bool {
				_, ha := segs[s.order[a]].TimeRange()
				_, hb := segs[s.order[b]].TimeRange()
				return ha > hb
			})
		}
	}
	for {
		s.pos++
		s.row = 0
		if !s.newestFirst {
			s.row = s.from
		}
		if s.plan.Empty || s.pos >= len(s.order) {
			return false
		}
		s.seg = s.order[s.pos]
		seg := s.snap.Segments[s.seg]
		lo, hi := seg.TimeRange()
		if hi < s.plan.TimeLo || lo > s.plan.TimeHi {
			continue // pruned by its time range
		}
		if s.floor != nil {
			if f, ok := s.floor(); ok && hi < f {
				return false // newest first: every later segment is older still
			}
		}
		if s.skipSeg != nil && s.skipSeg(seg) {
			s.skipped++
			continue
		}
		ok, err := s.prepareEq(seg)
		if err == nil && ok {
			ok, err = s.prepareValuePreds(seg)
		}
		if err != nil {
			s.err = err
			return false
		}
		if ok {
			return true
		}
	}
}

// prepareEq resolves equality predicates against the segment's dictionaries;
// it reports false when a value is absent, so the segment cannot match.
func (s *scanOp) prepareEq(seg *logstore.Segment) (bool, error) {
	s.present = s.present[:0]
	for _, path := range s.plan.Present {
		col, err := seg.Column(path)
		if err != nil || col == nil {
			return false, err // nil: no event of the segment has the object
		}
		s.present = append(s.present, col)
	}
	s.eqCol = s.eqCol[:0]
	for _, e := range s.plan.Eq {
		col, err := seg.Column(s.plan.Fields[e.Field].Path)
		if err != nil || col == nil {
			return false, err // nil: every row NULL, and NULL = x is never true
		}
		chk := eqCheck{col: col, str: e.Value}
		if col.IsDict() {
			code, ok := col.FindCode(e.Value)
			if !ok {
				return false, nil
			}
			chk.code = code
		}
		s.eqCol = append(s.eqCol, chk)
	}
	return true, nil
}

func (s *scanOp) Next(ctx context.Context) (*Batch, error) {
	for {
		if s.seg < 0 || s.row >= s.snap.Segments[s.seg].Rows() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if !s.nextSegment() {
				return nil, s.err
			}
		}
		seg := s.snap.Segments[s.seg]
		start, end := s.row, min(s.row+BatchSize, seg.Rows())
		if s.newestFirst {
			// Newest rows first: the top-k fills with the rows it keeps, and
			// the floor then turns the rest away before they are read.
			end = seg.Rows() - s.row
			start = max(end-BatchSize, 0)
		}
		s.row += end - start
		rows, err := s.candidates(seg, start, end)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			continue
		}
		b, err := s.read(seg, rows)
		if err != nil {
			return nil, err
		}
		if b.N > 0 {
			return b, nil
		}
	}
}

// candidates returns the rows of [start, end) that pass the time range, the
// equality predicates and the presence checks, all decided on compact
// storage before any other field is read.
func (s *scanOp) candidates(seg *logstore.Segment, start, end int) ([]int32, error) {
	from := s.plan.TimeLo
	if s.floor != nil {
		if f, ok := s.floor(); ok && f > from {
			from = f
		}
	}
	rows := s.rows[:0]
	eqChecks := s.eqCol
	firstDict := len(eqChecks) > 0 && eqChecks[0].col.IsDict()
	// Time, one block of rows at a time: a block outside the window is
	// skipped, one wholly inside needs no per-row check.
	for bs := start; bs < end; {
		be := min((bs/logstore.TimeBlock+1)*logstore.TimeBlock, end)
		lo, hi, ok := seg.BlockTimeRange(bs / logstore.TimeBlock)
		if !ok {
			lo, hi = seg.TimeRange()
		}
		switch {
		case hi < from || lo > s.plan.TimeHi:
		case lo >= from && hi <= s.plan.TimeHi && firstDict:
			rows = eqChecks[0].col.MatchCode(bs, be, eqChecks[0].code, rows)
		case lo >= from && hi <= s.plan.TimeHi:
			for r := bs; r < be; r++ {
				rows = append(rows, int32(r))
			}
		default:
			tc, err := seg.Column("timestamp")
			if err != nil {
				return nil, err
			}
			n := be - bs
			idx := s.scratchRows(bs, be)
			s.ts = grow(s.ts, n)
			tc.GatherInts(idx, s.ts)
			mark := len(rows)
			for k, r := range idx {
				if t := s.ts[k]; t >= from && t <= s.plan.TimeHi {
					rows = append(rows, r)
				}
			}
			if firstDict {
				rows = append(rows[:mark], s.matchCodes(eqChecks[0], rows[mark:])...)
			}
		}
		bs = be
	}
	if firstDict {
		eqChecks = eqChecks[1:]
	}
	for _, chk := range eqChecks {
		rows = s.matchCodes(chk, rows)
	}
	for _, col := range s.present {
		if !col.HasNulls() {
			continue // every event of the segment has the object
		}
		kept := rows[:0]
		for _, r := range rows {
			if !col.IsNull(int(r)) {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	rows = s.applyMasks(rows)
	if s.newestFirst {
		slices.Reverse(rows)
	}
	s.rows = rows
	return rows, nil
}

// scratchRows lists rows [bs, be) in a reused buffer.
func (s *scanOp) scratchRows(bs, be int) []int32 {
	s.idx = s.idx[:0]
	for r := bs; r < be; r++ {
		s.idx = append(s.idx, int32(r))
	}
	return s.idx
}

// matchCodes keeps the rows whose value equals the check's, in place.
func (s *scanOp) matchCodes(chk eqCheck, rows []int32) []int32 {
	kept := rows[:0]
	if chk.col.IsDict() {
		s.codes = grow(s.codes, len(rows))
		chk.col.GatherCodes(rows, s.codes)
		nulls := chk.col.HasNulls()
		for k, r := range rows {
			if s.codes[k] == chk.code && (!nulls || !chk.col.IsNull(int(r))) {
				kept = append(kept, r)
			}
		}
		return kept
	}
	text := chk.col.Str
	if chk.col.Kind() != types.KindString {
		// A field widened to STRING after this segment was written: its
		// values compare as the text a query reads them as.
		text = func(i int) string { return chk.col.Value(i, types.String).S }
	}
	for _, r := range rows {
		if !chk.col.IsNull(int(r)) && text(int(r)) == chk.str {
			kept = append(kept, r)
		}
	}
	return kept
}

// eqValue is the value an equality predicate (planner.Scan.Eq) holds
// field i to, if one does.
func (s *scanOp) eqValue(i int) (string, bool) {
	for _, e := range s.plan.Eq {
		if e.Field == i {
			return e.Value, true
		}
	}
	return "", false
}

// read gathers the scan's fields for rows and applies its residual filter.
func (s *scanOp) read(seg *logstore.Segment, rows []int32) (*Batch, error) {
	n := len(rows)
	b := &s.out
	if s.fresh {
		b = &Batch{Cols: make([]*Vector, len(s.plan.Fields))}
		for i := range b.Cols {
			b.Cols[i] = &Vector{}
		}
	} else if len(b.Cols) > 0 && b.Cols[0] == nil {
		for i := range b.Cols {
			b.Cols[i] = takeVector()
		}
	}
	b.N = n
	cols, err := s.columns(seg)
	if err != nil {
		return nil, err
	}
	for i, f := range s.plan.Fields {
		v := b.Cols[i]
		v.T, v.Lazy = f.T, nil
		col := cols[i]
		lf := s.fields[i]
		switch {
		case f.Presence:
			v.T = types.Bool
			v.resize(n)
			for k := range v.I[:n] {
				v.I[k] = 1
			}
			markNulls(v, col, rows)
		case lf == nil || f.T.Kind == types.KindNull || col == nil && !f.Late:
			v.resize(n)
			v.Null = make([]bool, n)
			for k := range v.Null {
				v.Null[k] = true
			}
		case s.lazy[i] != nil:
			// Nested records always, and late fields (planner.ScanField),
			// are read later and only for the rows kept. A late field
			// absent from the segment is references too, all NULL, so
			// that its rows meet the others' in a store as references.
			v.Lazy = s.lazy[i]
			v.resize(n)
			for k, r := range rows {
				v.I[k] = lazyRef(s.seg, int(r))
			}
			if f.Late && col != nil && col.IsDict() {
				// A late key (a window's partition) is grouped by its codes.
				v.codes = grow(v.codes, n)
				col.GatherCodes(rows, v.codes)
				v.dict = col
			}
			markNulls(v, col, rows)
		default:
			v.resize(n)
			switch v.storage() {
			case inInts:
				if col.Kind() == types.KindString || col.Kind() == types.KindFloat64 {
					return nil, &Error{Kind: KindInternal, Msg: "stored type of " + f.Path + " does not match the schema"}
				}
				col.GatherInts(rows, v.I)
			case inFloats:
				col.GatherFloats(rows, v.F)
			case inStrings:
				if eq, ok := s.eqValue(i); ok && col.Kind() == types.KindString {
					// Every row kept equals the predicate's value
					// (project = @project): no per-row lookups.
					for k := range v.S {
						v.S[k] = eq
					}
					break
				}
				col.GatherStrings(rows, v.S)
				if col.IsDict() {
					v.codes = grow(v.codes, n)
					col.GatherCodes(rows, v.codes)
					v.dict = col
				}
			case inValues:
				for k, r := range rows {
					v.V[k] = col.Value(int(r), f.T)
				}
			}
			markNulls(v, col, rows)
		}
	}
	if s.segFilter == nil {
		return b, nil
	}
	return filterBatch(s.ev, s.segFilter, b, &s.rows)
}

// columns returns the scan's fields' columns in seg, the current segment,
// looked up once per segment rather than per batch: a lookup takes the
// column cache's lock and moves its entry in the LRU, and invocation-stats
// over 7 days made ~6000 of them.
func (s *scanOp) columns(seg *logstore.Segment) ([]*logstore.Column, error) {
	if s.colsOf == seg {
		return s.cols, nil
	}
	s.cols = grow(s.cols, len(s.plan.Fields))
	for i, f := range s.plan.Fields {
		col, err := seg.Column(f.Path)
		if err != nil {
			s.colsOf = nil
			return nil, err
		}
		s.cols[i] = col
	}
	s.colsOf = seg
	return s.cols, nil
}

// markNulls sets v's NULL flags for rows, reusing its storage. (The scan's
// output vectors live until its next batch; fresh ones come with new storage.)
func markNulls(v *Vector, col *logstore.Column, rows []int32) {
	if col == nil {
		nulls := v.freshNulls(len(rows))
		for k := range nulls {
			nulls[k] = true
		}
		return
	}
	if !col.HasNulls() || !col.GatherNulls(rows, v.freshNulls(len(rows))) {
		v.Null = nil
	}
}

// filterBatch keeps the rows of b where cond is TRUE, compacting in place.
func filterBatch(ev *evaluator, cond expr.Expr, b *Batch, scratch *[]int32) (*Batch, error) {
	c, err := ev.eval(cond, b)
	if err != nil {
		return nil, err
	}
	keep := (*scratch)[:0]
	for i := 0; i < b.N; i++ {
		if c.I[i] != 0 && !c.isNull(i) {
			keep = append(keep, int32(i))
		}
	}
	*scratch = keep
	if len(keep) == b.N {
		return b, nil
	}
	return b.take(keep), nil
}

// localRows are a snapshot's segments as the rows late fields read.
type localRows []*logstore.Segment

func (r localRows) Value(seg int, f *event.Field, row int) (types.Value, error) {
	return r[seg].Value(f, row)
}

func (r localRows) Values(seg int, f *event.Field, rows []int32, dst []types.Value) error {
	return r[seg].Values(f, rows, dst)
}

func (r localRows) GatherStrings(seg int, path string, rows []int32, dst []string) error {
	col, err := r[seg].Column(path)
	if col != nil {
		col.GatherStrings(rows, dst)
	} else {
		clear(dst)
	}
	return err
}

// rowsInRange bounds the rows of seg in [lo, hi] by its time range and its
// blocks'; known is false for a segment not sealed (the open segment, in
// arrival order: its newest rows, which short windows read, are there) or
// without block ranges.
func rowsInRange(seg *logstore.Segment, lo, hi int64) (n int, known bool) {
	slo, shi := seg.TimeRange()
	if seg.Rows() == 0 || shi < lo || slo > hi {
		return 0, true
	}
	if _, _, ok := seg.BlockTimeRange(0); !ok || !seg.Sealed() {
		return 0, false
	}
	if slo >= lo && shi <= hi {
		return seg.Rows(), true
	}
	for b := 0; b*logstore.TimeBlock < seg.Rows(); b++ {
		bl, bh, _ := seg.BlockTimeRange(b)
		if bh >= lo && bl <= hi {
			n += logstore.TimeBlock
		}
	}
	return n, true
}

func (r localRows) RecordTexts(seg int, f *event.Field, rows []int32, w *recordWriter, texts []string) error {
	return recordTexts(r[seg], f, rows, w, texts)
}
