package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"logq/api"
	"logq/clickhouse"
	"logq/endpoint"
	"logq/fixtures"
	"logq/logstore"
)

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

type serveConfig struct {
	addr string
	keys []api.Key
	// drainDenyPrivate refuses drains to private and loopback addresses.
	drainDenyPrivate bool
	endpoints        string
	demo             bool
	demoSize         int
	retention        time.Duration
	dataDir          string // "" with inMemory
	inMemory         bool
	segRows          int
	memLimit         int64
	maxDisk          int64
	maxFields        int
	// maxSources bounds the sources a server holds (0: the store's default).
	maxSources int
	// storage is "local" (the data directory, or memory) or "clickhouse".
	storage string
	ch      clickhouseConfig
	// sandboxLogsAll lets callers of the built-in logs.all send sql= (what
	// self-hosted Studio does for every log page); the seed's default is off.
	sandboxLogsAll bool
	// queryMemory is each query's memory budget in bytes (see exec.memBudget).
	queryMemory int64
	// queryTimeout is each query's time limit (a 504 past it).
	queryTimeout time.Duration
	drain        time.Duration
	logLevel     string
	logFormat    string
}

// defaultRetention is the longest window a built-in endpoint reads.
const defaultRetention = 90 * 24 * time.Hour

// parseAge reads a retention age: a Go duration ("36h", "90m") or a whole
// number of days ("90d", "7d"); "0" keeps everything.
func parseAge(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("invalid age %q: want whole days such as 7d, or a duration such as 36h", v)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid age %q: want whole days such as 7d, or a duration such as 36h", v)
	}
	return d, nil
}

