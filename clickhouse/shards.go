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
// why) when inserts must go through the Distributed table. It refuses a
// cluster with a server that none of the URLs is: logq makes each source's
// tables on the URLs' servers only (no ON CLUSTER DDL: 18.16 has it only
// with ZooKeeper), so a Distributed insert would fail on that server, or a
// query would miss its rows, for as long as logq runs. Better to say so at
// start, naming what is missing, than to report ready and answer 503.
func (e *Engine) readShards(ctx context.Context) (*shardSet, string, error) {
	type shard struct {
		weight uint64
		hosts  []string  // its replicas, as system.clusters names them
		given  []*client // the URLs that are one of them
	}
	shards := map[int]*shard{}
	var first string // the cluster as the first server lists it
	for i, c := range e.servers {
		out, err := c.text(ctx, "SELECT shard_num, shard_weight, is_local, host_name, port FROM system.clusters WHERE cluster = "+quote(e.cfg.Cluster)+" FORMAT TabSeparated", nil)
		if err != nil {
			return nil, "", fmt.Errorf("--clickhouse-cluster: %w", err)
		}
		local := map[int]bool{}
		var rows []string // the server's listing without is_local, which differs between servers
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var num, isLocal, port int
			var weight uint64
			var host string
			if _, err := fmt.Sscanf(line, "%d\t%d\t%d\t%s\t%d", &num, &weight, &isLocal, &host, &port); err != nil {
				return nil, "", fmt.Errorf("--clickhouse-cluster: reading system.clusters of %s: %q: %w", c.base.Host, line, err)
			}
			rows = append(rows, fmt.Sprintf("%d\t%d\t%s\t%d", num, weight, host, port))
			sh := shards[num]
			if sh == nil {
				sh = &shard{weight: weight}
				shards[num] = sh
			}
			if i == 0 { // every server lists the same replicas: once
				sh.hosts = append(sh.hosts, fmt.Sprintf("%s:%d", host, port))
			}
			// 18.16 marks every replica of a shard local when one is, so a
			// server is known as one of its shard's replicas, not which.
			local[num] = local[num] || isLocal == 1
		}
		// Each server reloads its configuration on its own: while a change
		// reaches them, two can list different clusters. That is not a
		// cluster to refuse, only one to read again (the watch keeps what it
		// knows until they agree).
		sort.Strings(rows)
		if listed := strings.Join(rows, "\n"); i == 0 {
			first = listed
		} else if listed != first {
			return nil, "", fmt.Errorf("--clickhouse-cluster: %s and %s list cluster %q differently (a configuration change on its way?)",
				e.servers[0].base.Host, c.base.Host, e.cfg.Cluster)
		}
		for num, ok := range local {
			if ok {
				shards[num].given = append(shards[num].given, c)
			}
		}
	}
	var missing []string
	for num, sh := range shards {
		if len(sh.hosts) == 1 && len(sh.given) > 1 {
			return nil, "", &clusterError{fmt.Sprintf("--clickhouse-url: %s and %s are the same server (shard %d of cluster %q): give each server once", sh.given[0].base.Host, sh.given[1].base.Host, num, e.cfg.Cluster)}
		}
		if len(sh.given) < len(sh.hosts) {
			missing = append(missing, fmt.Sprintf("shard %d (%s)", num, strings.Join(sh.hosts, ", ")))
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, "", &clusterError{fmt.Sprintf("--clickhouse-url: cluster %q has servers none of the %d URL(s) given is: %s; "+
			"logq makes each source's tables on the servers it is given, so give one --clickhouse-url per server of the cluster "+
			"(docs/clickhouse.md)", e.cfg.Cluster, len(e.servers), strings.Join(missing, ", "))}
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
		case len(sh.hosts) > 1:
			return nil, fmt.Sprintf("shard %d has %d replicas", n, len(sh.hosts)), nil
		case sh.weight == 0:
			continue // the Distributed table writes nothing there either
		}
		total += sh.weight
		set.servers = append(set.servers, sh.given[0])
		set.weights = append(set.weights, total)
	}
	if total == 0 {
		return nil, "no shard has a weight", nil
	}
	return set, "", nil
}

// clusterError is a cluster logq cannot write as configured (not a server
// out of reach): it stops a start, and fails inserts when a refresh finds it.
type clusterError struct{ msg string }

func (e *clusterError) Error() string { return e.msg }

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
