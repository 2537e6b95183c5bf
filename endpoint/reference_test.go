package endpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/exec"
	"logq/fixtures"
	"logq/logstore"
	"logq/types"
)

// The saved endpoints are checked against plainly written Go that applies the
// seed's rules (§4.2–4.4) straight to the raw events.

var refNow = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)

func decode(t testing.TB, evs [][]byte) []fixtures.Event {
	out, err := fixtures.Decode(evs)
	require.NoError(t, err)
	return out
}

func loadBuiltins(t testing.TB) map[string]*Endpoint {
	eps, err := LoadFS(fixtures.Endpoints, "endpoints")
	require.NoError(t, err)
	out := map[string]*Endpoint{}
	for _, e := range eps {
		out[e.Name] = e
	}
	require.Len(t, out, 3)
	return out
}

type dataset struct {
	store *logstore.Store
	raw   map[string][]fixtures.Event
}

// build ingests the generated sources in random batch sizes.
func build(t testing.TB, spec fixtures.Spec, segRows int, seed uint64) dataset {
	return buildInto(t, logstore.New(logstore.Options{SegmentRows: segRows}), spec, seed)
}

func buildInto(t testing.TB, st *logstore.Store, spec fixtures.Spec, seed uint64) dataset {
	raw := map[string][]fixtures.Event{}
	r := rand.New(rand.NewPCG(seed, 7))
	for _, src := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
		evs := fixtures.Generate(spec, src)
		for i := 0; i < len(evs); {
			n := min(1+r.IntN(700), len(evs)-i)
			ok, rej := st.Append(src, evs[i:i+n])
			require.Empty(t, rej)
			require.Equal(t, n, ok)
			i += n
		}
		raw[src] = decode(t, evs)
	}
	return dataset{store: st, raw: raw}
}

func run(t testing.TB, st *logstore.Store, e *Endpoint, params map[string]string) *exec.Result {
	res, err := exec.Run(context.Background(), exec.Local(st), e.Query, exec.Request{Params: params, Now: refNow, MaxRows: e.MaxRows})
	require.NoError(t, err, "%s %v", e.Name, params)
	return res
}

func refInvocationStats(ev []fixtures.Event, project, function, interval string) [][]any {
	var out [][]any
	for _, r := range fixtures.InvocationStats(ev, project, function, interval, refNow) {
		out = append(out, []any{r.Timestamp.UnixMicro(), r.Min, r.Max, r.Avg, r.P95, r.P99, r.Count, r.ErrorCount})
	}
	return out
}

func refAPICounts(ev []fixtures.Event, project, interval string) [][]any {
	var out [][]any
	for _, r := range fixtures.APICounts(ev, project, interval, refNow) {
		out = append(out, []any{types.FormatDatetime(r.Timestamp.UnixMicro()), r.Rest, r.Storage, r.Auth, r.Realtime})
	}
	return out
}

// refLogsAll is logs.all's rows as the reference computes them, each
// column in the comparison form of logsAllRow.
func refLogsAll(t *testing.T, ev []fixtures.Event, project, tier, start, end string) []string {
	var rows []string
	for _, e := range fixtures.LogsAll(ev, project, tier, start, end, refNow) {
		meta, err := json.Marshal(storedShape(e.Metadata))
		require.NoError(t, err)
		rows = append(rows, fmt.Sprintf("%s | %d | %s | %s", e.ID, e.TS.UnixMicro(), e.Message, meta))
	}
	return rows
}

// logsAllRow is a logs.all result row (id, timestamp, event_message,
// metadata) in the comparison form: metadata as canonical JSON of its
// non-NULL fields.
func logsAllRow(t *testing.T, r []types.Value) string {
	meta, err := json.Marshal(plainValue(r[3]))
	require.NoError(t, err)
	return fmt.Sprintf("%s | %d | %s | %s", r[0].S, r[1].I, r[2].S, meta)
}

