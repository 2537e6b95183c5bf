package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// On the test cluster (two shards, each one of the URLs) inserts go
// straight to the shards: every event is stored once, both shards hold
// some, and an event lands on the same shard whichever instance sends it.
func TestInsertsGoToTheShards(t *testing.T) {
	cl := needCluster(t)
	cl.needOwnServers(t)
	a := cl.engine(t, Config{})
	require.NotNil(t, a.shards)
	require.Len(t, a.shards.servers, 2)
	b := cl.engine(t, Config{})
	evs := numbered(0, 300)
	for _, e := range []*Engine{a, b} {
		_, rej, err := e.Ingest("src", evs)
		require.NoError(t, err)
		require.Empty(t, rej)
	}
	// Per shard, the ids each instance put there.
	ids := func(e *Engine) [][]string {
		var out [][]string
		for _, s := range cl.servers {
			c, _ := newClient(s.url(), "", "")
			text, err := c.text(context.Background(), "SELECT id FROM "+e.local("src")+" ORDER BY id FORMAT TabSeparatedRaw", nil)
			require.NoError(t, err)
			out = append(out, strings.Fields(text))
		}
		return out
	}
	inA, inB := ids(a), ids(b)
	require.Equal(t, inA, inB)
	require.NotEmpty(t, inA[0])
	require.NotEmpty(t, inA[1])
	all := append(append([]string(nil), inA[0]...), inA[1]...)
	require.Len(t, all, len(evs))
	seen := map[string]bool{}
	for _, id := range all {
		require.False(t, seen[id], "%s stored twice", id)
		seen[id] = true
	}
}

// A cluster with a server none of the URLs is cannot work (logq makes
// the tables on the URLs' servers only): the start is refused, naming
// --clickhouse-url and the missing shard, rather than reporting ready and
// answering 503 to every insert.
func TestStartRefusesAClusterWithAServerNoURLIs(t *testing.T) {
	cl := needCluster(t)
	cl.needOwnServers(t)
	db := cl.database(t)
	_, err := Open(context.Background(), Config{URLs: []string{cl.servers[0].url()}, Cluster: clusterName, Database: db})
	require.Error(t, err)
	want := fmt.Sprintf("--clickhouse-url: cluster %q has servers none of the 1 URL(s) given is: shard 2 (127.0.0.1:%d)", clusterName, cl.servers[1].tcp)
	require.Contains(t, err.Error(), want)
	// One replica of two: the other would have no table.
	_, err = Open(context.Background(), Config{URLs: []string{cl.servers[1].url()}, Cluster: replicaCluster, Database: db})
	require.ErrorContains(t, err, fmt.Sprintf("shard 1 (127.0.0.1:%d, 127.0.0.1:%d)", cl.servers[0].tcp, cl.servers[1].tcp))
	// The same server twice is refused too.
	_, err = Open(context.Background(), Config{URLs: []string{cl.servers[0].url(), strings.Replace(cl.servers[0].url(), "127.0.0.1", "localhost", 1)}, Cluster: clusterName, Database: db})
	require.ErrorContains(t, err, "are the same server (shard 1 of cluster")
	// Every server given: it starts, and inserts go to the shards.
	e, err := Open(context.Background(), Config{URLs: []string{cl.servers[0].url(), cl.servers[1].url()}, Cluster: clusterName, Database: db})
	require.NoError(t, err)
	require.NotNil(t, e.shards)
}

// A cluster of replicas is written through its Distributed table, which
// copies each row to every replica; every replica's table exists because
// every replica is one of the URLs.
func TestInsertsThroughDistributedWithReplicas(t *testing.T) {
	cl := needCluster(t)
	cl.needOwnServers(t)
	e := cl.engine(t, Config{Cluster: replicaCluster, URLs: []string{cl.servers[0].url(), cl.servers[1].url()}})
	require.Nil(t, e.shards)
	_, rej, err := e.Ingest("src", numbered(0, 201))
	require.NoError(t, err)
	require.Empty(t, rej)
	for _, s := range cl.servers {
		c, _ := newClient(s.url(), "", "")
		text, err := c.text(context.Background(), "SELECT count() FROM "+e.local("src")+" FORMAT TabSeparatedRaw", nil)
		require.NoError(t, err)
		require.Equal(t, "201", strings.TrimSpace(text), "every replica holds every row")
	}
	local := logstore.New(logstore.Options{})
	local.Append("src", numbered(0, 201))
	compareEnginesOrdered(t, "select count(*) as n, count(distinct id) as d from src", nil, goldenNow, local, e)
}

// pick follows the shards' weights: with weights 1 and 3, about a quarter
// of many distinct times go to the first shard.
func TestPickFollowsWeights(t *testing.T) {
	s := &shardSet{servers: make([]*client, 2), weights: []uint64{1, 4}}
	counts := [2]int{}
	for ts := int64(1_700_000_000_000_000); ts < 1_700_000_000_000_000+40_000; ts++ {
		counts[s.pick(ts)]++
	}
	require.InDelta(t, 10_000, counts[0], 500)
	require.InDelta(t, 30_000, counts[1], 500)
}

// fakeClusters is a server that answers every query with rows of
// system.clusters (shard_num, shard_weight, is_local, host_name, port).
func fakeClusters(t *testing.T, rows string) *client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, rows)
	}))
	t.Cleanup(srv.Close)
	c, err := newClient(srv.URL, "", "")
	require.NoError(t, err)
	return c
}

// Servers reload their configuration one by one: while a shard added to
// the cluster is listed by one server and not yet by another, the map is
// not made (an error to retry, not a cluster to refuse), and when they
// agree it is.
func TestShardsWhileServersDisagree(t *testing.T) {
	oldA := "1\t1\t1\th\t9001\n"
	newA := "1\t1\t1\th\t9001\n2\t1\t0\th\t9002\n"
	newB := "1\t1\t0\th\t9001\n2\t1\t1\th\t9002\n"
	// B already has a third shard, on a server no URL is.
	newerB := newB + "3\t1\t0\th\t1\n"
	for _, tc := range []struct {
		name     string
		a, b     string
		disagree bool
	}{
		{"A still old", oldA, newB, true},
		{"B already newer", newA, newerB, true},
		{"agreed", newA, newB, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &Engine{cfg: Config{Cluster: "c"}, servers: []*client{fakeClusters(t, tc.a), fakeClusters(t, tc.b)}}
			set, why, err := e.readShards(context.Background())
			if tc.disagree {
				require.ErrorContains(t, err, `list cluster "c" differently`)
				require.False(t, errors.As(err, new(*clusterError)), "a passing state, not a refusal")
				return
			}
			require.NoError(t, err)
			require.Empty(t, why)
			require.Equal(t, e.servers, set.servers)
			require.Equal(t, []uint64{1, 2}, set.weights)
		})
	}
}
