package clickhouse

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"logq/event"
	"logq/storage"
	"logq/types"
)

// Ingest: a request's events are shredded by the source's event.Tree (the
// local store's normaliser: keys, ids, timestamps, types, widening, the
// field cap, overflow, refusals) into rows, under the source's lock; the
// rows join the source's next insert (group commit), which makes the
// columns new fields need, then inserts them (on a cluster, into each
// shard's table at once, or through the Distributed table with
// insert_distributed_sync=1: either way every shard holds its part when the
// insert returns). The request is answered when its insert
// has: 200 only after ClickHouse holds the events and the next query sees
// them; a failure that outlasts the insert's retries (retry.go) fails every
// request of the insert, and the api answers 503.

// source is one source as this engine instance knows it.
type source struct {
	e    *Engine
	name string

	mu   sync.Mutex // the tree, the layout and the sink
	tree *event.Tree
	lay  *layout
	sink rowSink

	qmu       sync.Mutex // the pending insert
	pending   *insert
	flusher   bool      // a goroutine flushes pending inserts
	lastFlush time.Time // when the last insert started

	ingested, overflowed atomic.Int64
}

// source returns the named source, loading what ClickHouse holds of it;
// with create, its tables are made when it has none, unless the engine
// holds its limit of sources already.
func (e *Engine) source(ctx context.Context, name string, create bool) (*source, error) {
	e.mu.Lock()
	src := e.sources[name]
	if src == nil {
		src = &source{e: e, name: name}
		e.sources[name] = src
	}
	e.mu.Unlock()
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.tree != nil {
		return src, nil
	}
	lay, err := e.readLayout(ctx, name)
	if err != nil {
		return nil, err
	}
	if len(lay.order) == 0 {
		if !create {
			return nil, nil
		}
		names, err := e.listSources(ctx)
		if err != nil {
			return nil, err
		}
		if len(names) >= e.cfg.MaxSources {
			return nil, fmt.Errorf("%w: this store holds its limit of %d sources", storage.ErrTooManySources, e.cfg.MaxSources)
		}
		if err := e.createTables(ctx, name); err != nil {
			return nil, err
		}
		if lay, err = e.readLayout(ctx, name); err != nil {
			return nil, err
		}
	}
	src.lay, src.tree = lay, lay.tree(e.cfg.MaxFields)
	src.tree.OnOverflow = func([]byte) { src.overflowed.Add(1) }
	return src, nil
}

// readLayout reads a source's columns for an insert: those every table of
// the source has on every server (the local table, and the Distributed one
// with a cluster), in the order the first server's local table lists them.
// A column another instance is still adding (it has reached some tables,
// not all) is not there yet: an insert that needs it adds it everywhere
// itself. A source without a table has none.
func (e *Engine) readLayout(ctx context.Context, name string) (*layout, error) {
	tables := []string{name}
	if e.cfg.Cluster != "" {
		tables = []string{name + localSuffix, name}
	}
	var first []column
	seen := map[string]int{}
	for si, c := range e.servers {
		cols, err := e.readColumns(ctx, c, tables)
		if err != nil {
			return nil, err
		}
		for _, col := range cols {
			seen[col.name]++
			if si == 0 && col.table == tables[0] {
				first = append(first, col)
			}
		}
	}
	lay := newLayout()
	for _, c := range first {
		if seen[c.name] == len(e.servers)*len(tables) {
			lay.add(c)
		}
	}
	return lay, nil
}

// queryLayout reads a source's columns for a query run on server c: those
// of the table the query names there (the Distributed one with a cluster).
// That one server is enough: addColumns gives a column to every local
// table before any Distributed table, and an insert needing it waits for
// all of them, so a column c's Distributed table lists exists on every
// shard, and every acknowledged row's columns are listed.
func (e *Engine) queryLayout(ctx context.Context, c *client, name string) (*layout, error) {
	cols, err := e.readColumns(ctx, c, []string{name})
	if err != nil {
		return nil, err
	}
	lay := newLayout()
	for _, col := range cols {
		lay.add(col)
	}
	return lay, nil
}

