package dest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// isoMicro writes a µs time as Elixir's DateTime.to_iso8601 does.
func isoMicro(us int64) string {
	t := time.Unix(us/1_000_000, (us%1_000_000)*1000).UTC()
	return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
		t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000)
}

func TestDatadogSend(t *testing.T) {
	rc := newReceiver(t)
	rc.answer = func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) }
	d := newDest(t, "datadog", map[string]any{"api_key": "dd-key-1", "region": "EU"}, Options{intakeURL: rc.URL + "/api/v2/logs"})
	evs := sampleEvents(t)
	// a top-level "message" wins over event_message; a nested one does not
	evs = append(evs,
		eventOf(t, map[string]any{"id": "m1", "timestamp": int64(1700000000000001), "event_message": "em", "message": "top \"msg\""}),
		eventOf(t, map[string]any{"id": "m2", "timestamp": int64(1700000000000002), "event_message": "em2", "metadata": map[string]any{"message": "nested"}}),
		eventOf(t, map[string]any{"id": "m3", "timestamp": int64(1700000000000003)}),
	)
	require.NoError(t, d.Send(context.Background(), Batch{Source: "postgres_logs", Events: evs}))

	r := rc.only(t)
	require.Equal(t, "/api/v2/logs", r.Path)
	require.Equal(t, "dd-key-1", r.Header.Get("Dd-Api-Key"))
	require.Equal(t, "gzip", r.Header.Get("Content-Encoding"))
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	var got []map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &got))
	require.Len(t, got, len(evs))
	for i, e := range evs {
		var body map[string]any
		require.NoError(t, json.Unmarshal(e.Body, &body))
		msg := e.Message
		if m, ok := body["message"].(string); ok {
			msg = m
		}
		require.Equal(t, map[string]any{
			"message":  isoMicro(e.Timestamp) + " " + msg,
			"ddsource": "Supabase",
			"service":  "postgres_logs",
			"data":     body,
		}, got[i], "event %d", i)
	}
	require.Equal(t, "2023-11-14T22:13:20.000001Z top \"msg\"", got[len(evs)-3]["message"])
	require.Equal(t, "2023-11-14T22:13:20.000003Z ", got[len(evs)-1]["message"])

	ok, reason := d.Test(context.Background())
	require.True(t, ok, reason)
	require.Equal(t, "[]", string(rc.requests()[1].Body))
}

func TestDatadogRegionURL(t *testing.T) {
	d := newDest(t, "datadog", map[string]any{"api_key": "k", "region": "US5"}, Options{}).(*destination)
	require.Equal(t, "https://http-intake.logs.us5.datadoghq.com/api/v2/logs", d.url)
	d = newDest(t, "datadog", map[string]any{"api_key": "k", "region": "US1-FED"}, Options{}).(*destination)
	require.Equal(t, "https://http-intake.logs.ddog-gov.com/api/v2/logs", d.url)
}

// flatten is the test's own reading of Logflare's Loki flattening.
func flatten(prefix string, v any, out map[string]string) {
	key := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "_" + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			flatten(key(k), val, out)
		}
	case []any:
		for i, val := range x {
			flatten(key(strconv.Itoa(i)), val, out)
		}
	case string:
		out[prefix] = x
	case json.Number:
		out[prefix] = x.String()
	case bool:
		out[prefix] = strconv.FormatBool(x)
	case nil:
		out[prefix] = "nil"
	}
}

