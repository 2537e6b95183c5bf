package clickhouse

import (
	"context"
	"errors"
	"slices"
	"time"
)

// The watch: every Config.Refresh the engine reads again what it would
// otherwise know only from its start, so that a change made elsewhere is
// seen within seconds.
//
//   - The cluster's shards (system.clusters, which a server reloads from
//     its configuration while it runs): a shard added, removed or
//     reweighted changes where this instance's inserts go; a server that
//     none of the URLs is makes inserts fail (503) with readShards'
//     message until it is given or gone, as it would refuse a start.
//   - Each loaded source's columns: fields another instance added join this
//     instance's tree, so that the field cap (--max-fields) counts them and
//     new fields past it go to the overflow columns here too. Two instances
//     that add fields in the same interval can pass the cap by those.

func (e *Engine) watch() {
	defer e.stopped.Done()
	t := time.NewTicker(e.cfg.Refresh)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
		}
		// A loaded server may take seconds to answer; a slow answer keeps
		// what is known rather than failing inserts (refreshShards).
		ctx, cancel := context.WithTimeout(context.Background(), max(e.cfg.Refresh*4, 10*time.Second))
		e.refreshShards(ctx)
		e.refreshSources(ctx)
		cancel()
	}
}

// refreshShards reads the cluster's shards again and takes the new map.
func (e *Engine) refreshShards(ctx context.Context) {
	if e.cfg.Cluster == "" {
		return
	}
	shards, why, err := e.readShards(ctx)
	if err != nil && !errors.As(err, new(*clusterError)) {
		return // a server out of reach or slow: keep what is known; inserts will say
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case err != nil:
		if e.shardErr == nil || e.shardErr.Error() != err.Error() {
			e.cfg.Logger.Error("clickhouse: the cluster changed and cannot be written", "err", err)
		}
		e.shardErr = err
	case !e.shards.same(shards) || e.shardErr != nil:
		e.cfg.Logger.Info("clickhouse: the cluster's shards changed", "shards", e.shards.len(), "now", shards.len(), "through_distributed", why)
		e.shards, e.shardErr = shards, nil
	}
}

// refreshSources merges the columns other instances added into each loaded
// source's tree and layout.
func (e *Engine) refreshSources(ctx context.Context) {
	e.mu.Lock()
	srcs := make([]*source, 0, len(e.sources))
	for _, s := range e.sources {
		srcs = append(srcs, s)
	}
	e.mu.Unlock()
	for _, s := range srcs {
		lay, err := e.readLayout(ctx, s.name)
		if err != nil {
			continue
		}
		s.mu.Lock()
		if s.tree != nil {
			var fresh []column
			for _, c := range lay.order {
				if !s.lay.cols[c.name] || lay.comment[c.name] != s.lay.comment[c.name] {
					fresh = append(fresh, c)
				}
			}
			if len(fresh) > 0 {
				lay.apply(s.tree, fresh)
				for _, c := range fresh {
					s.lay.add(c)
					if c.comment != "" {
						s.lay.setComment(c.name, c.comment)
					}
				}
			}
		}
		s.mu.Unlock()
	}
}

// currentShards is where inserts go now, or why they cannot.
func (e *Engine) currentShards() (*shardSet, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.shards, e.shardErr
}

func (s *shardSet) len() int {
	if s == nil {
		return 0
	}
	return len(s.servers)
}

// same reports whether two maps send every event to the same server.
func (s *shardSet) same(o *shardSet) bool {
	if s == nil || o == nil {
		return s == o
	}
	return slices.Equal(s.servers, o.servers) && slices.Equal(s.weights, o.weights)
}