// parseServe reads flags, then environment for what flags left unset.
func parseServe(args []string, env func(string) string, stderr io.Writer) (*serveConfig, error) {
	fs := newFlagSet("serve", stderr)
	c := &serveConfig{}
	var keys stringList
	fs.StringVar(&c.addr, "addr", "", "listen address (env LOGQ_ADDR; default :4000)")
	fs.Var(&keys, "api-key", "API key; repeatable (env LOGQ_API_KEYS, comma-separated). KEY may do everything; ingest:KEY only ingest, query:KEY only queries (endpoints, /api/query, the tail), admin:KEY everything including the management API; scopes join with + (ingest+query:KEY). LOGFLARE_PRIVATE_ACCESS_TOKEN is admin, LOGFLARE_PUBLIC_ACCESS_TOKEN and LOGFLARE_API_KEY ingest+query")
	fs.BoolVar(&c.drainDenyPrivate, "drain-deny-private", false, "refuse drains to loopback, private and link-local addresses (env LOGQ_DRAIN_DENY_PRIVATE=true); by default a drain may reach any address, as self-hosted destinations live on private networks, so the admin key can make logq send requests anywhere")
	fs.StringVar(&c.endpoints, "endpoints", "", "directory of extra endpoint YAML files (env LOGQ_ENDPOINTS_DIR)")
	fs.BoolVar(&c.demo, "demo", false, "fill the nine sources with synthetic records over the last 7 days")
	fs.IntVar(&c.demoSize, "demo-events", 20000, "events per source with --demo")
	retention := fs.String("retention", "", "drop events older than this: days (90d, 7d) or a duration (36h); 0 keeps everything (env LOGQ_RETENTION; default 90d)")
	fs.StringVar(&c.dataDir, "data-dir", "", "directory holding the data; created if missing (env LOGQ_DATA_DIR; default ./logq-data, or memory only with --demo)")
	fs.IntVar(&c.segRows, "segment-rows", logstore.DefaultSegmentRows, "events per segment (and per WAL file); smaller seals sooner")
	fs.IntVar(&c.maxFields, "max-fields", 0, "field paths per source; keys past it are kept as JSON in __overflow columns (env LOGQ_MAX_FIELDS; default 500)")
	fs.StringVar(&c.storage, "storage", "", "where events live: local (--data-dir, or memory) or clickhouse (env LOGQ_STORAGE; default local)")
	var chURLs stringList
	fs.Var(&chURLs, "clickhouse-url", "with --storage clickhouse: a server's HTTP interface, http://HOST:8123; one per shard with --clickhouse-cluster; repeatable (env LOGQ_CLICKHOUSE_URL, comma-separated)")
	fs.StringVar(&c.ch.database, "clickhouse-database", "", "with --storage clickhouse: the database (it must exist; logq makes its tables) (env LOGQ_CLICKHOUSE_DATABASE)")
	fs.StringVar(&c.ch.cluster, "clickhouse-cluster", "", "with --storage clickhouse: the cluster whose shards the URLs are; a Distributed table spreads each source over them (env LOGQ_CLICKHOUSE_CLUSTER)")
	fs.StringVar(&c.ch.user, "clickhouse-user", "", "with --storage clickhouse: the user (env LOGQ_CLICKHOUSE_USER; the password only from LOGQ_CLICKHOUSE_PASSWORD)")
	fs.IntVar(&c.maxSources, "max-sources", 0, "sources the server holds; ingest into one more is refused with 400 (env LOGQ_MAX_SOURCES; default 1000, fewer when the process's open-file limit is low)")
	maxDisk := fs.String("max-disk", "", "bytes the data directory may take, e.g. 20GiB; past it the oldest data is dropped first (env LOGQ_MAX_DISK; default no bound)")
	memLimit := fs.String("memory-limit", "", "memory the process may use, e.g. 512MiB or 2GiB (env LOGQ_MEMORY_LIMIT; default 512MiB with a data directory or ClickHouse, half the machine's or the container's memory when every event is kept in memory; never above half)")
	fs.BoolVar(&c.inMemory, "in-memory", false, "keep everything in memory and write nothing; a restart forgets every event")
	var queryMemory string
	fs.StringVar(&queryMemory, "query-memory", "", "memory budget of one query's joins, sorts and aggregates, e.g. 256MiB (env LOGQ_QUERY_MEMORY; default a quarter of --memory-limit)")
	fs.BoolVar(&c.sandboxLogsAll, "sandbox-logs-all", false, "let callers of the built-in logs.all send their own SELECT in sql=, as Supabase Studio does (env LOGQ_SANDBOX_LOGS_ALL=true)")
	insertTimeout := fs.String("clickhouse-insert-timeout", "", "with --storage clickhouse: the longest an ingest request waits for its insert, retries included; past it the request gets 503 and nothing of it is acknowledged. Keep it below the shippers' own timeout (Vector's is 60s) (env LOGQ_CLICKHOUSE_INSERT_TIMEOUT; default 30s)")
	queryTimeout := fs.String("query-timeout", "", "time limit of one query; past it the query gets 504 (env LOGQ_QUERY_TIMEOUT; default 30s)")
	drain := fs.String("drain-delay", "", "on SIGTERM, answer /ready with 503 this long before closing the listener (env LOGQ_DRAIN_DELAY; default 5s)")
	fs.StringVar(&c.logLevel, "log-level", "", "debug, info, warn or error (env LOGQ_LOG_LEVEL; default info)")
	fs.StringVar(&c.logFormat, "log-format", "", "text or json (env LOGQ_LOG_FORMAT; default json)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if _, err := newLogger(c, env, io.Discard); err != nil {
		return nil, err
	}
	var err error
	if c.queryTimeout, err = durationSetting(*queryTimeout, "query-timeout", env, 30*time.Second, false); err != nil {
		return nil, err
	}
	if c.ch.insertTimeout, err = durationSetting(*insertTimeout, "clickhouse-insert-timeout", env, clickhouse.DefaultInsertTimeout, false); err != nil {
		return nil, err
	}
	if c.drain, err = durationSetting(*drain, "drain-delay", env, 5*time.Second, true); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("serve takes no arguments, got %q", fs.Args())
	}
	if c.addr == "" {
		c.addr = env("LOGQ_ADDR")
	}
	if c.addr == "" {
		c.addr = ":4000"
	}
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		return nil, fmt.Errorf("invalid --addr %q: %v", c.addr, err)
	}
	if c.endpoints == "" {
		c.endpoints = env("LOGQ_ENDPOINTS_DIR")
	}
	c.retention = defaultRetention
	for _, v := range []struct{ name, val string }{{"--retention", *retention}, {"LOGQ_RETENTION", env("LOGQ_RETENTION")}} {
		if v.val == "" {
			continue
		}
		d, err := parseAge(v.val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		c.retention = d
		break
	}
	if c.dataDir == "" {
		c.dataDir = env("LOGQ_DATA_DIR")
	}
	switch {
	case c.inMemory && c.dataDir != "":
		return nil, fmt.Errorf("--in-memory and --data-dir (or LOGQ_DATA_DIR) contradict each other: choose one")
	case c.dataDir == "" && c.demo:
		c.inMemory = true // synthetic data is not worth keeping
	case c.dataDir == "" && !c.inMemory:
		c.dataDir = "logq-data"
	}
	for _, v := range []struct{ name, val string }{{"--max-disk", *maxDisk}, {"LOGQ_MAX_DISK", env("LOGQ_MAX_DISK")}} {
		if v.val == "" {
			continue
		}
		n, err := parseSize(v.val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		c.maxDisk = n
		break
	}
	if c.maxFields == 0 && env("LOGQ_MAX_FIELDS") != "" {
		n, err := strconv.Atoi(env("LOGQ_MAX_FIELDS"))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("invalid LOGQ_MAX_FIELDS %q: want a positive number", env("LOGQ_MAX_FIELDS"))
		}
		c.maxFields = n
	}
	if c.maxSources == 0 && env("LOGQ_MAX_SOURCES") != "" {
		n, err := strconv.Atoi(env("LOGQ_MAX_SOURCES"))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("invalid LOGQ_MAX_SOURCES %q: want a positive number", env("LOGQ_MAX_SOURCES"))
		}
		c.maxSources = n
	}
	if err := c.parseStorage(chURLs, env); err != nil {
		return nil, err
	}
	if c.maxSources < 0 {
		return nil, fmt.Errorf("invalid --max-sources %d: must be positive", c.maxSources)
	}
	if c.maxFields < 0 {
		return nil, fmt.Errorf("invalid --max-fields %d: must be positive", c.maxFields)
	}
	c.memLimit = defaultMemoryLimit(machineMemory(readFile), c.inMemory)
	for _, v := range []struct{ name, val string }{{"--memory-limit", *memLimit}, {"LOGQ_MEMORY_LIMIT", env("LOGQ_MEMORY_LIMIT")}} {
		if v.val == "" {
			continue
		}
		n, err := parseSize(v.val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		if n < 64<<20 {
			return nil, fmt.Errorf("%s: %s is below the 64MiB logq needs to run", v.name, v.val)
		}
		c.memLimit = n
		break
	}
	if c.segRows <= 0 {
		return nil, fmt.Errorf("invalid --segment-rows %d: must be positive", c.segRows)
	}
	explicit := map[string]bool{} // flags given on the command line win over the environment
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	if !explicit["sandbox-logs-all"] {
		if v := env("LOGQ_SANDBOX_LOGS_ALL"); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("invalid LOGQ_SANDBOX_LOGS_ALL %q: want true or false", v)
			}
			c.sandboxLogsAll = on
		}
	}
	if !explicit["drain-deny-private"] {
		if v := env("LOGQ_DRAIN_DENY_PRIVATE"); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("invalid LOGQ_DRAIN_DENY_PRIVATE %q: want true or false", v)
			}
			c.drainDenyPrivate = on
		}
	}
	if queryMemory == "" {
		queryMemory = env("LOGQ_QUERY_MEMORY")
	}
	if queryMemory == "" {
		c.queryMemory = budgetFor(c.memLimit).query
	} else {
		n, err := parseSize(queryMemory)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("invalid --query-memory %q: want a size such as 256MiB or 2GiB", queryMemory)
		}
		c.queryMemory = n
	}
	if c.demoSize <= 0 {
		return nil, fmt.Errorf("invalid --demo-events %d: must be positive", c.demoSize)
	}
	// --api-key and LOGQ_API_KEYS may carry scopes (api.ParseKey); the
	// Logflare tokens have theirs: the private one manages, the public one
	// (and its old name) ingests and queries.
	var raw []string
	raw = append(raw, keys...)
	raw = append(raw, strings.Split(env("LOGQ_API_KEYS"), ",")...)
	for _, r := range raw {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		k, err := api.ParseKey(r)
		if err != nil {
			return nil, fmt.Errorf("invalid --api-key: %w", err)
		}
		c.keys = append(c.keys, k)
	}
	for _, v := range []struct {
		env    string
		scopes api.Scope
	}{{"LOGFLARE_PRIVATE_ACCESS_TOKEN", api.ScopeAll}, {"LOGFLARE_PUBLIC_ACCESS_TOKEN", api.ScopeIngest | api.ScopeQuery}, {"LOGFLARE_API_KEY", api.ScopeIngest | api.ScopeQuery}} {
		if k := strings.TrimSpace(env(v.env)); k != "" {
			c.keys = append(c.keys, api.Key{Value: k, Scopes: v.scopes})
		}
	}
	return c, nil
}

