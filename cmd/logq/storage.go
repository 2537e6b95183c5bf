package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"logq/api"
	"logq/clickhouse"
	"logq/drain"
	"logq/drain/dest"
	"logq/logstore"
)

// clickhouseConfig is what --storage clickhouse needs.
type clickhouseConfig struct {
	urls                              []string
	database, cluster, user, password string
	insertTimeout                     time.Duration
}

// parseStorage reads --storage and the ClickHouse settings, flags first,
// then the environment.
func (c *serveConfig) parseStorage(urls []string, env func(string) string) error {
	if c.storage == "" {
		c.storage = env("LOGQ_STORAGE")
	}
	if c.storage == "" {
		c.storage = "local"
	}
	switch c.storage {
	case "local":
		return nil
	case "clickhouse":
	default:
		return fmt.Errorf("invalid --storage %q: want local or clickhouse", c.storage)
	}
	for _, u := range urls { // a flag may list several, as the variable does
		for _, part := range strings.Split(u, ",") {
			if part = strings.TrimSpace(part); part != "" {
				c.ch.urls = append(c.ch.urls, part)
			}
		}
	}
	if len(c.ch.urls) == 0 {
		for _, u := range strings.Split(env("LOGQ_CLICKHOUSE_URL"), ",") {
			if u = strings.TrimSpace(u); u != "" {
				c.ch.urls = append(c.ch.urls, u)
			}
		}
	}
	if c.ch.database == "" {
		c.ch.database = env("LOGQ_CLICKHOUSE_DATABASE")
	}
	if c.ch.cluster == "" {
		c.ch.cluster = env("LOGQ_CLICKHOUSE_CLUSTER")
	}
	if c.ch.user == "" {
		c.ch.user = env("LOGQ_CLICKHOUSE_USER")
	}
	c.ch.password = env("LOGQ_CLICKHOUSE_PASSWORD")
	switch {
	case len(c.ch.urls) == 0:
		return fmt.Errorf("--storage clickhouse needs --clickhouse-url (or LOGQ_CLICKHOUSE_URL)")
	case c.ch.database == "":
		return fmt.Errorf("--storage clickhouse needs --clickhouse-database (or LOGQ_CLICKHOUSE_DATABASE)")
	case c.inMemory:
		return fmt.Errorf("--in-memory and --storage clickhouse contradict each other: choose one")
	}
	return nil
}

// openedStore is the storage a server runs over, and the drains that
// deliver from its feed.
type openedStore struct {
	api.Backend
	drains *drain.Manager
	close  func() error
	retain func() // drops what retention (and --max-disk) no longer keeps
	ingest func(source string, events [][]byte)
	what   string // for the log
}

// openStore opens the configured storage.
func openStore(ctx context.Context, cfg *serveConfig, log *slog.Logger, budget memoryBudget) (*openedStore, error) {
	if cfg.storage == "clickhouse" {
		start := time.Now()
		eng, err := clickhouse.Open(ctx, clickhouse.Config{URLs: cfg.ch.urls, Database: cfg.ch.database, Cluster: cfg.ch.cluster,
			User: cfg.ch.user, Password: cfg.ch.password, Retention: cfg.retention, QueryTimeout: cfg.queryTimeout,
			QueryMemory: cfg.queryMemory, MaxFields: cfg.maxFields, MaxSources: cfg.maxSources, InsertTimeout: cfg.ch.insertTimeout, Logger: log})
		if err != nil {
			return nil, err
		}
		log.Info("clickhouse storage opened", "servers", len(cfg.ch.urls), "database", cfg.ch.database, "cluster", cfg.ch.cluster, "duration_ms", ms(time.Since(start)))
		// The drains' config is in the database, read again every few
		// seconds for other instances' changes; each instance delivers what
		// it acknowledged (clickhouse/feed.go).
		drains, err := drain.New(drain.Options{Store: drain.KVStore{KV: eng}, Feed: eng, Sources: eng.Names,
			Dest: cfg.drainDest(), Logger: log, Reload: 5 * time.Second})
		if err != nil {
			eng.Close()
			return nil, err
		}
		return &openedStore{Backend: eng, drains: drains, close: func() error { drains.Close(); return eng.Close() },
			retain: func() { eng.EnforceRetention(context.Background()) },
			ingest: func(src string, evs [][]byte) { eng.Ingest(src, evs) }, what: "clickhouse"}, nil
	}
	opts := logstore.Options{Retention: cfg.retention, Logger: log, SegmentRows: cfg.segRows,
		CacheBytes: budget.cache, MaxOpenBytes: budget.openPerSource, MaxDiskBytes: cfg.maxDisk, MaxFields: cfg.maxFields, MaxSources: cfg.maxSources}
	// The drains deliver from the store's feed: with a data directory, its
	// WAL, from the positions they had reached (whose files the store keeps
	// for them: Holds, set before Open seals what it replays), their config
	// in DIR/drains; in memory, a ring of recent chunks, and nothing kept.
	var (
		drainStore drain.ConfigStore = &drain.MemoryStore{}
		positions  *drain.Positions
	)
	if !cfg.inMemory {
		drainDir := filepath.Join(cfg.dataDir, "drains")
		var err error
		if positions, err = drain.LoadPositions(drainDir); err != nil {
			return nil, fmt.Errorf("the data directory %s: %w", cfg.dataDir, err)
		}
		opts.Holds = positions.Holds()
		drainStore = drain.FileStore{Dir: drainDir}
	}
	store := logstore.New(opts)
	if !cfg.inMemory {
		start := time.Now()
		var err error
		if store, err = logstore.Open(cfg.dataDir, opts); err != nil {
			return nil, fmt.Errorf("the data directory %s: %w", cfg.dataDir, err)
		}
		rec := store.Recovery()
		log.Info("data directory opened", "dir", cfg.dataDir, "replayed", rec.Replayed, "duration_ms", ms(time.Since(start)))
		store.EnforceRetention()
	}
	drains, err := drain.New(drain.Options{Store: drainStore, Feed: store, Positions: positions, Sources: store.Names,
		Dest: cfg.drainDest(), Logger: log})
	if err != nil {
		store.Close()
		return nil, err
	}
	return &openedStore{Backend: api.Local(store), drains: drains, close: func() error { drains.Close(); return store.Close() },
		retain: func() { store.EnforceRetention() },
		ingest: func(src string, evs [][]byte) { store.Append(src, evs) }, what: "local"}, nil
}

// drainDest is how drains reach their destinations.
func (c *serveConfig) drainDest() dest.Options {
	return dest.Options{DenyPrivate: c.drainDenyPrivate, UserAgent: "logq"}
}