func TestLokiSend(t *testing.T) {
	rc := newReceiver(t)
	rc.answer = func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }
	d := newDest(t, "loki", map[string]any{
		"url":      rc.URL + "/loki/api/v1/push",
		"username": "123456",
		"password": "glc_token",
		"headers":  map[string]any{"X-Scope-OrgID": "tenant1", "authorization": "ignored"},
	}, Options{})
	evs := sampleEvents(t)
	evs = append(evs, eventOf(t, map[string]any{
		"id": "n1", "timestamp": int64(1700000000000000),
		"metadata": map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": 1.5e300}, "x", nil, false}}, "big": int64(1) << 62},
	}))
	require.NoError(t, d.Send(context.Background(), Batch{Source: "auth_logs", Events: evs}))

	r := rc.only(t)
	require.Equal(t, "/loki/api/v1/push", r.Path)
	require.True(t, r.BasicAuth)
	require.Equal(t, "123456", r.User)
	require.Equal(t, "glc_token", r.Pass)
	require.Equal(t, "tenant1", r.Header.Get("X-Scope-OrgID"))
	require.Equal(t, "gzip", r.Header.Get("Content-Encoding"))
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))

	got := decodeObject(t, r.Body)
	streams := got["streams"].([]any)
	require.Len(t, streams, 1)
	stream := streams[0].(map[string]any)
	require.Equal(t, map[string]any{"source": "supabase", "service": "auth_logs"}, stream["stream"])
	values := stream["values"].([]any)
	require.Len(t, values, len(evs))
	for i, e := range evs {
		body := decodeObject(t, e.Body)
		md := map[string]string{}
		flatten("", body, md)
		delete(md, "timestamp")
		delete(md, "event_message")
		gotMD := map[string]string{}
		for k, v := range values[i].([]any)[2].(map[string]any) {
			gotMD[k] = v.(string)
		}
		require.Equal(t, []any{strconv.FormatInt(e.Timestamp*1000, 10), e.Message}, values[i].([]any)[:2], "event %d", i)
		require.Equal(t, md, gotMD, "event %d", i)
	}
	last := values[len(evs)-1].([]any)[2].(map[string]any)
	require.Equal(t, map[string]any{
		"id": "n1", "metadata_a_b_0_c": "1.5e+300", "metadata_a_b_1": "x", "metadata_a_b_2": "nil",
		"metadata_a_b_3": "false", "metadata_big": "4611686018427387904",
	}, last)
	first := values[0].([]any)[2].(map[string]any)
	require.Equal(t, "supabase-js/2", first["metadata_request_headers_0_x_client_info"])
	require.Equal(t, "true", first["metadata_response_ok"])
	require.Equal(t, "0", first["metadata_tags_2"]) // tags of event 0 are a, b, 0

	ok, reason := d.Test(context.Background())
	require.True(t, ok, reason)
	tr := rc.requests()[1]
	require.Equal(t, `{"streams":[]}`, string(tr.Body))
	require.True(t, tr.BasicAuth)
}

func TestLokiNoAuth(t *testing.T) {
	rc := newReceiver(t)
	d := newDest(t, "loki", map[string]any{"url": rc.URL, "username": "", "password": "", "headers": map[string]any{}}, Options{})
	require.NoError(t, d.Send(context.Background(), Batch{Source: "s", Events: sampleEvents(t)[:1]}))
	r := rc.only(t)
	require.False(t, r.BasicAuth)
	require.Empty(t, r.Header.Get("Authorization"))
}

func TestLokiKeyCollisionsAndEscapes(t *testing.T) {
	f := &flattener{}
	f.event([]byte(`{"a_b":"first","a":{"b":"second"},"k\u00e9y":"v\u00e9\n","timestamp":1,"event_message":"x","e":{},"l":[]}`))
	got := decodeObject(t, f.appendTo(nil))
	require.Equal(t, map[string]any{"a_b": "second", "kéy": "vé\n", "e": "{}", "l": "[]"}, got)

	// many leaves take the map path
	big := map[string]any{}
	for i := range 100 {
		big[fmt.Sprintf("k%d", i)] = i
	}
	big["k_1"] = "x"
	big["k"] = map[string]any{"1": "y"}
	b, _ := json.Marshal(big)
	f.event(b)
	got = decodeObject(t, f.appendTo(nil))
	require.Len(t, got, 101)
	require.Equal(t, "x", got["k_1"])
}