// readColumns lists the columns of the source's tables named on server c.
func (e *Engine) readColumns(ctx context.Context, c *client, tables []string) ([]column, error) {
	in := make([]string, len(tables))
	for i, t := range tables {
		in[i] = quote(t)
	}
	rc, err := c.do(ctx, "SELECT table, name, type, comment FROM system.columns WHERE database = "+quote(e.cfg.Database)+
		" AND table IN ("+strings.Join(in, ", ")+") FORMAT TabSeparated", nil, nil)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r := newTSVReader(rc)
	var cols []column
	for {
		fields, err := r.row()
		if err != nil {
			return nil, err
		}
		if fields == nil {
			return cols, nil
		}
		if len(fields) == 4 {
			cols = append(cols, column{table: string(fields[0]), name: string(fields[1]), typ: string(fields[2]), comment: string(fields[3])})
		}
	}
}

// createTables makes a source's tables on every server: with a cluster a
// MergeTree on each shard and a Distributed table over them (on every
// server, so that any serves queries); else a MergeTree. Rows are sorted
// by time and partitioned by day (retention drops whole days); shards are
// picked by a hash of the time (deterministic: a retried event with its own
// timestamp lands where it did before).
func (e *Engine) createTables(ctx context.Context, name string) error {
	cols := "`timestamp` Int64, " + ident(insertColumn) + " UInt64" // id and event_message come as fields do (schema.go)
	for _, c := range e.servers {
		mt := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s) ENGINE = MergeTree() PARTITION BY intDiv(`timestamp`, %d) ORDER BY `timestamp`",
			e.local(name), cols, microsPerDay)
		if err := c.exec(ctx, mt, nil); err != nil && !isCode(err, codeTableExists) {
			return fmt.Errorf("clickhouse %s: making the table of source %q: %w", c.base.Host, name, err)
		}
		if e.cfg.Cluster == "" {
			continue
		}
		dist := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s AS %s ENGINE = Distributed(%s, %s, %s, cityHash64(`timestamp`))",
			e.table(name), e.local(name), ident(e.cfg.Cluster), ident(e.cfg.Database), quote(name+localSuffix))
		if err := c.exec(ctx, dist, nil); err != nil && !isCode(err, codeTableExists) {
			return fmt.Errorf("clickhouse %s: making the Distributed table of source %q: %w", c.base.Host, name, err)
		}
	}
	return nil
}

const microsPerDay = 86_400_000_000

// addColumns makes the columns a batch needs that the table lacks, on every
// server: the local tables on every shard first, then the Distributed
// tables (queryLayout relies on that order). A column another instance made
// meanwhile counts as made.
func (e *Engine) addColumns(ctx context.Context, name string, lay *layout, want []column) error {
	tables := []string{e.local(name)}
	if e.cfg.Cluster != "" {
		tables = append(tables, e.table(name))
	}
	alter := func(what, stmt string, ok func(error) bool) error {
		for _, t := range tables {
			for _, c := range e.servers {
				if err := c.exec(ctx, "ALTER TABLE "+t+" "+stmt, nil); err != nil && !ok(err) {
					return fmt.Errorf("clickhouse %s: %s of source %q: %w", c.base.Host, what, name, err)
				}
			}
		}
		return nil
	}
	// The table gets new columns in the order their fields were made, which
	// is the order of the schema every instance reads back (the local
	// store's order of fields).
	want = slices.Clone(want)
	sort.SliceStable(want, func(a, b int) bool { return want[a].node < want[b].node })
	for _, col := range want {
		if !lay.cols[col.name] {
			def := ident(col.name) + " " + col.typ
			if err := alter("adding column "+col.name, "ADD COLUMN "+def, func(err error) bool { return isCode(err, codeColumnExists) || isCode(err, codeDuplicateColumn) }); err != nil {
				return err
			}
			lay.add(column{name: col.name, typ: col.typ})
		}
		if col.comment == "" || col.comment == lay.comment[col.name] {
			continue
		}
		// An array column's comment is its element type, set apart from
		// ADD COLUMN (18.16 drops a COMMENT given there) and again when the
		// elements widen.
		if err := alter("typing column "+col.name, "COMMENT COLUMN "+ident(col.name)+" "+quote(col.comment), func(error) bool { return false }); err != nil {
			return err
		}
		lay.setComment(col.name, col.comment)
	}
	return nil
}

