package exec

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// Errors a query's own values cause are KindEvaluation (a 400), never
// KindInternal (a 500). Found by FuzzSandboxSQL.
func TestValueErrorsAreNotInternal(t *testing.T) {
	for _, c := range []struct {
		sql  string
		kind Kind
		msg  string
	}{
		{"select generate_timestamp_array('', '', interval 0 minute)", KindEvaluation, `"" is not a timestamp`},
		{"select generate_timestamp_array('x', '2024-01-02', interval 1 minute)", KindEvaluation, `"x" is not a timestamp`},
		{"select generate_timestamp_array('2024-01-01', '2024-01-02', interval 0 minute)", KindEvaluation, "step of a timestamp array must not be 0"},
	} {
		q, err := Prepare(c.sql)
		require.NoError(t, err, c.sql)
		_, err = Run(context.Background(), Local(logstore.New(logstore.Options{})), q, Request{})
		var e *Error
		require.True(t, errors.As(err, &e), "%s: %v", c.sql, err)
		require.Equal(t, c.kind, e.Kind, "%s: %v", c.sql, err)
		require.Contains(t, e.Msg, c.msg)
	}
}

// A segment file that cannot be read is KindUnavailable (the api's 503),
// with a message that names no server path; the error it wraps (which the
// server logs) does.
func TestStorageErrorsAreUnavailableWithoutPaths(t *testing.T) {
	se := &logstore.StorageError{File: "/var/lib/logq/sources/s/seg-1.lqs", Err: errors.New("checksum mismatch")}
	e := classify(fmt.Errorf("scan: %w", se))
	require.Equal(t, KindUnavailable, e.Kind)
	require.ErrorIs(t, e, se)
	require.NotContains(t, e.Msg, "/var/lib")
	require.NotContains(t, e.Msg, "seg-1")
	require.Contains(t, e.Unwrap().Error(), "seg-1.lqs")
}

// A panic in a query's worker goroutine comes back as the query's error,
// not a crash: KindInternal with its stack.
func TestPanicsInWorkersBecomeErrors(t *testing.T) {
	var e *Error
	err := safely(func() error { panic("boom") })
	require.True(t, errors.As(err, &e))
	require.Equal(t, KindInternal, e.Kind)
	require.Contains(t, e.Msg, "boom")
	require.NotEmpty(t, e.Stack)

	require.NoError(t, safely(func() error { return nil }))
}
