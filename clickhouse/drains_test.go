package clickhouse

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"

	"logq/drain"
)

// Over ClickHouse, the drains' config is in the database, so every
// instance sees a drain made through another; and each instance delivers
// the events it acknowledged, from memory: a stopped instance (a crash)
// loses what it had acknowledged and not delivered, repeats nothing, and
// the other instance's events all arrive, once (docs/drains.md).
func TestDrainsOverClickHouse(t *testing.T) {
	cl := needCluster(t)
	db := cl.database(t)
	a, b := cl.engine(t, Config{Database: db}), cl.engine(t, Config{Database: db})

	var mu sync.Mutex
	got := map[string]int{}
	var down atomic.Bool
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			w.WriteHeader(503)
			return
		}
		zr, err := gzip.NewReader(r.Body)
		require.NoError(t, err)
		var evs []map[string]any
		require.NoError(t, json.NewDecoder(zr).Decode(&evs))
		mu.Lock()
		for _, e := range evs {
			got[e["id"].(string)]++
		}
		mu.Unlock()
	}))
	defer hook.Close()
	count := func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range got {
			out[k] = v
		}
		return out
	}

	manager := func(e *Engine) *drain.Manager {
		m, err := drain.New(drain.Options{Store: drain.KVStore{KV: e}, Feed: e, Sources: e.Names, Reload: 50 * time.Millisecond,
			BatchWait: 20 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
		require.NoError(t, err)
		return m
	}
	ma, mb := manager(a), manager(b)
	defer mb.Close()
	_, _, err := a.Ingest("src", [][]byte{[]byte(`{"id":"first","event_message":"x"}`)})
	require.NoError(t, err)
	name, typ := "hook", "webhook"
	bk, err := ma.CreateBackend(drain.BackendInput{Name: &name, Type: &typ, Config: json.RawMessage(fmt.Sprintf(`{"url":%q}`, hook.URL))})
	require.NoError(t, err)
	lql := `~".*?"`
	_, err = ma.CreateRule(drain.RuleInput{BackendID: json.RawMessage(fmt.Sprint(bk.ID)), Source: "src", LQL: &lql})
	require.NoError(t, err)
	// B sees A's drain within its reload.
	deadline := time.Now().Add(10 * time.Second)
	for len(mb.Backends(nil)) == 0 {
		require.True(t, time.Now().Before(deadline), "B never saw the drain")
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // B's stream starts at its head

	ingest := func(e *Engine, prefix string, n int) {
		for i := 0; i < n; i += 10 {
			var evs [][]byte
			for j := i; j < i+10; j++ {
				evs = append(evs, []byte(fmt.Sprintf(`{"id":"%s%d","event_message":"m"}`, prefix, j)))
			}
			_, _, err := e.Ingest("src", evs)
			require.NoError(t, err)
		}
	}
	ingest(a, "a", 50)
	ingest(b, "b", 50)
	waitFor := func(what string, cond func(map[string]int) bool) {
		deadline := time.Now().Add(15 * time.Second)
		for !cond(count()) {
			require.True(t, time.Now().Before(deadline), "timed out waiting for %s: %v", what, count())
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("both instances' events", func(m map[string]int) bool { return len(m) == 100 })
	for id, n := range count() {
		require.Equal(t, 1, n, "%s delivered once: each instance delivers only its own", id)
	}
	require.Zero(t, count()["first"], "before the drain")

	// The destination goes down; A acknowledges more, then stops (as a
	// crash would) before delivering them; B's go on once it is back.
	down.Store(true)
	ingest(a, "lostA", 20)
	ingest(b, "keptB", 20)
	time.Sleep(100 * time.Millisecond)
	ma.Close()
	down.Store(false)
	waitFor("B's events", func(m map[string]int) bool { return len(m) == 120 })
	time.Sleep(300 * time.Millisecond)
	final := count()
	for i := 0; i < 20; i++ {
		require.Equal(t, 1, final[fmt.Sprintf("keptB%d", i)])
		require.Zero(t, final[fmt.Sprintf("lostA%d", i)], "what the stopped instance had not delivered is lost, not sent by another")
	}
	for id, n := range final {
		require.Equal(t, 1, n, "%s once", id)
	}
}
