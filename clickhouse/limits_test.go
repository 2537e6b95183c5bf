package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/exec"
)

// --query-memory bounds what ClickHouse may use for a query: past it, the
// query fails as a local one past its budget does (exec.KindResources,
// which the API answers 400 resourcesExceeded as locally), with logq's message, not
// ClickHouse's text.
func TestQueryMemoryBoundsClickHouse(t *testing.T) {
	cl := needCluster(t)
	ch := cl.engine(t, Config{QueryMemory: 64 << 10})
	_, _, err := ch.Ingest("src", numbered(0, 20000))
	require.NoError(t, err)
	q, err := exec.Prepare(`select msg, count(*) as n from src group by msg order by n desc, msg limit 5`)
	require.NoError(t, err)
	_, err = exec.Run(context.Background(), ch, q, exec.Request{Now: goldenNow})
	var xe *exec.Error
	require.True(t, errors.As(err, &xe), "%v", err)
	require.Equal(t, exec.KindResources, xe.Kind, "%v", err)
	require.NotContains(t, xe.Msg, "DB::Exception")
}

// Each ClickHouse failure maps to the exec error a local query would give.
func TestQueryErrorsMap(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind exec.Kind
	}{
		{&Error{Code: codeTimeout}, exec.KindDeadline},
		{&Error{Code: codeMemoryLimit}, exec.KindResources},
		{&Error{Code: codeResultTooLarge}, exec.KindResources},
		{&Error{Code: codeAllConnectFailed}, exec.KindUnavailable},
		{&Error{Code: codeNetwork}, exec.KindUnavailable},
		{&Error{Code: codeTooManyQueries}, exec.KindUnavailable},
		{&Error{Code: codeThrowIf}, exec.KindEvaluation},
		{&Error{Code: 62}, exec.KindInternal}, // a syntax error: logq wrote bad SQL
		{fmt.Errorf("dial tcp: connection refused"), exec.KindUnavailable},
	} {
		got := queryError(context.Background(), c.err)
		var xe *exec.Error
		require.True(t, errors.As(got, &xe))
		require.Equal(t, c.kind, xe.Kind, "%v", c.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	require.ErrorIs(t, queryError(ctx, errors.New("canceled")), context.DeadlineExceeded)
}
