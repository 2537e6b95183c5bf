package clickhouse

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/exec"
	"logq/exec/golden"
	"logq/logstore"
	"logq/types"
)

// Every golden case of exec (its query over its inputs, written with hand-
// computed answers) runs over the local store and over ClickHouse with the
// same events: the rows, columns and errors must be the same.

var goldenNow = time.Date(2024, 5, 1, 12, 30, 0, 0, time.UTC)

func readGolden(t *testing.T) []*golden.Case {
	cases, err := golden.All()
	require.NoError(t, err)
	return cases
}

// load stores a case's events in both engines, in requests of three.
func loadGolden(t *testing.T, c *golden.Case, local *logstore.Store, ch *Engine) {
	for _, src := range c.Sources {
		for evs := c.Inputs[src]; len(evs) > 0; {
			k := min(3, len(evs))
			_, lrej := local.Append(src, evs[:k])
			_, crej, err := ch.Ingest(src, evs[:k])
			require.NoError(t, err)
			require.Equal(t, lrej, crej, "%s: the same events refused", src)
			evs = evs[k:]
		}
	}
}

// TestGoldenCasesAgree runs every golden case of the executor over logq's
// store and over ClickHouse and requires the same answer.
//
// Under -race (CI's second run of this package) every fourth case is
// compared: the race detector makes each ~5× slower, which put this test
// past ten minutes at ~790 cases, while each case is one sequential
// comparison whose concurrency (the engine's inserts and reads) the sampled
// cases and the other tests here exercise. Every case runs without -race
// in the same CI (scripts/test).
func TestGoldenCasesAgree(t *testing.T) {
	cl := needCluster(t)
	for i, c := range readGolden(t) {
		if raceEnabled && i%4 != 0 {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			local := logstore.New(logstore.Options{SegmentRows: 3})
			ch := cl.engine(t, Config{})
			loadGolden(t, c, local, ch)
			compareEngines(t, c.Query, c.Params, goldenNow, local, ch)
		})
	}
}

// compareEngines runs sql over both engines and requires the same answer,
// the same rows in any order.
func compareEngines(t *testing.T, sql string, params map[string]string, now time.Time, local *logstore.Store, ch *Engine) {
	t.Helper()
	compare(t, sql, params, now, local, ch, false)
}

// compareEnginesOrdered requires the same rows in the same order.
// It returns the number of rows.
func compareEnginesOrdered(t *testing.T, sql string, params map[string]string, now time.Time, local *logstore.Store, ch *Engine) int {
	t.Helper()
	return compare(t, sql, params, now, local, ch, true)
}

func compare(t *testing.T, sql string, params map[string]string, now time.Time, local *logstore.Store, ch *Engine, ordered bool) int {
	t.Helper()
	q, err := exec.Prepare(sql)
	if err != nil {
		return 0 // a parse error: no engine is asked
	}
	req := exec.Request{Params: params, Now: now, MaxRows: 1000}
	want, werr := exec.Run(context.Background(), exec.Local(local), q, req)
	got, gerr := exec.Run(context.Background(), ch, q, req)
	if werr != nil || gerr != nil {
		require.Error(t, werr, "ClickHouse failed where the local store answered: %v", gerr)
		require.Error(t, gerr, "ClickHouse answered where the local store failed: %v", werr)
		we, ge := werr.(*exec.Error), gerr.(*exec.Error)
		require.Equal(t, we.Kind, ge.Kind, "local %v / clickhouse %v", werr, gerr)
		require.Equal(t, we.Msg, ge.Msg)
		return 0
	}
	require.Equal(t, want.Columns, got.Columns)
	require.Equal(t, rowSet(want, ordered), rowSet(got, ordered), "the same rows")
	return len(want.Rows)
}

// rowSet renders rows as text (sorted unless ordered), FLOAT64s to 12 significant digits
// (shards sum in another order).
func rowSet(r *exec.Result, ordered bool) []string {
	var out []string
	for _, row := range r.Rows {
		var cells []string
		for _, v := range row {
			cells = append(cells, cellText(v))
		}
		out = append(out, strings.Join(cells, " | "))
	}
	if !ordered {
		sort.Strings(out)
	}
	return out
}

func cellText(v types.Value) string {
	if !v.Null && v.T.Kind == types.KindFloat64 && !math.IsNaN(v.F) && !math.IsInf(v.F, 0) {
		return fmt.Sprintf("%.12g", v.F)
	}
	if !v.Null && (v.T.Kind == types.KindArray || v.T.Kind == types.KindStruct) {
		parts := make([]string, len(v.L))
		for i, e := range v.L {
			parts[i] = cellText(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return v.String()
}