// loadEndpoints returns the built-in endpoints, replaced by any in dir with
// the same name or id. sandboxLogsAll turns sandboxing on for the built-in
// logs.all only: a logs.all replaced from dir says so in its own YAML.
func loadEndpoints(dir string, sandboxLogsAll bool) ([]*endpoint.Endpoint, error) {
	builtin, err := endpoint.LoadFS(fixtures.Endpoints, "endpoints")
	if err != nil {
		return nil, fmt.Errorf("built-in endpoints: %w", err)
	}
	for _, b := range builtin {
		if b.Name == "logs.all" {
			b.Sandboxed = b.Sandboxed || sandboxLogsAll
			b.SandboxHint = "start logq with --sandbox-logs-all (for serve, also LOGQ_SANDBOX_LOGS_ALL=true)"
		}
	}
	if dir == "" {
		return builtin, nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--endpoints %s: not a readable directory", dir)
	}
	extra, err := endpoint.LoadFS(os.DirFS(dir), ".")
	if err != nil {
		return nil, fmt.Errorf("%s/%w", strings.TrimSuffix(dir, "/"), err)
	}
	seen := map[string]string{}
	for _, e := range extra {
		for _, k := range []string{e.Name, strings.ToLower(e.ID)} {
			if other, dup := seen[k]; dup {
				return nil, fmt.Errorf("%s: name or id %s is also used by %s", e.File, k, other)
			}
			seen[k] = e.File
		}
	}
	out := extra
	for _, b := range builtin {
		if _, replaced := seen[b.Name]; replaced {
			continue
		}
		if _, replaced := seen[strings.ToLower(b.ID)]; replaced {
			continue
		}
		out = append(out, b)
	}
	return out, nil
}

