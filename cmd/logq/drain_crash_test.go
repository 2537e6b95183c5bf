package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A drain that is behind when logq is killed (SIGKILL) delivers, after the
// restart, every event that was acknowledged: its position and the WAL
// files it still needed (spooled past their segments' seals) survived.
func TestDrainDeliversEverythingAcrossSIGKILL(t *testing.T) {
	dir := t.TempDir()
	var (
		mu    sync.Mutex
		got   = map[string]int{}
		down  atomic.Bool
		calls atomic.Int64
	)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if down.Load() {
			w.WriteHeader(503)
			return
		}
		var rd io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				w.WriteHeader(400)
				return
			}
			rd = zr
		}
		var evs []map[string]any
		if err := json.NewDecoder(rd).Decode(&evs); err != nil {
			w.WriteHeader(400)
			return
		}
		mu.Lock()
		for _, e := range evs {
			got[fmt.Sprint(e["id"])]++
		}
		mu.Unlock()
	}))
	defer hook.Close()

	addr := freePort(t)
	c := startChildAt(t, addr, "--data-dir", dir, "--segment-rows", "200")
	client := &http.Client{Timeout: 10 * time.Second}
	do := func(method, path, body string) (int, []byte) {
		req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer k")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	code, _ := post(client, c.base, "edge", `[{"id":"before","event_message":"x"}]`)
	require.Equal(t, 200, code)
	code, body := do("POST", "/api/backends", fmt.Sprintf(`{"name":"hook","type":"webhook","config":{"url":%q}}`, hook.URL))
	require.Equal(t, 201, code, string(body))
	var b struct{ ID int64 }
	require.NoError(t, json.Unmarshal(body, &b))
	code, body = do("POST", "/api/rules", fmt.Sprintf(`{"backend_id":%d,"source":"edge","lql_string":"~\".*?\""}`, b.ID))
	require.Equal(t, 201, code, string(body))

	// The destination goes down; 1,000 events are acknowledged meanwhile
	// (five segments' worth: their WAL files seal into the spool).
	down.Store(true)
	acked := map[string]bool{}
	for i := 0; i < 1000; i += 50 {
		var sb strings.Builder
		sb.WriteString("[")
		for j := i; j < i+50; j++ {
			if j > i {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `{"id":"e%d","event_message":"m%d"}`, j, j)
		}
		sb.WriteString("]")
		code, err := post(client, c.base, "edge", sb.String())
		require.NoError(t, err)
		require.Equal(t, 200, code)
		for j := i; j < i+50; j++ {
			acked[fmt.Sprintf("e%d", j)] = true
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for calls.Load() < 2 {
		require.True(t, time.Now().Before(deadline), "the drain never tried")
		time.Sleep(10 * time.Millisecond)
	}
	c.kill() // SIGKILL, with the drain behind

	down.Store(false)
	c = startChildAt(t, addr, "--data-dir", dir, "--segment-rows", "200")
	defer c.kill()
	deadline = time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := 0
		for id := range acked {
			if got[id] > 0 {
				n++
			}
		}
		mu.Unlock()
		if n == len(acked) {
			break
		}
		require.True(t, time.Now().Before(deadline), "after the restart %d of %d acknowledged events arrived", n, len(acked))
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Zero(t, got["before"], "what came before the drain is not sent")
}
