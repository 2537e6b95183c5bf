package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/drain"
	"logq/logstore"
)

const (
	privateToken = "private-token"
	publicToken  = "public-token"
)

// manageHarness is a server with drains, the private token (admin) and the
// public one (ingest and query), as self-hosted Supabase configures them.
func manageHarness(t *testing.T) *harness {
	var m *drain.Manager
	h := newHarness(t, func(c *Config) {
		c.Keys = []Key{{Value: privateToken, Scopes: ScopeAll}, {Value: publicToken, Scopes: ScopeIngest | ScopeQuery}, {Value: testKey, Scopes: ScopeAll}}
		st := c.Backend.(localBackend).Store
		var err error
		m, err = drain.New(drain.Options{Store: &drain.MemoryStore{}, Feed: st, Sources: st.Names, BatchWait: 20 * time.Millisecond})
		require.NoError(t, err)
		c.Drains = m
	})
	t.Cleanup(m.Close)
	return h
}

// studio sends a request the way Studio's server routes do: Bearer the
// private token, JSON both ways.
func (h *harness) studio(method, path string, body any) reply {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(h.t, err)
		rd = bytes.NewReader(b)
	}
	return h.do(method, path, rd, map[string]string{"Authorization": "Bearer " + privateToken,
		"Content-Type": "application/json", "Accept": "application/json"})
}

// studioSources are the source names Studio makes rules for.
var studioSources = []string{"cloudflare.logs.prod", "deno-relay-logs", "deno-subhosting-events", "gotrue.logs.prod",
	"pgbouncer.logs.prod", "postgrest.logs.prod", "postgres.logs", "realtime.logs.prod", "storage.logs.prod.2"}

// hookReceiver decodes a webhook drain's requests on its own and keeps the
// event messages that arrived.
type hookReceiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	msgs []string
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var rd io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			require.NoError(t, err)
			rd = zr
		}
		var evs []map[string]any
		require.NoError(t, json.NewDecoder(rd).Decode(&evs))
		r.mu.Lock()
		for _, e := range evs {
			r.msgs = append(r.msgs, fmt.Sprint(e["event_message"]))
		}
		r.mu.Unlock()
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hookReceiver) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}

