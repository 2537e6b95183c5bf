package logstore

import (
	"logq/event"
	"logq/types"
)

// Events are shredded into fields by package event (event.Tree.Shred),
// which decides keys, types, widening and the field cap for every storage
// engine; segSink is where this engine puts the values: the open segment's
// columns, one per field.

// segSink writes one event's shredded values into the open segment, into
// row row. Its column lookups are by field id, for the segment and tree it
// was started with.
type segSink struct {
	seg  *Segment
	tree *event.Tree
	row  int
	cols []*Column // by event.Node.ID: the field's column in seg
}

// start points the sink at an open segment and the tree its events are
// shredded against, forgetting the columns of another segment.
func (w *segSink) start(seg *Segment, tree *event.Tree) {
	if w.seg != seg || w.tree != tree {
		w.seg, w.tree = seg, tree
		clear(w.cols)
		w.cols = w.cols[:0]
	}
}

// col returns field n's column in the open segment, made (its rows before
// this one NULL) or widened to kind k as needed.
func (w *segSink) col(n *event.Node, k types.Kind) *Column {
	if n.ID < len(w.cols) {
		if c := w.cols[n.ID]; c != nil {
			if c.kind != k {
				c.widen(k)
			}
			return c
		}
	} else {
		w.cols = append(w.cols, make([]*Column, n.ID+1-len(w.cols))...)
	}
	c := w.seg.column(n.Path, k)
	if c.kind != k {
		c.widen(k)
	}
	w.cols[n.ID] = c
	return c
}

func (w *segSink) Int(n *event.Node, v int64)     { w.col(n, n.Kind).appendInt(v) }
func (w *segSink) Float(n *event.Node, v float64) { w.col(n, n.Kind).appendFloat(v) }
func (w *segSink) String(n *event.Node, b []byte) { w.col(n, n.Kind).appendString(b) }
func (w *segSink) Array(n *event.Node, v types.Value) {
	w.col(n, types.KindArray).appendValue(v)
}

// Present marks an object present in this row: its column is BOOL.
func (w *segSink) Present(n *event.Node) { w.col(n, types.KindBool).appendInt(1) }

// newTree returns an empty field tree for the source, under its field cap.
func (s *Source) newTree() *event.Tree {
	t := event.NewTree(s.opts.MaxFields)
	t.OnOverflow = s.overflowed
	return t
}

// decodeTree reads a field tree (encodeTree) as the source's tree, under its
// field cap.
func (s *Source) decodeTree(b []byte) (*event.Tree, error) {
	decoded, err := decodeTree(b)
	if err != nil {
		return nil, err
	}
	t := s.newTree()
	t.Merge(decoded.Root())
	return t, nil
}

// overflowed logs, once per source, that it reached its field cap.
func (s *Source) overflowed(key []byte) {
	if s.warned {
		return
	}
	s.warned = true
	s.store.log().Warn("source reached its field cap: keys past it are kept as JSON in __overflow columns",
		"source", s.name, "max_fields", s.opts.MaxFields, "key", string(key))
}

// apply writes one chunk's events into the open segment; rejects are
// numbered from base. Called with mu held.
func (s *Source) apply(b *walBatch, base int) (accepted int, rejects []event.Reject) {
	seg := s.open
	s.sink.start(seg, s.tree)
	o := event.Origin{Arrival: b.arrival, Seed: b.seed, MaxAge: s.opts.Retention.Microseconds()}
	for i, ev := range b.events {
		o.Index = uint64(i)
		s.sink.row = seg.rows
		ts, err := s.tree.Shred(ev, o, &s.sink)
		if err != nil {
			seg.abandonRow()
			rejects = append(rejects, event.RejectOf(base+i, err))
			continue
		}
		seg.finishRow(ts)
		s.rows++
		seg.rawBytes += int64(len(ev))
		accepted++
	}
	s.events += int64(accepted)
	if s.wal == nil && accepted > 0 && !s.store.Durable() {
		// A store in memory acknowledges what it applied; its feed keeps
		// the recent chunks from the first ingest, so a tail from=start
		// reads what was ingested before it.
		s.store.memFeed().Add(s.name, b.arrival, b.seed, b.events)
	}
	return accepted, rejects
}
