package clickhouse

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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

// With a shard no URL is, inserts go through the Distributed table, which
// still spreads them over both shards (whose tables an instance given
// every shard made).
func TestInsertsThroughDistributedWithoutEveryShard(t *testing.T) {
	cl := needCluster(t)
	cl.needOwnServers(t)
	full := cl.engine(t, Config{})
	_, _, err := full.Ingest("src", numbered(0, 1))
	require.NoError(t, err)
	e := cl.engine(t, Config{URLs: []string{cl.servers[0].url()}, Cluster: clusterName, Database: full.cfg.Database})
	require.Nil(t, e.shards)
	_, _, err = e.Ingest("src", numbered(1, 201))
	require.NoError(t, err)
	total := 0
	for _, s := range cl.servers {
		c, _ := newClient(s.url(), "", "")
		text, err := c.text(context.Background(), "SELECT count() FROM "+e.local("src")+" FORMAT TabSeparatedRaw", nil)
		require.NoError(t, err)
		n, err := strconv.Atoi(strings.TrimSpace(text))
		require.NoError(t, err)
		require.Positive(t, n)
		total += n
	}
	require.Equal(t, 201, total)
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
