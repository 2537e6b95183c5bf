package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/endpoint"
	"logq/storage"
)

// readBack is a saved endpoint over one source, so what a client shipped
// can be queried back over HTTP and compared field by field.
func readBack(t *testing.T, source string) *endpoint.Endpoint {
	e, err := endpoint.Parse("readback.yaml", []byte(fmt.Sprintf(
		"id: 11111111-2222-4333-8444-%012d\nname: t.readback.%d\nquery: |\n  select timestamp, id, event_message, metadata from `%s` order by timestamp\n",
		len(source), len(source), source)))
	require.NoError(t, err)
	return e
}

type stored struct {
	Timestamp    int64            `json:"timestamp"`
	ID           string           `json:"id"`
	EventMessage *string          `json:"event_message"`
	Metadata     []map[string]any `json:"metadata"`
}

func queryBack(t *testing.T, h *harness, e *endpoint.Endpoint) []stored {
	r := h.get("/api/endpoints/query/" + e.Name)
	require.Equal(t, 200, r.code, string(r.body))
	var out struct{ Result []stored }
	require.NoError(t, json.Unmarshal(r.body, &out))
	return out.Result
}

func str(s string) *string { return &s }

// frames writes logplex's octet-counted framing, back to back.
func frames(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%d %s", len(l), l)
	}
	return b.String()
}

// The exact request shapes of real clients, each queried back.
func TestClientShapes(t *testing.T) {
	ms := time.Date(2026, 3, 14, 15, 0, 0, 123_000_000, time.UTC)
	cases := []struct {
		name, source, path string
		header             map[string]string
		body               string
		want               []stored
	}{
		{
			// pino-logflare: {"batch":[{message, timestamp (ms), metadata}]} to /logs?source=<uuid>.
			name: "pino-logflare", source: "pino.src", path: "/logs?source=" + storage.SourceUUID("pino.src"),
			body: fmt.Sprintf(`{"batch":[{"message":"user signed in","timestamp":%d,"metadata":{"level":"info","pid":42}}]}`, ms.UnixMilli()),
			want: []stored{{Timestamp: ms.UnixMicro(), EventMessage: str("user signed in"), Metadata: []map[string]any{{"level": "info", "pid": float64(42)}}}},
		},
		{
			// logflare-transport-core: {batch, source} posted to /logs.
			name: "logflare-transport-core", source: "core.src", path: "/logs",
			body: fmt.Sprintf(`{"batch":[{"message":"m1","metadata":{"level":"warn"},"timestamp":%d}],"source":%q}`, ms.UnixMilli(), storage.SourceUUID("core.src")),
			want: []stored{{Timestamp: ms.UnixMicro(), EventMessage: str("m1"), Metadata: []map[string]any{{"level": "warn"}}}},
		},
		{
			// loglayer: /logs/json?source=<uuid>, an array of events.
			name: "loglayer", source: "loglayer.src", path: "/logs/json?source=" + storage.SourceUUID("loglayer.src"),
			header: map[string]string{"X-API-KEY": testKey},
			body:   `[{"message":"from loglayer","metadata":{"level":"error","ctx":{"user":"u1"}},"timestamp":"2026-03-14T15:00:00.123Z"}]`,
			want:   []stored{{Timestamp: ms.UnixMicro(), EventMessage: str("from loglayer"), Metadata: []map[string]any{{"level": "error", "ctx": []any{map[string]any{"user": "u1"}}}}}},
		},
		{
			// pino-logflare's browser form: the text as log_entry.
			name: "browser log_entry", source: "browser.src", path: "/logs/json?source=" + storage.SourceUUID("browser.src"),
			body: `{"log_entry":"clicked","message":"ignored","event_message":"ignored too","metadata":{"url":"/x"},"timestamp":"2026-03-14T15:00:00.123Z"}`,
			want: []stored{{Timestamp: ms.UnixMicro(), EventMessage: str("clicked"), Metadata: []map[string]any{{"url": "/x"}}}},
		},
		{
			name: "syslog", source: "syslog.src", path: "/api/logs/syslogs?source_name=syslog.src",
			body: "<165>1 2026-03-14T15:00:00.123Z web-1 nginx 77 ID47 [ex@1 a=\"b\"] GET / 200\n",
			want: []stored{{Timestamp: ms.UnixMicro(), EventMessage: str("GET / 200"), Metadata: []map[string]any{{
				"priority": float64(165), "severity": "notice", "level": "notice", "facility": "local4", "hostname": "web-1",
				"appname": "nginx", "process_id": "77", "message_id": "ID47", "message_text": "GET / 200",
				"sd":          []any{map[string]any{"id": "ex@1", "a": "b"}},
				"message_raw": "<165>1 2026-03-14T15:00:00.123Z web-1 nginx 77 ID47 [ex@1 a=\"b\"] GET / 200"}}}},
		},
		{
			name: "logplex", source: "logplex.src", path: "/api/events/logplex?source_name=logplex.src",
			body: frames("<40>1 2026-03-14T15:00:00.123Z host app web.3 - State changed from up to down",
				"<190>1 2026-03-14T15:00:01.123Z host app web.4 - second"),
			// 40 = facility 5 (Logflare's "syslogd") + 0; 190 = 23 (local7) + 6.
			want: []stored{{Timestamp: ms.UnixMicro(), EventMessage: str("State changed from up to down"), Metadata: []map[string]any{{
				"priority": float64(40), "severity": "emergency", "level": "emergency", "facility": "syslogd", "hostname": "host",
				"appname": "app", "process_id": "web.3", "message_text": "State changed from up to down",
				"message_raw": "<40>1 2026-03-14T15:00:00.123Z host app web.3 - State changed from up to down"}}},
				{Timestamp: ms.Add(time.Second).UnixMicro(), EventMessage: str("second"), Metadata: []map[string]any{{
					"priority": float64(190), "severity": "info", "level": "info", "facility": "local7", "hostname": "host",
					"appname": "app", "process_id": "web.4", "message_text": "second",
					"message_raw": "<190>1 2026-03-14T15:00:01.123Z host app web.4 - second"}}}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := readBack(t, c.source)
			h := newHarness(t, func(cfg *Config) { cfg.Endpoints = append(cfg.Endpoints, e) })
			// A source addressed by UUID must exist: create it by name first.
			require.Equal(t, 200, h.ingest(c.source, []byte(`[]`), nil).code)
			hdr := map[string]string{"X-API-KEY": testKey, "Content-Type": "application/json"}
			for k, v := range c.header {
				hdr[k] = v
			}
			r := h.do(http.MethodPost, c.path, strings.NewReader(c.body), hdr)
			require.Equal(t, 200, r.code, string(r.body))
			require.JSONEq(t, `{"message":"Logged!"}`, string(r.body))
			got := queryBack(t, h, e)
			require.Len(t, got, len(c.want))
			for i := range got {
				if c.want[i].ID == "" {
					require.Len(t, got[i].ID, 36, "a new UUID")
					got[i].ID = ""
				}
			}
			require.Equal(t, c.want, got)
		})
	}
}

