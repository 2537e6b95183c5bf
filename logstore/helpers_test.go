package logstore

import (
	"logq/event"
	"logq/types"
)

// mustColumn is Segment.Column for tests over segments that can be read.
func mustColumn(seg *Segment, path string) *Column {
	c, err := seg.Column(path)
	if err != nil {
		panic(err)
	}
	return c
}

// mustValue is Segment.Value for tests over segments that can be read.
func mustValue(seg *Segment, f *event.Field, row int) types.Value {
	v, err := seg.Value(f, row)
	if err != nil {
		panic(err)
	}
	return v
}

// appendEach stores events in requests of at most n: as many requests do,
// and as the segments of tests that want several are made (a request goes
// whole into one segment).
func appendEach(st *Store, source string, evs [][]byte, n int) (accepted int) {
	for len(evs) > 0 {
		k := min(n, len(evs))
		a, _ := st.Append(source, evs[:k])
		accepted += a
		evs = evs[k:]
	}
	return accepted
}
