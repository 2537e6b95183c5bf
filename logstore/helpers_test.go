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