// Partial acceptance: in every form, good events are stored and the bad
// ones listed in a 406; only a body that is not in the form at all is 400.
func TestPartialAcceptance(t *testing.T) {
	e := readBack(t, "p.src")
	h := newHarness(t, func(cfg *Config) { cfg.Endpoints = append(cfg.Endpoints, e) })
	hdr := map[string]string{"X-API-KEY": testKey}
	for _, c := range []struct {
		name, path, body string
		code             int
		refused          []string
		stored           int // events of p.src after this request
	}{
		{"ndjson with a bad line", "/api/logs?source_name=p.src", "{\"event_message\":\"a\"}\n{\"event_message\": oops}\n[1]\n{\"event_message\":\"b\"}\n",
			406, []string{"event 1: line 2: invalid JSON", "event 2: line 3: an event must be a JSON object"}, 2},
		{"array with a non-object", "/logs/json?source_name=p.src", `[{"event_message":"c"}, 7]`, 406, []string{"event 1: an event must be a JSON object"}, 3},
		{"syslog with a bad line", "/logs/syslogs?source_name=p.src", "<14>1 2026-03-14T15:00:00Z h a - - - ok\nnot syslog\n", 406, []string{"event 1: a syslog line starts with <PRI>"}, 4},
		{"cloud events with a non-object", "/logs/cloud-event?source_name=p.src", `[{"specversion":"1.0","id":"x1","type":"t"},7]`, 406, []string{"event 1: an event must be a JSON object"}, 5},
		{"batch with a non-object", "/api/logs?source_name=p.src", `{"batch":[{"event_message":"d"},"e"]}`, 406, []string{"event 1: an event must be a JSON object"}, 6},
		{"cloudflare ndjson with a bad line", "/logs/cloudflare?source_name=p.src", "{\"event_message\":\"f\"}\n{oops\n", 406, []string{"event 1: line 2: invalid JSON"}, 7},
		{"logplex with a bad frame", "/logs/logplex?source_name=p.src", frames("<14>1 2026-03-14T15:00:00Z h a - - - g", "not syslog"), 406, []string{"event 1: a syslog line starts with <PRI>"}, 8},
		{"ndjson of JSON values that are not objects", "/api/logs?source_name=p.src", "1\n\"two\"\n", 406,
			[]string{"event 0: line 1: an event must be a JSON object", "event 1: line 2: an event must be a JSON object"}, 8},
		{"one JSON value that is not an object", "/api/logs?source_name=p.src", "42", 406, []string{"event 0: line 1: an event must be a JSON object"}, 8},
		{"not JSON at all", "/api/logs?source_name=p.src", "hello\nworld\n", 400, nil, 8},
		{"truncated array", "/api/logs?source_name=p.src", `[{"event_message":"x"}`, 400, nil, 8},
		{"not syslog at all", "/logs/syslogs?source_name=p.src", "hello\n", 400, nil, 8},
	} {
		r := h.do(http.MethodPost, c.path, strings.NewReader(c.body), hdr)
		require.Equal(t, c.code, r.code, "%s: %s", c.name, r.body)
		if c.code == 406 {
			var m struct{ Message []string }
			require.NoError(t, json.Unmarshal(r.body, &m))
			require.Len(t, m.Message, len(c.refused), c.name)
			for i, want := range c.refused {
				require.True(t, strings.HasPrefix(m.Message[i], want), "%s: %q", c.name, m.Message[i])
			}
		} else {
			requireError(t, r, 400, "INVALID_ARGUMENT", "")
		}
		require.Len(t, queryBack(t, h, e), c.stored, c.name)
	}
}

