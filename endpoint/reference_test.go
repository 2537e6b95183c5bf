package endpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sort"
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

type rawEvent struct {
	TS       time.Time
	ID       string
	Project  string
	Metadata map[string]any
}

func decode(t testing.TB, evs [][]byte) []rawEvent {
	out := make([]rawEvent, len(evs))
	for i, b := range evs {
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		ts, err := time.Parse(time.RFC3339Nano, m["timestamp"].(string))
		require.NoError(t, err)
		out[i].TS = ts
		out[i].ID, _ = m["id"].(string)
		out[i].Project, _ = m["project"].(string)
		out[i].Metadata, _ = m["metadata"].(map[string]any)
	}
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
	raw   map[string][]rawEvent
}

// build ingests the generated sources in random batch sizes.
func build(t testing.TB, spec fixtures.Spec, segRows int, seed uint64) dataset {
	st := logstore.New(logstore.Options{SegmentRows: segRows})
	raw := map[string][]rawEvent{}
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
	res, err := exec.Run(context.Background(), st, e.Query, exec.Request{Params: params, Now: refNow, MaxRows: e.MaxRows})
	require.NoError(t, err, "%s %v", e.Name, params)
	return res
}

func trunc(ts time.Time, width time.Duration) int64 {
	return types.TruncMicros(ts.UnixMicro(), partOf(width))
}

func partOf(w time.Duration) types.DatePart {
	switch w {
	case time.Second:
		return types.PartSecond
	case time.Minute:
		return types.PartMinute
	case time.Hour:
		return types.PartHour
	}
	return types.PartDay
}

func nearestRank(sorted []float64, i, n int) float64 {
	r := int(math.Ceil(float64(i) * float64(len(sorted)) / float64(n)))
	return sorted[max(r, 1)-1]
}

func refInvocationStats(ev []rawEvent, project, function, interval string) [][]any {
	width, span := time.Hour, 24*time.Hour
	switch interval {
	case "5min":
		width, span = time.Second, 5*time.Minute
	case "15min":
		width, span = time.Minute, 15*time.Minute
	case "1hr":
		width, span = time.Minute, time.Hour
	case "7day":
		width, span = 24*time.Hour, 7*24*time.Hour
	}
	start := trunc(refNow.Add(-span), width)
	type agg struct {
		vals []float64
		errs int64
	}
	buckets := map[int64]*agg{}
	for _, e := range ev {
		m := e.Metadata
		if m["project_ref"] != project || (function != "" && m["function_id"] != function) || e.TS.UnixMicro() < start {
			continue
		}
		b := trunc(e.TS, width)
		if buckets[b] == nil {
			buckets[b] = &agg{}
		}
		a := buckets[b]
		a.vals = append(a.vals, m["execution_time_ms"].(float64))
		if m["response"].(map[string]any)["status_code"].(float64) >= 400 {
			a.errs++
		}
	}
	var keys []int64
	for k := range buckets {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var out [][]any
	for _, k := range keys {
		a := buckets[k]
		sort.Float64s(a.vals)
		sum := 0.0
		for _, v := range a.vals {
			sum += v
		}
		out = append(out, []any{k, int64(a.vals[0]), int64(a.vals[len(a.vals)-1]), sum / float64(len(a.vals)),
			int64(nearestRank(a.vals, 95, 100)), int64(nearestRank(a.vals, 99, 100)), int64(len(a.vals)), a.errs})
	}
	return out
}

func refAPICounts(ev []rawEvent, project, interval string) [][]any {
	var start time.Time
	var width time.Duration
	switch interval {
	case "hourly":
		start, width = refNow.Add(-time.Hour), time.Hour
	case "daily":
		start, width = refNow.Add(-7*24*time.Hour), 24*time.Hour
	case "minutely":
		start, width = refNow.Add(-60*time.Minute), time.Minute
	default:
		return nil
	}
	re := regexp.MustCompile(project)
	counts := map[int64]*[4]int64{}
	for _, e := range ev {
		req := e.Metadata["request"].(map[string]any)
		if e.TS.Before(start) || !re.MatchString(req["url"].(string)) {
			continue
		}
		b := trunc(e.TS, width)
		if counts[b] == nil {
			counts[b] = &[4]int64{}
		}
		for i, p := range []string{"/rest", "/storage", "/auth", "/realtime"} {
			if strings.Contains(req["path"].(string), p) {
				counts[b][i]++
			}
		}
	}
	var keys []int64
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var out [][]any
	for _, k := range keys {
		c := counts[k]
		out = append(out, []any{types.FormatDatetime(k), c[0], c[1], c[2], c[3]})
	}
	return out
}

func refLogsAll(ev []rawEvent, project, tier, start, end string) []string {
	keep := map[string]time.Duration{"PRO": 7 * 24 * time.Hour, "PAYG": 90 * 24 * time.Hour, "ENTERPRISE": 90 * 24 * time.Hour}[tier]
	if keep == 0 {
		keep = 24 * time.Hour
	}
	cutoff := refNow.Add(-keep)
	var sel []rawEvent
	for _, e := range ev {
		if e.Project != project || e.TS.Before(cutoff) {
			continue
		}
		if start != "" {
			s, _ := time.Parse(time.RFC3339Nano, start)
			if !e.TS.After(s) {
				continue
			}
		}
		if end != "" {
			s, _ := time.Parse(time.RFC3339Nano, end)
			if e.TS.After(s) {
				continue
			}
		}
		sel = append(sel, e)
	}
	sort.SliceStable(sel, func(i, j int) bool { return sel[i].TS.After(sel[j].TS) })
	var ids []string
	for i := 0; i < len(sel) && i < 100; i++ {
		ids = append(ids, fmt.Sprintf("%d %s", sel[i].TS.UnixMicro(), sel[i].ID))
	}
	return ids
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

func TestEndpointsMatchReference(t *testing.T) {
	eps := loadBuiltins(t)
	ds := build(t, testSpec(), 1500, 1)
	relay, edge := ds.raw["deno-relay-logs"], ds.raw["cloudflare.logs.prod"]
	// Recent traffic for the short windows: the generator spreads events over
	// 7 days, so add a dense last few minutes for one project.
	recent := fixtures.DefaultSpec(3000, refNow.Add(-10*time.Second))
	recent.Span, recent.Seed, recent.Projects, recent.Functions = 20*time.Minute, 9, 2, 3
	for _, src := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
		evs := fixtures.Generate(recent, src)
		ds.store.Append(src, evs)
		ds.raw[src] = append(ds.raw[src], decode(t, evs)...)
	}
	relay, edge = ds.raw["deno-relay-logs"], ds.raw["cloudflare.logs.prod"]

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
			var got []string
			for _, r := range res.Rows {
				require.Equal(t, []string{"id", "timestamp", "event_message", "metadata"}, names(res))
				got = append(got, fmt.Sprintf("%d %s", r[1].I, r[0].S))
				require.Equal(t, types.KindArray, r[3].T.Kind)
				require.Len(t, r[3].L, 1, "metadata is an array of one record")
			}
			require.Equal(t, refLogsAll(edge, fixtures.ProjectRef(1), tier, bounds[0], bounds[1]), got, fmt.Sprint("logs.all ", p))
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