func serve(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return serveUntil(ctx, args, stdout, stderr)
}

// serveUntil runs the server until ctx ends (a signal, or a test), then drains.
func serveUntil(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseServe(args, os.Getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "logq serve:", err)
		return 2
	}
	if len(cfg.keys) == 0 {
		if !cfg.demo {
			fmt.Fprintln(stderr, "logq serve: no API key configured. Set one with --api-key KEY or LOGQ_API_KEYS=KEY "+
				"(Logflare's LOGFLARE_PRIVATE_ACCESS_TOKEN / LOGFLARE_API_KEY also work), or run with --demo to get a generated key.")
			return 2
		}
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		cfg.keys = []api.Key{{Value: "demo-" + hex.EncodeToString(b), Scopes: api.ScopeAll}}
		fmt.Fprintf(stdout, "logq: --demo without a key: generated API key %s\n", cfg.keys[0].Value)
	}
	eps, err := loadEndpoints(cfg.endpoints, cfg.sandboxLogsAll)
	if err != nil {
		fmt.Fprintln(stderr, "logq serve:", err)
		return 2
	}
	// From here on what the server does is logged (--log-format); stdout
	// keeps only --demo's key and hints, which are for a person.
	log, _ := newLogger(cfg, os.Getenv, stderr) // checked by parseServe
	budget := budgetFor(cfg.memLimit)
	debug.SetMemoryLimit(budget.goLimit)
	store, err := openStore(ctx, cfg, log, budget)
	if err != nil {
		log.Error("cannot open the storage", "storage", cfg.storage, "err", err)
		fmt.Fprintln(stderr, "logq serve:", err)
		return 1
	}
	// Closed last (defers run in reverse): after the HTTP server has finished
	// every request, so no acknowledged event is still being written.
	defer func() {
		if err := store.close(); err != nil {
			log.Error("closing the storage", "err", err)
		}
	}()
	over := watchMemory(budget.limit)
	srv := api.New(api.Config{Keys: cfg.keys, Endpoints: eps, Backend: store.Backend, Drains: store.drains, Logger: log, Overloaded: over.Load, QueryMemory: cfg.queryMemory, QueryTimeout: cfg.queryTimeout})
	defer srv.Close()

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		log.Error("cannot listen", "addr", cfg.addr, "err", err)
		return 1
	}
	httpSrv := srv.HTTPServer()
	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "endpoints", len(eps))

	if cfg.demo {
		start := time.Now()
		loadDemo(store.ingest, cfg.demoSize)
		log.Info("demo data loaded", "events_per_source", cfg.demoSize, "duration_ms", ms(time.Since(start)))
		printDemoHints(stdout, ln.Addr().String(), cfg.keys[0].Value)
	}
	srv.SetReady(true)
	if cfg.retention > 0 || cfg.maxDisk > 0 {
		go func() {
			t := time.NewTicker(time.Minute)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					store.retain()
				}
			}
		}()
	}

	select {
	case err := <-served:
		log.Error("serving stopped", "err", err)
		return 1
	case <-ctx.Done():
	}
	// Drain: /ready says 503 for the drain delay while requests are still
	// served (load balancers need that long to notice), then the listener
	// closes, in-flight requests finish, and the process exits 0.
	srv.Drain()
	log.Info("draining", "delay", cfg.drain.String())
	time.Sleep(cfg.drain)
	srv.SetReady(false)
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := httpSrv.Shutdown(shutdown); err != nil {
		log.Error("shutdown", "err", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

// newLogger builds the slog logger from --log-level/--log-format, else
// LOGQ_LOG_LEVEL/LOGQ_LOG_FORMAT, else info and json.
func newLogger(c *serveConfig, env func(string) string, w io.Writer) (*slog.Logger, error) {
	level, format := c.logLevel, c.logFormat
	if level == "" {
		level = env("LOGQ_LOG_LEVEL")
	}
	if format == "" {
		format = env("LOGQ_LOG_FORMAT")
	}
	var lv slog.Level
	if level != "" {
		if err := lv.UnmarshalText([]byte(level)); err != nil {
			return nil, fmt.Errorf("invalid log level %q: want debug, info, warn or error", level)
		}
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(format) {
	case "", "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("invalid log format %q: want text or json", format)
}

// loadDemo fills every source with synthetic events over the last 7 days.
func loadDemo(ingest func(string, [][]byte), n int) {
	spec := fixtures.DefaultSpec(n, time.Now().UTC())
	for _, src := range fixtures.Sources {
		fixtures.GenerateBatches(spec, src, 5000, func(evs [][]byte) { ingest(src, evs) })
	}
}

func printDemoHints(w io.Writer, addr, key string) {
	host := addr
	if strings.HasPrefix(host, "[::]") || strings.HasPrefix(host, "0.0.0.0") {
		_, port, _ := net.SplitHostPort(host)
		host = "127.0.0.1:" + port
	}
	fmt.Fprintf(w, "try:\n  curl -H 'X-API-KEY: %s' 'http://%s/api/endpoints/query/functions.invocation-stats?project=%s&interval=1day'\n",
		key, host, fixtures.ProjectRef(0))
}

// durationSetting reads a duration given as --name, else as the environment
// variable LOGQ_NAME, else def. Zero is allowed only when zeroOK; a negative
// duration never is.
func durationSetting(flagValue, name string, env func(string) string, def time.Duration, zeroOK bool) (time.Duration, error) {
	v, from := flagValue, "--"+name
	if v == "" {
		from = "LOGQ_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		v = env(from)
	}
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d == 0 && !zeroOK {
		want := "a positive duration"
		if zeroOK {
			want = "a duration"
		}
		return 0, fmt.Errorf("invalid %s %q: want %s such as %s", from, v, want, def)
	}
	return d, nil
}

// ms is a duration in milliseconds, as the request log writes durations.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