func TestIngestSourceChecks(t *testing.T) {
	h := newHarness(t, nil)
	hdr := map[string]string{"X-API-KEY": testKey}
	unknown := "0b1f5c76-0000-4f0e-9a51-5a1f3c2d8e01"
	r := h.do(http.MethodPost, "/api/logs?source="+unknown, strings.NewReader(`[{}]`), hdr)
	requireError(t, r, 404, "NOT_FOUND", "source")
	require.Contains(t, string(r.body), unknown)
	r = h.do(http.MethodPost, "/logs/json", strings.NewReader(`[{}]`), map[string]string{"X-API-KEY": testKey, "X-Source": unknown})
	requireError(t, r, 404, "NOT_FOUND", "source")
	// A name where a UUID belongs is refused, not made a new source.
	r = h.do(http.MethodPost, "/api/logs?source=not-a-uuid", strings.NewReader(`[{}]`), hdr)
	requireError(t, r, 400, "INVALID_ARGUMENT", "source")
	require.Contains(t, string(r.body), "source_name")
	r = h.do(http.MethodPost, "/logs/json", strings.NewReader(`[{}]`), map[string]string{"X-API-KEY": testKey, "X-Source": "not-a-uuid"})
	requireError(t, r, 400, "INVALID_ARGUMENT", "X-Source")
	for _, s := range h.srv.store.Stats() {
		require.NotEqual(t, "not-a-uuid", s.Name)
	}
	for _, bad := range []string{strings.Repeat("n", MaxSourceName+1), "tab\there", "nul\x00", "bell\a", " ", " padded"} {
		r := h.do(http.MethodPost, "/api/logs?source_name="+url.QueryEscape(bad), strings.NewReader(`[{}]`), hdr)
		requireError(t, r, 400, "INVALID_ARGUMENT", "source_name")
	}
	require.Equal(t, 200, h.do(http.MethodPost, "/api/logs?source_name="+url.QueryEscape("ok.name-ünïcode 1"), strings.NewReader(`[{}]`), hdr).code)
	// Logflare's collection aliases name the same sources.
	require.Equal(t, 200, h.do(http.MethodPost, "/api/logs?collection_name=coll", strings.NewReader(`[{"event_message":"a"}]`), hdr).code)
	require.Equal(t, 200, h.do(http.MethodPost, "/api/logs?collection="+storage.SourceUUID("coll"), strings.NewReader(`[{"event_message":"b"}]`), hdr).code)
	require.Equal(t, 200, h.do(http.MethodPost, "/api/logs", strings.NewReader(`[{"event_message":"c"}]`),
		map[string]string{"X-API-KEY": testKey, "X-Collection": storage.SourceUUID("coll")}).code)
	r = h.do(http.MethodPost, "/api/logs?collection="+unknown, strings.NewReader(`[{}]`), hdr)
	requireError(t, r, 404, "NOT_FOUND", "source")
	var events int
	for _, s := range h.srv.store.Stats() {
		if s.Name == "coll" {
			events = s.Events
		}
	}
	require.Equal(t, 3, events)
	// Every suffix answers under every prefix.
	for _, p := range ingestPrefixes {
		for _, sfx := range []string{"", "/json", "/vector", "/cloudflare"} {
			r := h.do(http.MethodPost, p+sfx+"?source_name=every", strings.NewReader(`{"event_message":"x"}`), hdr)
			require.Equal(t, 200, r.code, p+sfx)
		}
	}
}