// Ingest stores events in the named source; see storage.Engine. Nothing of
// a failed call is acknowledged; rows of it that some shard took before the
// failure stay there (docs/clickhouse.md says when a retry stores them
// twice).
func (e *Engine) Ingest(name string, events [][]byte) (accepted int, rejects []event.Reject, err error) {
	ctx := context.Background()
	src, err := e.source(ctx, name, true)
	if err != nil {
		return 0, nil, err
	}
	rows, cols, accepted, rejects, origin := src.shred(events, e.cfg.Now(), e.cfg.Retention)
	if len(rows) == 0 {
		return 0, rejects, nil
	}
	if err := src.commit(rows, cols); err != nil {
		return 0, nil, err
	}
	src.ingested.Add(int64(accepted))
	if r := e.feedIfUsed(); r != nil {
		r.Add(name, origin.Arrival, origin.Seed, events) // what this instance acknowledged (feed.go)
	}
	return accepted, rejects, nil
}

// shred turns events into rows under the source's tree, and lists every
// column those rows use.
func (s *source) shred(events [][]byte, arrival time.Time, retention time.Duration) (rows []row, cols []column, accepted int, rejects []event.Reject, o event.Origin) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o = event.Origin{Arrival: arrival.UnixMicro(), MaxAge: retention.Microseconds()}
	_, _ = rand.Read(o.Seed[:])
	size := 0
	for _, ev := range events {
		size += len(ev)
	}
	s.sink.reset(s.tree, size, len(events))
	before := s.tree.Fields()
	rows = make([]row, 0, len(events))
	for i, ev := range events {
		o.Index = uint64(i)
		first := len(s.sink.cur)
		ts, err := s.tree.Shred(ev, o, &s.sink)
		if err != nil {
			s.sink.cur = s.sink.cur[:first]
			rejects = append(rejects, event.RejectOf(i, err))
			continue
		}
		rows = append(rows, row{ts: ts, cells: s.sink.cur[first:len(s.sink.cur):len(s.sink.cur)]})
		accepted++
	}
	if s.tree.Fields() > before {
		s.sink.markNew(before)
	}
	cols = s.sink.columns()
	s.sink.cur, s.sink.text = nil, nil // the rows hold them now; an idle source keeps none
	o.Index = 0
	return rows, cols, accepted, rejects, o
}

// row is one event's cells, and its time (for partitioning inserts).
type row struct {
	ts    int64
	cells []cell
}

// cell is one column's value in a row, in TabSeparated form.
type cell struct {
	col int    // in the sink's column list; then in the insert's
	val []byte // in the request's text arena
}

// rowSink collects shredded values (an event.Sink) as cells of columns it
// numbers as it meets them. One request's cells share one slab and their
// text one arena, so that shredding allocates per request, not per value:
// a row's cells and text stay valid while later rows grow the slab and the
// arena (growing copies; it does not move what earlier rows hold).
type rowSink struct {
	tree  *event.Tree
	cols  []column
	nodes []*event.Node // each column's field
	byKey map[colKey]int
	cur   []cell // the request's cells, row after row
	text  []byte // the arena
}

type colKey struct {
	node int
	code byte
}

// reset readies the sink for a request of events, of size bytes in all.
func (w *rowSink) reset(t *event.Tree, size, events int) {
	w.tree, w.cols, w.nodes, w.byKey = t, nil, nil, map[colKey]int{}
	w.cur = make([]cell, 0, 32*events)
	w.text = make([]byte, 0, size)
}

// add appends a cell of column col whose text is the arena's from start.
func (w *rowSink) add(col, start int) {
	w.cur = append(w.cur, cell{col, w.text[start:len(w.text):len(w.text)]})
}

// markNew gives every field made by this request (IDs past before) that
// holds no value yet (only NULLs) a marker column, so that the fields it
// counts toward the cap, and their order, are in ClickHouse too.
func (w *rowSink) markNew(before int) {
	var walk func(n *event.Node)
	walk = func(n *event.Node) {
		for _, c := range n.Children {
			if c.ID > before && !c.Object && !c.Array && c.Kind == types.KindNull {
				w.col(c, codeNull)
			}
			walk(c)
		}
	}
	walk(w.tree.Root())
}

