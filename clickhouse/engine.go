package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"logq/event"
	"logq/storage"
)

// Config says where the sources live and how logq uses the servers.
type Config struct {
	// URLs are the servers' HTTP interfaces: one server without Cluster,
	// else one URL per shard of Cluster (logq runs its DDL on each).
	URLs     []string
	Database string
	// Cluster, when set, names the cluster in the servers' remote_servers:
	// every source gets a MergeTree table "<source>_local" on every shard
	// and a Distributed table "<source>" over them.
	Cluster        string
	User, Password string

	Retention    time.Duration // rows older are never returned; their days are dropped
	QueryTimeout time.Duration // max_execution_time of queries (0: none)
	QueryMemory  int64         // max_memory_usage of queries (0: the server's)
	MaxFields    int           // field paths per source (0: event.DefaultMaxFields)
	MaxSources   int           // sources (0: 1000)
	// Linger is how long a source's insert waits for more requests to join
	// it after the last one (group commit); 0 means DefaultLinger.
	Linger time.Duration
	// InsertRetry is how long an insert that failed on a server (out of
	// reach, cut off, overloaded) goes on being retried, sending only what
	// the server lacks (retry.go), before its requests fail; 0 means
	// DefaultInsertRetry, negative none.
	InsertRetry time.Duration
	// InsertTimeout bounds a request's whole time in an insert: its wait
	// behind the source's insert under way, its own insert and every retry
	// of it. Past it the request fails (503, nothing acknowledged); 0 means
	// DefaultInsertTimeout.
	InsertTimeout time.Duration
	// Refresh is how often the engine reads again what other instances and
	// the servers' configuration may change: the cluster's shards and the
	// loaded sources' columns (watch.go); 0 means DefaultRefresh.
	Refresh time.Duration
	Now     func() time.Time
	Logger  *slog.Logger
}

// DefaultLinger spaces a source's inserts: ClickHouse wants about one
// insert per table per second, not one per request.
const DefaultLinger = 200 * time.Millisecond

// DefaultInsertRetry outlasts a server's restart, and stays well inside
// the minute shippers wait for an answer (Vector's default request
// timeout is 60 s).
const DefaultInsertRetry = 20 * time.Second

// DefaultInsertTimeout answers a request well inside the minute shippers
// wait (Vector's default request timeout is 60 s, after which it sends the
// batch again: a later 200 for the first send would store it twice).
const DefaultInsertTimeout = 30 * time.Second

// DefaultRefresh: a change another instance makes is seen within seconds.
const DefaultRefresh = 2 * time.Second

// Engine is logq's second storage engine: sources kept in ClickHouse tables,
// queries translated from logq's plans (view.go), ingest shredded by the
// same event.Tree as the local store's and inserted in groups (ingest.go).
// It keeps no event of its own: any number of logq instances may serve one
// database. It is safe for concurrent use.
type Engine struct {
	cfg     Config
	servers []*client // one per shard (one without a cluster)
	rr      uint64    // round robin over servers for queries
	shards  *shardSet // with a cluster whose shards are the servers: where inserts go (shards.go); under mu
	// shardErr is why the cluster cannot be written now (a server joined
	// that no URL is); inserts fail with it until a refresh clears it.
	shardErr  error
	stop      chan struct{} // ends the watch (watch.go)
	closeOnce sync.Once
	stopped   sync.WaitGroup

	mu      sync.Mutex
	sources map[string]*source

	feedMu sync.Mutex
	ring   *storage.Ring // the feed of what this instance acknowledged, made on first read (feed.go)

	rowsMoved atomic.Int64 // rows streamed from ClickHouse to answer queries
	resent    atomic.Int64 // bodies sent again after a failure (retry.go)
	narrowed  atomic.Int64 // top-k queries that read their rows' times first (translate.go)
}

// RowsMoved counts the rows queries have read from ClickHouse so far: with
// aggregation pushed down, about the rows of the results.
func (e *Engine) RowsMoved() int64 { return e.rowsMoved.Load() }

