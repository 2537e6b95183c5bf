package logstore

// Sealing: a full open segment is retired (a read-only view stands in for
// it), sealed outside the source lock, written to its segment file, and
// swapped in.

// retire retires the open segment and, for a durable source, starts the WAL
// file of the next one. The retired segment is returned even on error; nil
// when a failed fsync's undoing left the open segment empty (it stays open).
// Called with mu held.
func (s *Source) retire() (*Segment, error) {
	if s.wal != nil {
		// What the segment holds must be durable before its file is
		// closed, and no more than its file holds: a failed fsync (this
		// one, or one since the segment last matched its file) cut the
		// file back, and the segment drops what the cut took. A rotation's
		// own fsync can then only fail with nothing in doubt.
		_ = s.wal.syncAll()
		if err := s.dropUndoneLocked(); err != nil {
			return nil, err // it may hold refused events: not into a file
		}
		if s.open.rows == 0 {
			return nil, nil // the undone writes were all it held: keep it open
		}
	}
	if s.wal == nil {
		return s.retireOpen(), nil
	}
	full := s.retireWithTree() // all durable now (synced above)
	err := s.wal.rotate(s.open.seq, s.base)
	s.wal.mu.Lock()
	s.walGen = s.wal.gen // the new file starts in the current generation
	s.wal.mu.Unlock()
	return full, err
}

// retireWithTree retires the open segment of a durable source with the
// field tree as of now, which becomes the base a rebuild starts from and
// the tree the segment's file carries. Called with mu held, when everything
// in the tree is durable.
func (s *Source) retireWithTree() *Segment {
	s.base = encodeTree(nil, s.tree) // a new slice: persist may hold the old one
	full := s.retireOpen()
	full.tree = s.base
	return full
}

// retireOpen replaces the open segment with a new one and returns the full
// one for sealing. Until it is sealed, snapshots read a view of it (the
// segment itself is touched by nobody else). Called with mu held.
func (s *Source) retireOpen() *Segment {
	full := s.open
	sealed := make([]*Segment, len(s.sealed), len(s.sealed)+1)
	copy(sealed, s.sealed)
	s.sealed = append(sealed, full.view())
	s.pending[full] = len(s.sealed) - 1
	s.open, s.openView = newSegment(), nil
	s.seq++
	s.open.seq = s.seq
	return full
}

// seal compresses a retired segment and swaps it in for its view; a durable
// source writes it to its segment file first and swaps in the file-backed
// form, whose columns the cache holds only while they are used.
func (s *Source) seal(full *Segment) {
	full.seal()
	final := full
	if s.wal != nil {
		final = s.persist(full)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pos, ok := s.pending[full]
	delete(s.pending, full)
	if !ok {
		return
	}
	// Retention may have dropped segments meanwhile: find the view by position
	// among the remaining ones.
	sealed := make([]*Segment, len(s.sealed))
	copy(sealed, s.sealed)
	for i := min(pos, len(sealed)-1); i >= 0; i-- {
		if sealed[i].retiredFrom == full {
			sealed[i] = final
			s.sealed = sealed
			if final.disk != nil && final.rows < s.opts.SegmentRows/2 {
				st := s.store
				st.bg.Add(1)
				go func() { defer st.bg.Done(); s.merge() }()
			}
			return
		}
	}
	// Dropped by retention while sealing: its files go too.
	if final.disk != nil {
		s.removeFiles(final)
	}
}

func (s *Source) sealOpen() error {
	if s.open.rows == 0 {
		return nil
	}
	full, err := s.retire()
	if full == nil {
		return err
	}
	s.mu.Unlock()
	s.seal(full)
	s.mu.Lock()
	return err
}
