package exec

import (
	"context"
	"errors"
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
		{"select generate_timestamp_array('2024-01-01', '2024-01-02', interval 0 minute)", KindEvaluation, "step of a timestamp array must be positive"},
	} {
		q, err := Prepare(c.sql)
		require.NoError(t, err, c.sql)
		_, err = Run(context.Background(), logstore.New(logstore.Options{}), q, Request{})
		var e *Error
		require.True(t, errors.As(err, &e), "%s: %v", c.sql, err)
		require.Equal(t, c.kind, e.Kind, "%s: %v", c.sql, err)
		require.Contains(t, e.Msg, c.msg)
	}
}
