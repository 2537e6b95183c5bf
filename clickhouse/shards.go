package clickhouse

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Inserts on a cluster go straight to each shard's local table, split by
// logq, when every shard of the cluster is one server among the URLs: one
// insert per shard at once, where an insert through the Distributed table
// is parsed by one server, split there, and re-sent to the others (it was
// measured ~25% more of ClickHouse's CPU, and slower). A cluster with
// replicas, or with a shard none of the URLs is, is written through its
// Distributed table, which knows them.
//
// An event's shard is picked from a hash of its timestamp, weighted by the
// shards' weights, so that every logq instance puts a retried event where
// it put it before.

// shardSet is the cluster's shards, in shard_num order, each with the
// server that is it.
type shardSet struct {
	servers []*client
	weights []uint64 // running totals of the shards' weights
}

// readShards maps the cluster's shards to the servers, or returns nil (and
// why) when inserts must go through the Distributed table.
func (e *Engine) readShards(ctx context.Context) (*shardSet, string, error) {
	type shard struct {
		weight   uint64
		replicas int
		server   *client
	}
	shards := map[int]*shard{}
	for i, c := range e.servers {
		out, err := c.text(ctx, "SELECT shard_num, shard_weight, is_local FROM system.clusters WHERE cluster = "+quote(e.cfg.Cluster)+" FORMAT TabSeparated", nil)
		if err != nil {
			return nil, "", fmt.Errorf("--clickhouse-cluster: %w", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var num, local int
			var weight uint64
			if _, err := fmt.Sscanf(line, "%d\t%d\t%d", &num, &weight, &local); err != nil {
				return nil, "", fmt.Errorf("--clickhouse-cluster: reading system.clusters of %s: %q: %w", c.base.Host, line, err)
			}
			sh := shards[num]
			if sh == nil {
				sh = &shard{weight: weight}
				shards[num] = sh
			}
			if i == 0 { // every server lists the same replicas: count them once
				sh.replicas++
			}
			if local == 1 {
				if sh.server != nil && sh.server != c {
					return nil, fmt.Sprintf("two URLs (%s, %s) are shard %d", sh.server.base.Host, c.base.Host, num), nil
				}
				sh.server = c
			}
		}
	}
	nums := make([]int, 0, len(shards))
	for n := range shards {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	set := &shardSet{}
	var total uint64
	for _, n := range nums {
		sh := shards[n]
		switch {
		case sh.replicas > 1:
			return nil, fmt.Sprintf("shard %d has %d replicas", n, sh.replicas), nil
		case sh.server == nil:
			return nil, fmt.Sprintf("no URL is shard %d", n), nil
		case sh.weight == 0:
			continue // the Distributed table writes nothing there either
		}
		total += sh.weight
		set.servers = append(set.servers, sh.server)
		set.weights = append(set.weights, total)
	}
	if total == 0 {
		return nil, "no shard has a weight", nil
	}
	return set, "", nil
}

// pick returns the shard of an event of time ts.
func (s *shardSet) pick(ts int64) int {
	h := mix64(uint64(ts)) % s.weights[len(s.weights)-1]
	return sort.Search(len(s.weights), func(i int) bool { return h < s.weights[i] })
}

// mix64 is SplitMix64's finaliser: times a few microseconds apart land on
// unrelated shards.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
