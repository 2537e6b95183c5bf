package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// waitFor polls cond for up to 30 s (ClickHouse reloads its configuration
// every few seconds; the engine refreshes every 100 ms here).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("waited 30 s for %s", what)
}

// A shard added to the cluster while logq runs is seen within seconds and
// written; a server that none of the URLs is, added later, makes inserts
// fail with the start's message (503) until it is gone again.
func TestShardsChangeWhileRunning(t *testing.T) {
	cl := needCluster(t)
	cl.needOwnServers(t)
	shard := func(s *testServer) string {
		return fmt.Sprintf("<shard><replica><host>127.0.0.1</host><port>%d</port></replica></shard>", s.tcp)
	}
	const grow = "logq_test_grow"
	cl.setClusters(t, "<"+grow+">"+shard(cl.servers[0])+"</"+grow+">")
	t.Cleanup(func() { cl.setClusters(t, "") })
	urls := []string{cl.servers[0].url(), cl.servers[1].url()}
	var e *Engine
	waitFor(t, "the servers to load the cluster", func() bool {
		var err error
		e, err = Open(context.Background(), Config{URLs: urls, Cluster: grow, Database: cl.database(t), Linger: time.Millisecond, Refresh: 100 * time.Millisecond})
		return err == nil
	})
	t.Cleanup(func() { e.Close() })
	shards, err := e.currentShards()
	require.NoError(t, err)
	require.Equal(t, 1, shards.len())
	count := func(s *testServer) int {
		c, _ := newClient(s.url(), "", "")
		text, err := c.text(context.Background(), "SELECT count() FROM "+e.local("src")+" FORMAT TabSeparatedRaw", nil)
		require.NoError(t, err)
		n, err := strconv.Atoi(strings.TrimSpace(text))
		require.NoError(t, err)
		return n
	}
	_, _, err = e.Ingest("src", numbered(0, 100))
	require.NoError(t, err)
	require.Equal(t, []int{100, 0}, []int{count(cl.servers[0]), count(cl.servers[1])}, "one shard: all on it")

	cl.setClusters(t, "<"+grow+">"+shard(cl.servers[0])+shard(cl.servers[1])+"</"+grow+">")
	waitFor(t, "the second shard to be seen", func() bool { s, _ := e.currentShards(); return s.len() == 2 })
	_, _, err = e.Ingest("src", numbered(100, 300))
	require.NoError(t, err)
	second := count(cl.servers[1])
	require.Positive(t, second, "the new shard takes its share")
	require.Equal(t, 300, count(cl.servers[0])+second)

	// A third server no URL is: refused as at a start, until it goes.
	cl.setClusters(t, "<"+grow+">"+shard(cl.servers[0])+shard(cl.servers[1])+
		"<shard><replica><host>127.0.0.1</host><port>1</port></replica></shard></"+grow+">")
	waitFor(t, "the uncovered shard to be seen", func() bool { _, err := e.currentShards(); return err != nil })
	_, _, err = e.Ingest("src", numbered(300, 310))
	require.ErrorContains(t, err, "has servers none of the 2 URL(s) given is: shard 3 (127.0.0.1:1)")
	cl.setClusters(t, "<"+grow+">"+shard(cl.servers[0])+shard(cl.servers[1])+"</"+grow+">")
	var last error
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the engine's last word on the cluster: %v", last)
		}
	})
	waitFor(t, "the cluster to be whole again", func() bool { _, last = e.currentShards(); return last == nil })
	_, _, err = e.Ingest("src", numbered(300, 310))
	require.NoError(t, err)
}

// Fields another instance added are counted toward --max-fields here
// within the refresh: two instances that take turns at a source end with
// the schema and overflow one instance (the local store) makes of the same
// events in the same order.
func TestMaxFieldsHoldsAcrossInstances(t *testing.T) {
	cl := needCluster(t)
	const maxFields = 8 // timestamp, id and event_message are three of them
	cfg := Config{MaxFields: maxFields, Refresh: 100 * time.Millisecond}
	a := cl.engine(t, cfg)
	cfg.Database = a.cfg.Database
	b := cl.engine(t, cfg)
	t.Cleanup(func() { a.Close(); b.Close() })
	local := logstore.New(logstore.Options{MaxFields: maxFields})
	ev := func(id int, fields ...string) []byte {
		var b strings.Builder
		fmt.Fprintf(&b, `{"timestamp":"2024-05-01T10:00:%02dZ","id":"e%d","event_message":"m"`, id, id)
		for _, f := range fields {
			fmt.Fprintf(&b, `,%q:%d`, f, id)
		}
		return []byte(b.String() + "}")
	}
	steps := []struct {
		e  *Engine
		ev []byte
	}{
		{b, ev(1, "a")},           // b knows the source
		{a, ev(2, "b", "c", "d")}, // a adds three fields: seven of eight
		{b, ev(3, "e", "f", "g")}, // b may add one; two overflow
		{a, ev(4, "h")},           // a is at the cap too
	}
	for i, s := range steps {
		_, rej, err := s.e.Ingest("src", [][]byte{s.ev})
		require.NoError(t, err)
		require.Empty(t, rej)
		local.Append("src", [][]byte{s.ev})
		if i+1 < len(steps) && steps[i+1].e != s.e {
			fields := func(e *Engine) int {
				src, err := e.source(context.Background(), "src", false)
				if err != nil || src == nil {
					return -1
				}
				src.mu.Lock()
				defer src.mu.Unlock()
				return src.tree.Fields()
			}
			want := fields(s.e)
			waitFor(t, "the other instance to see the fields", func() bool { return fields(steps[i+1].e) == want })
		}
	}
	fresh := cl.engine(t, Config{MaxFields: maxFields, Database: a.cfg.Database})
	compareEnginesOrdered(t, "select * from src order by id", nil, goldenNow, local, fresh)
}

// A request waiting behind an insert that retries a shard out of reach
// fails within --clickhouse-insert-timeout, not after the retries: a 503
// before the shipper's own timeout, nothing acknowledged.
func TestInsertTimeoutBoundsARequest(t *testing.T) {
	cl := needCluster(t)
	cl.needOwnServers(t)
	// The table and its columns are made first by an engine without the
	// tight timeout: on a loaded machine the ALTERs alone can take longer
	// than a second, and they are not what this test bounds.
	setup := cl.engine(t, Config{})
	_, _, err := setup.Ingest("src", numbered(0, 10))
	require.NoError(t, err)
	e := cl.engine(t, Config{InsertRetry: time.Minute, InsertTimeout: time.Second, Database: setup.cfg.Database})
	_, _, err = e.Ingest("src", numbered(200, 210))
	require.NoError(t, err)
	cl.servers[1].kill()
	t.Cleanup(func() { cl.restart(t, 1) })
	start := time.Now()
	_, _, err = e.Ingest("src", numbered(10, 110))
	elapsed := time.Since(start)
	require.Error(t, err)
	require.True(t, errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "--clickhouse-insert-timeout"), "%v", err)
	// Not the minute of retries: bounded by the timeout (the margin is
	// for a slow machine; no speed is asserted).
	require.Less(t, elapsed, 30*time.Second)
}