// storedShape is a raw event's metadata in the shape logq stores it, as
// encoding/json decodes it: every object an array of one record (Logflare's
// convention), NULL members left out.
func storedShape(x any) any {
	switch v := x.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range v {
			if e != nil {
				m[k] = storedShape(e)
			}
		}
		return []any{m}
	case []any:
		out := []any{}
		for _, e := range v {
			out = append(out, storedShape(e))
		}
		return out
	}
	return x
}

// plainValue is a result value as encoding/json would decode its JSON, with
// a record's NULL fields left out (a record has every field of the source's
// schema, the raw event only its own).
func plainValue(v types.Value) any {
	if v.Null {
		return nil
	}
	switch v.T.Kind {
	case types.KindArray:
		out := []any{}
		for _, e := range v.L {
			out = append(out, plainValue(e))
		}
		return out
	case types.KindStruct:
		m := map[string]any{}
		for i, f := range v.L {
			if x := plainValue(f); x != nil {
				m[v.T.Fields[i].Name] = x
			}
		}
		return m
	case types.KindInt64:
		return float64(v.I)
	case types.KindFloat64:
		return v.F
	case types.KindBool:
		return v.I != 0
	case types.KindString:
		return v.S
	}
	return v.String()
}

func plainRows(res *exec.Result) [][]any {
	var out [][]any
	for _, r := range res.Rows {
		row := make([]any, len(r))
		for i, v := range r {
			switch v.T.Kind {
			case types.KindFloat64:
				row[i] = v.F
			case types.KindDatetime:
				row[i] = types.FormatDatetime(v.I)
			case types.KindString:
				row[i] = v.S
			default:
				row[i] = v.I
			}
		}
		out = append(out, row)
	}
	return out
}

func requireRowsEqual(t *testing.T, want, got [][]any, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(got), msg)
	for i := range want {
		for j := range want[i] {
			if f, ok := want[i][j].(float64); ok {
				require.InDelta(t, f, got[i][j].(float64), 1e-9*math.Max(1, math.Abs(f)), "%s row %d col %d", msg, i, j)
				continue
			}
			require.Equal(t, want[i][j], got[i][j], "%s row %d col %d", msg, i, j)
		}
	}
}

func testSpec() fixtures.Spec {
	s := fixtures.DefaultSpec(30000, refNow.Add(-2*time.Minute))
	s.Functions = 6
	s.Projects = 5
	return s
}

// The reference comparison holds for a store in memory, for one on a data
// directory, and for that directory reopened after a restart (sealed
// segments then read from their files, the open one replayed).
func TestEndpointsMatchReference(t *testing.T) {
	t.Run("in memory", func(t *testing.T) {
		checkEndpointsMatchReference(t, build(t, testSpec(), 1500, 1))
	})
	dir := t.TempDir()
	opts := logstore.Options{SegmentRows: 1500, CacheBytes: 4 << 20}
	st, err := logstore.Open(dir, opts)
	require.NoError(t, err)
	ds := buildInto(t, st, testSpec(), 1)
	t.Run("data directory", func(t *testing.T) { checkEndpointsMatchReference(t, ds) })
	require.NoError(t, st.Close())
	st, err = logstore.Open(dir, opts)
	require.NoError(t, err)
	defer st.Close()
	require.Positive(t, st.Recovery().Loaded)
	// The recent events the first run added are in the directory too.
	ds.store = st
	t.Run("data directory after restart", func(t *testing.T) { checkEndpointsMatchReference(t, ds, true) })
}