// A browser's Reporting API post (application/reports+json) under each
// prefix's /browser/reports: each report an event, the report as metadata
// and its JSON as the message (Logflare's BrowserReport; its message is
// Elixir's inspect of the map, which logq does not imitate). A report that
// is not an object is refused by index, the others kept (406).
func TestBrowserReports(t *testing.T) {
	e := readBack(t, "browser.src")
	h := newHarness(t, func(cfg *Config) { cfg.Endpoints = append(cfg.Endpoints, e) })
	body := `[{"type":"csp-violation","age":10,"url":"https://a.example/","user_agent":"UA","body":{"blockedURL":"https://evil.example/x.js","disposition":"enforce"}},` +
		`{"type":"deprecation","age":0,"url":"https://a.example/p","body":{"id":"old-api"}},` +
		`"not a report"]`
	r := h.do(http.MethodPost, "/api/logs/browser/reports?source_name=browser.src", strings.NewReader(body),
		map[string]string{"X-API-KEY": testKey, "Content-Type": "application/reports+json"})
	require.Equal(t, 406, r.code, string(r.body))
	require.Contains(t, string(r.body), "event 2: a report must be a JSON object")
	got := queryBack(t, h, e)
	require.Len(t, got, 2)
	byType := map[string]stored{}
	for _, g := range got {
		byType[g.Metadata[0]["type"].(string)] = g
	}
	csp := byType["csp-violation"]
	require.Equal(t, `{"type":"csp-violation","age":10,"url":"https://a.example/","user_agent":"UA","body":{"blockedURL":"https://evil.example/x.js","disposition":"enforce"}}`, *csp.EventMessage)
	require.Equal(t, "https://a.example/", csp.Metadata[0]["url"])
	require.Equal(t, float64(10), csp.Metadata[0]["age"])
	// body's fields are the union over the source's reports: the other's id is NULL here.
	require.Equal(t, []any{map[string]any{"blockedURL": "https://evil.example/x.js", "disposition": "enforce", "id": nil}}, csp.Metadata[0]["body"])
	require.Equal(t, "https://a.example/p", byType["deprecation"].Metadata[0]["url"])
	// A CSP report-uri post: one object.
	r = h.do(http.MethodPost, "/logs/browser/reports?source_name=browser.src", strings.NewReader(`{"csp-report":{"document-uri":"https://a.example/","violated-directive":"script-src"}}`),
		map[string]string{"X-API-KEY": testKey, "Content-Type": "application/csp-report"})
	require.Equal(t, 200, r.code, string(r.body))
	requireError(t, h.do(http.MethodPost, "/api/events/browser/reports?source_name=browser.src", strings.NewReader("nope"),
		map[string]string{"X-API-KEY": testKey}), 400, "INVALID_ARGUMENT", "")
}

