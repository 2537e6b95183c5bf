package api

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// readAll gives the body whatever its length hint says: the hint only
// sizes the buffer. Past MaxBody it reads MaxBody+1 bytes (the caller
// answers 413).
func TestReadAllIgnoresAWrongLength(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 1000)
	for _, tc := range []struct {
		name   string
		length int64
	}{
		{"exact", int64(len(body))},
		{"unknown", -1},
		{"zero", 0},
		{"said shorter (or compressed)", 10},
		{"said longer", int64(len(body)) * 3},
		{"said past the limit", MaxBody + 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One byte per read, to cross every buffer boundary.
			got, err := readAll(io.LimitReader(&oneByte{bytes.NewReader(body)}, int64(len(body))), tc.length)
			require.NoError(t, err)
			require.Equal(t, body, got)
		})
	}
	big := bytes.Repeat([]byte("x"), MaxBody+100)
	got, err := readAll(bytes.NewReader(big), int64(len(big)))
	require.NoError(t, err)
	require.Len(t, got, MaxBody+1)
	got, err = readAll(bytes.NewReader(big), MaxBody)
	require.NoError(t, err)
	require.Len(t, got, MaxBody+1)
}

type oneByte struct{ r io.Reader }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}