// checkEndpointsMatchReference adds recent traffic (unless it is already
// there) and compares every endpoint shape with the reference.
func checkEndpointsMatchReference(t *testing.T, ds dataset, recentLoaded ...bool) {
	eps := loadBuiltins(t)
	// Recent traffic for the short windows: the generator spreads events over
	// 7 days, so add a dense last few minutes for one project.
	recent := fixtures.DefaultSpec(3000, refNow.Add(-10*time.Second))
	recent.Span, recent.Seed, recent.Projects, recent.Functions = 20*time.Minute, 9, 2, 3
	raw := map[string][]fixtures.Event{}
	for _, src := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
		evs := fixtures.Generate(recent, src)
		if len(recentLoaded) == 0 {
			_, rej := ds.store.Append(src, evs)
			require.Empty(t, rej)
		}
		raw[src] = append(append([]fixtures.Event{}, ds.raw[src]...), decode(t, evs)...)
	}
	relay, edge := raw["deno-relay-logs"], raw["cloudflare.logs.prod"]

	inv := eps["functions.invocation-stats"]
	nonEmpty := 0
	for _, interval := range []string{"5min", "15min", "1hr", "1day", "7day", "fortnight"} {
		for _, project := range []string{fixtures.ProjectRef(0), fixtures.ProjectRef(1), "nobody"} {
			for _, fn := range []string{"", fixtures.FunctionID(1)} {
				p := map[string]string{"project": project, "interval": interval}
				if fn != "" {
					p["function_id"] = fn
				}
				want := refInvocationStats(relay, project, fn, interval)
				if len(want) > 0 {
					nonEmpty++
				}
				requireRowsEqual(t, want, plainRows(run(t, ds.store, inv, p)), fmt.Sprint("invocation-stats ", p))
			}
		}
	}
	require.Greater(t, nonEmpty, 20, "the data must exercise non-empty results")

	api := eps["usage.api-counts"]
	for _, interval := range []string{"hourly", "daily", "minutely", "weekly"} {
		for _, project := range []string{fixtures.ProjectRef(0), fixtures.ProjectRef(3), "proj0[12]ref", "nobody"} {
			p := map[string]string{"project": project, "interval": interval}
			requireRowsEqual(t, refAPICounts(edge, project, interval), plainRows(run(t, ds.store, api, p)), fmt.Sprint("api-counts ", p))
		}
	}

	all := eps["logs.all"]
	mid := refNow.Add(-30 * time.Hour).Format(time.RFC3339Nano)
	late := refNow.Add(-5 * time.Minute).Format(time.RFC3339Nano)
	for _, tier := range []string{"FREE", "PRO", "PAYG", "ENTERPRISE", "GOLD"} {
		for _, bounds := range [][2]string{{"", ""}, {mid, ""}, {"", late}, {mid, late}, {late, mid}} {
			p := map[string]string{"project": fixtures.ProjectRef(1), "project_tier": tier, "iso_timestamp_start": bounds[0], "iso_timestamp_end": bounds[1]}
			res := run(t, ds.store, all, p)
			require.Equal(t, []string{"id", "timestamp", "event_message", "metadata"}, names(res))
			var got []string
			for _, r := range res.Rows {
				got = append(got, logsAllRow(t, r)) // every column, metadata's contents included
			}
			require.Equal(t, refLogsAll(t, edge, fixtures.ProjectRef(1), tier, bounds[0], bounds[1]), got, fmt.Sprint("logs.all ", p))
		}
	}
}

func names(r *exec.Result) []string {
	var out []string
	for _, c := range r.Columns {
		out = append(out, c.Name)
	}
	return out
}

// The same events ingested in other batch sizes and segment sizes give the
// same rows, and the same SQL under another name gives the same rows.
func TestBatchBoundariesAndRenamedEndpoint(t *testing.T) {
	eps := loadBuiltins(t)
	a := build(t, testSpec(), 1500, 1)
	b := build(t, testSpec(), 4096, 2)
	renamed, err := Parse("other.yaml", []byte(strings.Replace(strings.Replace(mustRead(t, "functions.invocation-stats.yaml"),
		"name: functions.invocation-stats", "name: my.copy", 1), "0b1f5c76", "11111111", 1)))
	require.NoError(t, err)
	for _, interval := range []string{"1day", "7day"} {
		p := map[string]string{"project": fixtures.ProjectRef(0), "interval": interval}
		ra := plainRows(run(t, a.store, eps["functions.invocation-stats"], p))
		require.Equal(t, ra, plainRows(run(t, b.store, eps["functions.invocation-stats"], p)))
		require.Equal(t, ra, plainRows(run(t, a.store, renamed, p)))
	}
}

func mustRead(t *testing.T, name string) string {
	b, err := fixtures.Endpoints.ReadFile("endpoints/" + name)
	require.NoError(t, err)
	return string(b)
}