// columns lists the columns the rows use, each with its field's number
// (addColumns makes them in the order their fields were made); an array
// column's comment is its field's element type after the whole request
// (later events of it may have widened what earlier ones made).
func (w *rowSink) columns() []column {
	for i, n := range w.nodes {
		w.cols[i].node = n.ID
		if _, code, ok := splitColumn(w.cols[i].name); ok && code == codeArray {
			w.cols[i].comment = n.Elem.String()
		}
	}
	return w.cols
}

// col numbers the column of field n's kind code, making it on first use.
func (w *rowSink) col(n *event.Node, code byte) int {
	k := colKey{n.ID, code}
	if i, ok := w.byKey[k]; ok {
		return i
	}
	c := column{name: columnName(n.Path, code), typ: chType(code)}
	if n.Parent == w.tree.Root() {
		if kind, fixed := fixedColumns[n.Name]; fixed && (kind == types.KindTimestamp || kind == types.KindString) {
			c = column{name: n.Name, typ: map[string]string{"timestamp": "Int64", "id": "String", "event_message": "Nullable(String)"}[n.Name]}
		}
	}
	w.cols = append(w.cols, c)
	w.nodes = append(w.nodes, n)
	w.byKey[k] = len(w.cols) - 1
	return len(w.cols) - 1
}

func (w *rowSink) Int(n *event.Node, v int64) {
	start := len(w.text)
	w.text = strconv.AppendInt(w.text, v, 10)
	w.add(w.col(n, kindCode(n.Kind)), start)
}
func (w *rowSink) Float(n *event.Node, v float64) {
	start := len(w.text)
	w.text = strconv.AppendFloat(w.text, v, 'g', -1, 64)
	w.add(w.col(n, codeFloat), start)
}
func (w *rowSink) String(n *event.Node, s []byte) {
	start := len(w.text)
	w.text = appendEscaped(w.text, s, false)
	w.add(w.col(n, codeString), start)
}
func (w *rowSink) Array(n *event.Node, v types.Value) {
	start := len(w.text)
	w.text = appendEscaped(w.text, appendJSON(nil, v), false)
	w.add(w.col(n, codeArray), start)
}
func (w *rowSink) Present(n *event.Node) {
	start := len(w.text)
	w.text = append(w.text, '1')
	w.add(w.col(n, codeObject), start)
}

// insert is one group of requests' rows, inserted at once.
type insert struct {
	cols  []column
	idx   map[string]int
	rows  [][]cell // cells' col is an index of cols
	times []int64
	token uint64 // every row's insertColumn (retry.go)
	// deadline is its first request's (Config.InsertTimeout): the insert,
	// its retries and the wait before it end by then, so that no request
	// of it waits longer.
	deadline time.Time
	done     chan struct{}
	err      error
}

func newInsert(deadline time.Time) *insert {
	return &insert{idx: map[string]int{}, done: make(chan struct{}), deadline: deadline}
}

// add appends a request's rows, whose cells number the columns of cols,
// renumbering them (in place) as the insert's.
func (in *insert) add(rows []row, cols []column) {
	remap := make([]int, len(cols))
	for i, c := range cols {
		j, ok := in.idx[c.name]
		if !ok {
			j = len(in.cols)
			in.cols = append(in.cols, c)
			in.idx[c.name] = j
		}
		in.cols[j].comment = c.comment // the tree only widens: the later request's is wider
		remap[i] = j
	}
	for _, r := range rows {
		for k := range r.cells {
			r.cells[k].col = remap[r.cells[k].col]
		}
		in.rows = append(in.rows, r.cells)
		in.times = append(in.times, r.ts)
	}
}

// commit adds rows to the source's next insert and waits for its outcome.
func (s *source) commit(rows []row, cols []column) error {
	s.qmu.Lock()
	if s.pending == nil {
		s.pending = newInsert(time.Now().Add(s.e.cfg.InsertTimeout))
	}
	in := s.pending
	in.add(rows, cols)
	if !s.flusher {
		s.flusher = true
		go s.flushLoop()
	}
	s.qmu.Unlock()
	<-in.done
	return in.err
}