// Supabase Studio's Log Drains page, call by call (log-drains.ts and
// log-drains/[uuid].ts): list, create (a backend, the sources, one rule per
// Supabase source), edit, delete; and the drain delivers meanwhile.
func TestStudioLogDrainCalls(t *testing.T) {
	h := manageHarness(t)
	for _, src := range append(studioSources, "my.other.source") {
		require.Equal(t, 200, h.ingest(src, []byte(`[{"event_message":"before"}]`), nil).code)
	}
	// The page lists the drains: a bare array, empty.
	r := h.studio("GET", "/api/backends?metadata%5Btype%5D=log-drain", nil)
	require.Equal(t, 200, r.code, string(r.body))
	require.JSONEq(t, `[]`, string(r.body))

	// Create: the backend…
	rc := newHookReceiver(t)
	r = h.studio("POST", "/api/backends", map[string]any{"name": "My drain", "description": "", "type": "webhook",
		"config": map[string]any{"url": rc.srv.URL + "/hook", "http": "http2", "gzip": true,
			"headers": map[string]string{"Content-Type": "application/json", "Authorization": "Bearer s3cret"}},
		"metadata": map[string]any{"type": "log-drain"}})
	require.Equal(t, 201, r.code, string(r.body))
	var b map[string]any
	require.NoError(t, json.Unmarshal(r.body, &b))
	id := b["id"].(float64)
	token := b["token"].(string)
	require.Equal(t, "My drain", b["name"])
	require.Nil(t, b["description"], "an empty description is null, as Logflare stores it")
	require.Equal(t, "webhook", b["type"])
	require.Equal(t, map[string]any{"type": "log-drain"}, b["metadata"])
	cfg := b["config"].(map[string]any)
	require.Equal(t, rc.srv.URL+"/hook", cfg["url"])
	require.Equal(t, "REDACTED", cfg["headers"].(map[string]any)["authorization"], "secrets are never shown")
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$`, b["inserted_at"])
	// …the sources (a bare array: Studio checks Array.isArray)…
	r = h.studio("GET", "/api/sources", nil)
	require.Equal(t, 200, r.code)
	var sources []map[string]any
	require.NoError(t, json.Unmarshal(r.body, &sources))
	// …and one rule per Supabase source, lql_string ~".*?".
	made := 0
	for _, s := range sources {
		name := strings.ToLower(s["name"].(string))
		if !containsString(studioSources, name) {
			continue
		}
		r = h.studio("POST", "/api/rules", map[string]any{"backend_id": id, "lql_string": `~".*?"`, "source_id": s["id"]})
		require.Equal(t, 201, r.code, string(r.body))
		var rule map[string]any
		require.NoError(t, json.Unmarshal(r.body, &rule))
		require.Equal(t, id, rule["backend_id"])
		require.Equal(t, s["id"], rule["source_id"])
		require.Equal(t, `~".*?"`, rule["lql_string"])
		require.NotEmpty(t, rule["token"])
		made++
	}
	require.Equal(t, 9, made)

	// The list shows it; another metadata does not.
	r = h.studio("GET", "/api/backends?metadata%5Btype%5D=log-drain", nil)
	var list []map[string]any
	require.NoError(t, json.Unmarshal(r.body, &list))
	require.Len(t, list, 1)
	require.Equal(t, token, list[0]["token"])
	r = h.studio("GET", "/api/backends?metadata%5Btype%5D=other", nil)
	require.JSONEq(t, `[]`, string(r.body))
	r = h.studio("GET", "/api/rules?backend_id="+fmt.Sprint(int64(id)), nil)
	require.NoError(t, json.Unmarshal(r.body, &list))
	require.Len(t, list, 9)

	// Events of the Supabase sources reach the drain; the other source's do not.
	for _, src := range []string{"postgres.logs", "my.other.source", "gotrue.logs.prod"} {
		require.Equal(t, 200, h.ingest(src, []byte(fmt.Sprintf(`[{"event_message":"after %s"}]`, src)), nil).code)
	}
	waitUntil(t, func() bool { return len(rc.got()) == 2 })
	require.ElementsMatch(t, []string{"after postgres.logs", "after gotrue.logs.prod"}, rc.got())

	// Edit: Studio sends the form back, secrets as shown ("REDACTED"), and
	// reads a JSON body (PUT answers 200 with the backend).
	cfg["headers"].(map[string]any)["x-extra"] = "1"
	r = h.studio("PUT", "/api/backends/"+token, map[string]any{"name": "Renamed", "description": "d", "type": "webhook", "config": cfg})
	require.Equal(t, 200, r.code, string(r.body))
	require.NoError(t, json.Unmarshal(r.body, &b))
	require.Equal(t, "Renamed", b["name"])
	require.Equal(t, "d", b["description"])
	r = h.studio("GET", "/api/backends/"+token, nil)
	require.Equal(t, 200, r.code)
	// The stored secret was kept: a request shows it reaching the receiver.
	rc2 := newHeaderReceiver(t)
	r = h.studio("PUT", "/api/backends/"+token, map[string]any{"config": map[string]any{"url": rc2.srv.URL,
		"headers": map[string]any{"authorization": "REDACTED"}}})
	require.Equal(t, 200, r.code, string(r.body))
	r = h.studio("POST", "/api/backends/"+token+"/test", nil)
	require.Equal(t, 200, r.code, string(r.body))
	require.JSONEq(t, `{"connected?": true}`, string(r.body))
	require.Equal(t, "Bearer s3cret", rc2.last(), "REDACTED sent back kept the stored secret")
	// PATCH answers 204.
	r = h.studio("PATCH", "/api/backends/"+token, map[string]any{"description": "patched"})
	require.Equal(t, 204, r.code, string(r.body))

	// Delete: 204, its rules go with it, and it is gone.
	r = h.studio("DELETE", "/api/backends/"+token, nil)
	require.Equal(t, 204, r.code)
	require.Equal(t, 404, h.studio("GET", "/api/backends/"+token, nil).code)
	r = h.studio("GET", "/api/rules", nil)
	require.JSONEq(t, `[]`, string(r.body))
}

// headerReceiver answers 200 and keeps the last Authorization header.
type headerReceiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	auth string
}

func newHeaderReceiver(t *testing.T) *headerReceiver {
	r := &headerReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.auth = req.Header.Get("Authorization")
		r.mu.Unlock()
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *headerReceiver) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.auth
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "timed out")
		time.Sleep(10 * time.Millisecond)
	}
}

// Bad input gets Logflare's statuses, never a 500.
func TestManagementRefusals(t *testing.T) {
	h := manageHarness(t)
	require.Equal(t, 200, h.ingest("src", []byte(`[{"event_message":"x"}]`), nil).code)
	for _, c := range []struct {
		method, path, body string
		code               int
		want               string // a substring of the answer
	}{
		{"POST", "/api/backends", `{}`, 422, `"name":["can't be blank"]`},
		{"POST", "/api/backends", `{}`, 422, `"config":["can't be blank"]`},
		{"POST", "/api/backends", `{"name":123,"type":"webhook","config":{}}`, 422, `"name":["is invalid"]`},
		{"POST", "/api/backends", `{"name":"x","type":"sentry","config":{"dsn":"https://x"}}`, 422, `"type":["is invalid`},
		{"POST", "/api/backends", `{"name":"x","type":"webhook","config":{}}`, 422, `"config.url":[`},
		{"POST", "/api/backends", `{"name":"x","type":"webhook","config":{"url":"ftp://x"}}`, 422, `"config.url":[`},
		{"POST", "/api/backends", `{"name":"x","type":"datadog","config":{"api_key":"k","region":"MARS"}}`, 422, `"config.region":[`},
		{"POST", "/api/backends", `{"name":"x","type":"loki","config":{"url":"http://l","username":"u"}}`, 422, `"config.`},
		{"POST", "/api/backends", `not json`, 400, `must be JSON`},
		{"GET", "/api/backends/00000000-0000-4000-8000-000000000000", ``, 404, `Not Found`},
		{"PUT", "/api/backends/nope", `{"name":"x"}`, 404, `Not Found`},
		{"DELETE", "/api/backends/nope", ``, 404, `Not Found`},
		{"POST", "/api/backends/nope/test", ``, 404, `Not Found`},
		{"POST", "/api/rules", `{"lql_string":"x"}`, 422, `"backend_id":["can't be blank"]`},
		{"POST", "/api/rules", `{"backend_id":999,"source_id":1,"lql_string":"x"}`, 404, `Not Found`},
		{"GET", "/api/rules?backend_id=abc", ``, 400, `backend_id`},
		{"GET", "/api/rules?backend_token=nope", ``, 404, `Not Found`},
		{"DELETE", "/api/rules/nope", ``, 404, `Not Found`},
		{"POST", "/api/rules", `[{"lql_string":""}]`, 400, `"errors":["`},
	} {
		r := h.do(c.method, c.path, strings.NewReader(c.body), map[string]string{"Authorization": "Bearer " + privateToken})
		require.Equal(t, c.code, r.code, "%s %s %s: %s", c.method, c.path, c.body, r.body)
		require.Contains(t, string(r.body), c.want, "%s %s %s", c.method, c.path, c.body)
	}
	// An LQL string that does not parse: 400 naming its position.
	r := h.studio("POST", "/api/backends", map[string]any{"name": "x", "type": "webhook", "config": map[string]any{"url": "http://127.0.0.1:1"}})
	require.Equal(t, 201, r.code, string(r.body))
	var b map[string]any
	require.NoError(t, json.Unmarshal(r.body, &b))
	r = h.studio("POST", "/api/rules", map[string]any{"backend_id": b["id"], "source": "src", "lql_string": `m.status:>>1`})
	require.Equal(t, 400, r.code, string(r.body))
	require.Regexp(t, `1:\d+`, string(r.body))
	r = h.studio("POST", "/api/rules", map[string]any{"backend_id": b["id"], "source": "src", "lql_string": `~"("`})
	require.Equal(t, 400, r.code, string(r.body))
	// A body past the bound.
	big := `{"name":"` + strings.Repeat("x", MaxManageBody) + `"}`
	r = h.do("POST", "/api/backends", strings.NewReader(big), map[string]string{"Authorization": "Bearer " + privateToken})
	require.Equal(t, 413, r.code)
}