// /cloud-event as Logflare's controller stores it: the body's events keep
// their keys; the ce-* headers become the top-level cloud_event object
// (named without "ce-", "-" as "_") and are added to metadata beside its
// own keys; the timestamp is ce-time, else the time of ingest, never the
// body's own.
func TestCloudEventAsLogflare(t *testing.T) {
	e, err := endpoint.Parse("ce.yaml", []byte("id: 11111111-2222-4333-8444-000000000ce1\nname: t.ce\nquery: |\n"+
		"  select timestamp, id, event_message, metadata, cloud_event, specversion from `ce.src` order by timestamp, id\n"))
	require.NoError(t, err)
	h := newHarness(t, func(cfg *Config) { cfg.Endpoints = append(cfg.Endpoints, e) })
	hdr := map[string]string{"X-API-KEY": testKey, "Content-Type": "application/json",
		"Ce-Specversion": "1.0", "Ce-Id": "ev-2", "Ce-Source": "/svc", "Ce-Type": "t", "Ce-Time": "2026-03-14T15:00:00.123Z", "Ce-Foo-Foo": "bar"}
	body := `{"message":"hello","id":"body-id","timestamp":"2020-01-01T00:00:00Z","metadata":{"type":"mine"}}`
	r := h.do(http.MethodPost, "/logs/cloud-event?source_name=ce.src", strings.NewReader(body), hdr)
	require.Equal(t, 200, r.code, string(r.body))

	before := time.Now()
	r = h.do(http.MethodPost, "/api/events/cloud-event?source_name=ce.src", strings.NewReader(
		`[{"specversion":"1.0","type":"x","event_message":"one","timestamp":"2020-01-01T00:00:00Z"},{"event_message":"two"}]`),
		map[string]string{"X-API-KEY": testKey, "Ce-Type": "batch"})
	require.Equal(t, 200, r.code, string(r.body))
	after := time.Now()

	var out struct {
		Result []struct {
			stored
			CloudEvent  []map[string]any `json:"cloud_event"`
			Specversion *string          `json:"specversion"`
		}
	}
	q := h.get("/api/endpoints/query/t.ce")
	require.Equal(t, 200, q.code, string(q.body))
	require.NoError(t, json.Unmarshal(q.body, &out))
	require.Len(t, out.Result, 3)

	bin := out.Result[0]
	require.Equal(t, time.Date(2026, 3, 14, 15, 0, 0, 123e6, time.UTC).UnixMicro(), bin.Timestamp, "ce-time, not the body's timestamp")
	require.Equal(t, "body-id", bin.ID)
	require.Equal(t, "hello", *bin.EventMessage)
	require.Equal(t, []map[string]any{{"specversion": "1.0", "id": "ev-2", "source": "/svc", "type": "t", "time": "2026-03-14T15:00:00.123Z", "foo_foo": "bar"}}, bin.CloudEvent)
	require.Equal(t, []map[string]any{{"type": "mine", "specversion": "1.0", "id": "ev-2", "source": "/svc", "time": "2026-03-14T15:00:00.123Z", "foo_foo": "bar"}}, bin.Metadata)
	require.Nil(t, bin.Specversion)

	// The batch's two events may share the time of ingest, to the
	// microsecond: then the query's ORDER BY timestamp, id orders them by
	// their random ids. Compare them as a set.
	rest := out.Result[1:]
	sort.Slice(rest, func(i, j int) bool { return *rest[i].EventMessage < *rest[j].EventMessage })
	for k, want := range []string{"one", "two"} {
		ev := rest[k]
		require.Equal(t, want, *ev.EventMessage)
		require.True(t, ev.Timestamp >= before.Truncate(time.Microsecond).UnixMicro() && ev.Timestamp <= after.UnixMicro(), "no ce-time: the time of ingest")
		// Fields other events of the source have read NULL here.
		require.Equal(t, []map[string]any{{"type": "batch"}}, nonNull(ev.CloudEvent))
		require.Equal(t, []map[string]any{{"type": "batch"}}, nonNull(ev.Metadata))
	}
	require.Equal(t, "1.0", *out.Result[1].Specversion, "a structured CloudEvent's attributes stay top-level keys")
}

// nonNull drops the NULL fields of nested records read back.
func nonNull(recs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		m := map[string]any{}
		for k, v := range r {
			if v != nil {
				m[k] = v
			}
		}
		out = append(out, m)
	}
	return out
}
