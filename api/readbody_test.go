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
		name     string
		length   int64
		identity bool
	}{
		{"exact", int64(len(body)), true},
		{"unknown", -1, true},
		{"zero", 0, true},
		{"said shorter", 10, true},
		{"said longer", int64(len(body)) * 3, true},
		{"said past the limit", MaxBody + 10, true},
		{"compressed", int64(len(body)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One byte per read, to cross every buffer boundary.
			got, err := readAll(io.LimitReader(&oneByte{bytes.NewReader(body)}, int64(len(body))), tc.length, tc.identity)
			require.NoError(t, err)
			require.Equal(t, body, got)
		})
	}
	big := bytes.Repeat([]byte("x"), MaxBody+100)
	got, err := readAll(bytes.NewReader(big), int64(len(big)), true)
	require.NoError(t, err)
	require.Len(t, got, MaxBody+1)
	got, err = readAll(bytes.NewReader(big), MaxBody, true)
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