// flushLoop inserts the pending groups one at a time, starting at most one
// per linger, and ends when none is left. Requests arriving meanwhile join
// the next group. (Two inserts at once were measured slower: ClickHouse
// spends its time writing and merging parts, and smaller inserts make
// more of them.)
func (s *source) flushLoop() {
	for {
		s.qmu.Lock()
		wait := s.e.cfg.Linger - time.Since(s.lastFlush)
		s.qmu.Unlock()
		if wait > 0 {
			time.Sleep(wait)
		}
		s.qmu.Lock()
		in := s.pending
		s.pending = nil
		if in == nil {
			s.flusher = false
			s.qmu.Unlock()
			return
		}
		s.lastFlush = time.Now()
		s.qmu.Unlock()
		start := time.Now()
		in.err = s.flush(in)
		s.e.cfg.Logger.Debug("clickhouse insert", "source", s.name, "rows", len(in.rows), "duration_ms", time.Since(start).Milliseconds(), "err", in.err)
		close(in.done)
	}
}

// flush makes the columns an insert needs and inserts its rows, in parts
// of at most maxDaysPerInsert days (current servers refuse an insert that
// touches more than 100 partitions); on a cluster whose shards logq knows,
// each part's rows go to their shards' local tables at once (shards.go).
func (s *source) flush(in *insert) error {
	if wait := time.Until(in.deadline); wait <= 0 {
		// Behind inserts that retried: nothing of this one was sent.
		return fmt.Errorf("clickhouse: source %q: waited %v behind earlier inserts (--clickhouse-insert-timeout)", s.name, s.e.cfg.InsertTimeout)
	}
	shards, err := s.e.currentShards()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithDeadline(context.Background(), in.deadline)
	defer cancel()
	in.stamp()
	s.mu.Lock()
	err = s.e.addColumns(ctx, s.name, s.lay, in.cols)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	order := make([]int, len(in.rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return in.times[order[a]] < in.times[order[b]] })
	targets := []*client{s.e.server()}
	table, settings := s.e.table(s.name), map[string]string{}
	if shards != nil {
		targets, table = shards.servers, s.e.local(s.name)
	} else if s.e.cfg.Cluster != "" {
		settings["insert_distributed_sync"] = "1"
	}
	// Rows go straight into MergeTree tables unless through a Distributed
	// one, whose retry counts the rows through it (retry.go).
	distributed := shards == nil && s.e.cfg.Cluster != ""
	stmt := in.statement(table)
	bodies := make([]shardBody, len(targets))
	for start := 0; start < len(order); {
		end, days := start, map[int64]bool{}
		for end < len(order) {
			d := partition(in.times[order[end]])
			if !days[d] && len(days) == maxDaysPerInsert {
				break
			}
			days[d] = true
			end++
		}
		in.fill(bodies, order[start:end], shards)
		if err := s.insertBodies(ctx, targets, stmt, bodies, settings, in.token, distributed); err != nil {
			return fmt.Errorf("clickhouse: inserting into source %q: %w", s.name, err)
		}
		start = end
	}
	return nil
}

// statement is the INSERT of the insert's columns into table.
func (in *insert) statement(table string) string {
	names := make([]string, len(in.cols))
	for k, c := range in.cols {
		names[k] = ident(c.name)
	}
	return "INSERT INTO " + table + " (" + strings.Join(names, ", ") + ") FORMAT TabSeparated"
}

// fill writes the rows of order (in time order) into the bodies, each to
// its shard's (all to the first without shards).
func (in *insert) fill(bodies []shardBody, order []int, shards *shardSet) {
	blank := make([][]byte, len(in.cols)) // a column's text where a row has no cell
	for k, c := range in.cols {
		switch {
		case c.name == insertColumn:
			blank[k] = strconv.AppendUint(nil, in.token, 10)
		case c.typ == "UInt8":
			blank[k] = []byte("0") // an object the event lacks
		default:
			blank[k] = []byte(`\N`)
		}
	}
	for t := range bodies {
		bodies[t].reset()
	}
	line := make([][]byte, len(in.cols))
	for _, i := range order {
		copy(line, blank)
		for _, c := range in.rows[i] {
			line[c.col] = c.val
		}
		t := 0
		if shards != nil {
			t = shards.pick(in.times[i])
		}
		bodies[t].addRow(in.times[i], line)
	}
}

// partition is the table's partition of a row of time ts (its PARTITION
// BY: intDiv, which truncates, as Go's division does).
func partition(ts int64) int64 { return ts / microsPerDay }

const maxDaysPerInsert = 100