// Open checks that every server answers, with these credentials, and holds
// the database (and, with a cluster, knows it), and returns the engine.
// Errors name the setting at fault.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if len(cfg.URLs) == 0 {
		return nil, errors.New("--clickhouse-url: no server given")
	}
	if cfg.Database == "" {
		return nil, errors.New("--clickhouse-database: no database given")
	}
	if cfg.Cluster == "" && len(cfg.URLs) > 1 {
		return nil, fmt.Errorf("--clickhouse-url: %d servers given without --clickhouse-cluster: give one server, or name the cluster they are the shards of", len(cfg.URLs))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxFields <= 0 {
		cfg.MaxFields = event.DefaultMaxFields
	}
	if cfg.MaxSources <= 0 {
		cfg.MaxSources = 1000
	}
	if cfg.Linger <= 0 {
		cfg.Linger = DefaultLinger
	}
	if cfg.InsertTimeout <= 0 {
		cfg.InsertTimeout = DefaultInsertTimeout
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	switch {
	case cfg.InsertRetry == 0:
		cfg.InsertRetry = DefaultInsertRetry
	case cfg.InsertRetry < 0:
		cfg.InsertRetry = 0
	}
	e := &Engine{cfg: cfg, sources: map[string]*source{}, stop: make(chan struct{})}
	for _, raw := range cfg.URLs {
		c, err := newClient(raw, cfg.User, cfg.Password)
		if err != nil {
			return nil, fmt.Errorf("--clickhouse-url: %w", err)
		}
		e.servers = append(e.servers, c)
	}
	for _, c := range e.servers {
		out, err := c.text(ctx, "SELECT count() FROM system.databases WHERE name = "+quote(cfg.Database), nil)
		switch {
		case isCode(err, codeAuthFailed), isCode(err, codeUnknownUser):
			return nil, fmt.Errorf("--clickhouse-user/LOGQ_CLICKHOUSE_PASSWORD: %s refused them: %w", c.base.Host, err)
		case err != nil:
			return nil, fmt.Errorf("--clickhouse-url %s: %w", c.base.Redacted(), err)
		case strings.TrimSpace(out) != "1":
			return nil, fmt.Errorf("--clickhouse-database: %s has no database %q (logq makes its tables, not the database: CREATE DATABASE %s)", c.base.Host, cfg.Database, ident(cfg.Database))
		}
		if cfg.Cluster != "" {
			out, err := c.text(ctx, "SELECT count() FROM system.clusters WHERE cluster = "+quote(cfg.Cluster), nil)
			if err != nil {
				return nil, fmt.Errorf("--clickhouse-cluster: %w", err)
			}
			if strings.TrimSpace(out) == "0" {
				return nil, fmt.Errorf("--clickhouse-cluster: %s has no cluster %q in its remote_servers", c.base.Host, cfg.Cluster)
			}
		}
	}
	if cfg.Cluster != "" {
		shards, why, err := e.readShards(ctx)
		if err != nil {
			return nil, err
		}
		if shards == nil {
			cfg.Logger.Info("clickhouse: inserting through the Distributed tables", "why", why)
		}
		e.shards = shards
	}
	e.stopped.Add(1)
	go e.watch()
	return e, nil
}

// Close ends the engine's watch; inserts under way finish.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() { close(e.stop) })
	e.stopped.Wait()
	return nil
}

// server is the server queries and inserts go to, in turn.
func (e *Engine) server() *client {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rr++
	return e.servers[e.rr%uint64(len(e.servers))]
}

// table is the table queries and inserts name for a source (the
// Distributed one with a cluster), and local the one that holds the rows
// on each server.
func (e *Engine) table(name string) string { return ident(e.cfg.Database) + "." + ident(name) }
func (e *Engine) local(name string) string {
	if e.cfg.Cluster == "" {
		return e.table(name)
	}
	return ident(e.cfg.Database) + "." + ident(name+localSuffix)
}

// localSuffix names a source's table on each shard, under its Distributed
// table.
const localSuffix = "_local"

// Names lists the sources: the tables of the database that hold logq's
// columns (the Distributed ones with a cluster), sorted.
func (e *Engine) Names() []string {
	names, err := e.listSources(context.Background())
	if err != nil {
		e.cfg.Logger.Error("clickhouse: could not list the sources", "err", err)
	}
	return names
}

func (e *Engine) listSources(ctx context.Context) ([]string, error) {
	engine := "MergeTree"
	if e.cfg.Cluster != "" {
		engine = "Distributed"
	}
	out, err := e.server().text(ctx, fmt.Sprintf(`SELECT name FROM system.tables WHERE database = %s AND engine = %s
		AND name IN (SELECT table FROM system.columns WHERE database = %s AND name = 'timestamp' AND type = 'Int64') FORMAT TabSeparatedRaw`,
		quote(e.cfg.Database), quote(engine), quote(e.cfg.Database)), nil)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" {
			names = append(names, l)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Stats says what each source holds: its events and time range through
// its table, its bytes on disk from every server's parts.
func (e *Engine) Stats() []storage.SourceStats {
	ctx := context.Background()
	names, err := e.listSources(ctx)
	if err != nil {
		e.cfg.Logger.Error("clickhouse: could not list the sources", "err", err)
		return nil
	}
	bytes := map[string]int64{}
	for _, c := range e.servers {
		out, err := c.text(ctx, "SELECT table, sum(bytes_on_disk) FROM system.parts WHERE active AND database = "+quote(e.cfg.Database)+" GROUP BY table FORMAT TabSeparatedRaw", nil)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			t, n, ok := strings.Cut(l, "\t")
			if ok {
				var v int64
				fmt.Sscan(n, &v)
				bytes[strings.TrimSuffix(t, localSuffix)] += v
			}
		}
	}
	var out []storage.SourceStats
	for _, name := range names {
		st := storage.SourceStats{Name: name, Bytes: bytes[name]}
		row, err := e.server().text(ctx, "SELECT count(), min(timestamp), max(timestamp) FROM "+e.table(name)+" FORMAT TabSeparatedRaw", nil)
		if err == nil {
			fmt.Sscan(strings.TrimSpace(row), &st.Events, &st.First, &st.Last)
		}
		e.mu.Lock()
		if src := e.sources[name]; src != nil {
			st.Ingested, st.Overflowed = src.ingested.Load(), src.overflowed.Load()
		}
		e.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// ident quotes a name for ClickHouse SQL.
func ident(s string) string {
	return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(s) + "`"
}

// quote writes a string literal for ClickHouse SQL.
func quote(s string) string {
	b := append(make([]byte, 0, len(s)+2), '\'')
	return string(append(appendEscaped(b, []byte(s), true), '\''))
}