// Keys with scopes: the public token ingests and queries and may not
// manage; the private token may do everything; scoped keys do what their
// scopes say.
func TestKeyScopes(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Keys = []Key{{Value: privateToken, Scopes: ScopeAll}, {Value: publicToken, Scopes: ScopeIngest | ScopeQuery},
			{Value: "ingest-only", Scopes: ScopeIngest}, {Value: "query-only", Scopes: ScopeQuery}}
		st := logstore.New(logstore.Options{})
		c.Backend = Local(st)
		m, err := drain.New(drain.Options{Store: &drain.MemoryStore{}, Feed: st, Sources: st.Names})
		require.NoError(t, err)
		t.Cleanup(m.Close)
		c.Drains = m
	})
	ingest := func(key string) int {
		return h.do("POST", "/api/logs?source_name=s", strings.NewReader(`[{"event_message":"x"}]`),
			map[string]string{"X-API-KEY": key, "Content-Type": "application/json"}).code
	}
	query := func(key string) int {
		return h.do("GET", "/api/endpoints/query/logs.all?project=p", nil, map[string]string{"X-API-KEY": key}).code
	}
	manage := func(method, path, key string) int {
		return h.do(method, path, strings.NewReader(`{"name":"x"}`), map[string]string{"Authorization": "Bearer " + key}).code
	}
	for _, c := range []struct {
		key                     string
		ingest, query, mgmt     int
		mgmtPost, mgmtRulesList int
	}{
		{privateToken, 200, 200, 200, 422, 200},
		{publicToken, 200, 200, 401, 401, 401},
		{"ingest-only", 200, 401, 401, 401, 401},
		{"query-only", 401, 200, 401, 401, 401},
		{"unknown", 401, 401, 401, 401, 401},
	} {
		require.Equal(t, c.ingest, ingest(c.key), "%s ingests", c.key)
		require.Equal(t, c.query, query(c.key), "%s queries", c.key)
		require.Equal(t, c.mgmt, manage("GET", "/api/sources", c.key), "%s lists sources", c.key)
		require.Equal(t, c.mgmt, manage("GET", "/api/backends", c.key), "%s lists backends", c.key)
		require.Equal(t, c.mgmtPost, manage("POST", "/api/backends", c.key), "%s makes a backend", c.key)
		require.Equal(t, c.mgmtRulesList, manage("GET", "/api/rules", c.key), "%s lists rules", c.key)
	}
	r := h.do("GET", "/api/backends", nil, map[string]string{"Authorization": "Bearer " + publicToken})
	require.Contains(t, string(r.body), "may not use the management API")
}
