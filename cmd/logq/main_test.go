package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"logq/api"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain lets tests run the command itself in a child process.
func TestMain(m *testing.M) {
	if os.Getenv("LOGQ_TEST_MAIN") == "1" {
		if n, err := strconv.ParseUint(os.Getenv("LOGQ_TEST_NOFILE"), 10, 64); err == nil {
			// A child run under a limit on open files (as `ulimit -n` would
			// set it, soft and hard alike).
			if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				panic(err)
			}
		}
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseServeFlagsAndEnvironment(t *testing.T) {
	c, err := parseServe(nil, env(map[string]string{"LOGQ_API_KEYS": "a, b", "LOGFLARE_API_KEY": "c", "LOGQ_ADDR": "127.0.0.1:9"}), io.Discard)
	require.NoError(t, err)
	require.Equal(t, append(api.Keys("a", "b"), api.Key{Value: "c", Scopes: api.ScopeIngest | api.ScopeQuery}), c.keys, "the public token ingests and queries")
	require.Equal(t, "127.0.0.1:9", c.addr)
	c, err = parseServe([]string{"--api-key", "x", "--api-key", "y", "--addr", ":4001"}, env(map[string]string{"LOGFLARE_PRIVATE_ACCESS_TOKEN": "z"}), io.Discard)
	require.NoError(t, err)
	require.Equal(t, api.Keys("x", "y", "z"), c.keys, "bare keys and the private token may do everything")
	require.Equal(t, ":4001", c.addr)
	c, err = parseServe([]string{"--api-key", "ingest:i", "--api-key", "query+ingest:q", "--api-key", "admin:a", "--api-key", "no:scope:k"}, env(nil), io.Discard)
	require.NoError(t, err)
	require.Equal(t, []api.Key{{Value: "i", Scopes: api.ScopeIngest}, {Value: "q", Scopes: api.ScopeIngest | api.ScopeQuery}, {Value: "a", Scopes: api.ScopeAll}, {Value: "no:scope:k", Scopes: api.ScopeAll}}, c.keys)
	c, err = parseServe([]string{"--sandbox-logs-all"}, env(nil), io.Discard)
	require.NoError(t, err)
	require.True(t, c.sandboxLogsAll)
	c, err = parseServe(nil, env(map[string]string{"LOGQ_SANDBOX_LOGS_ALL": "true"}), io.Discard)
	require.NoError(t, err)
	require.True(t, c.sandboxLogsAll)
	_, err = parseServe(nil, env(map[string]string{"LOGQ_SANDBOX_LOGS_ALL": "maybe"}), io.Discard)
	require.ErrorContains(t, err, "LOGQ_SANDBOX_LOGS_ALL")
	c, err = parseServe([]string{"--sandbox-logs-all=false"}, env(map[string]string{"LOGQ_SANDBOX_LOGS_ALL": "true"}), io.Discard)
	require.NoError(t, err)
	require.False(t, c.sandboxLogsAll, "an explicit flag wins over the environment")
	c, err = parseServe([]string{"--query-memory", "256MiB"}, env(nil), io.Discard)
	require.NoError(t, err)
	require.Equal(t, int64(256<<20), c.queryMemory)
	c, err = parseServe(nil, env(map[string]string{"LOGQ_QUERY_MEMORY": "2GiB"}), io.Discard)
	require.NoError(t, err)
	require.Equal(t, int64(2<<30), c.queryMemory)
	for _, bad := range []string{"lots", "-1MiB", "0", "99999999999GiB"} {
		_, err = parseServe([]string{"--query-memory", bad}, env(nil), io.Discard)
		require.ErrorContains(t, err, "--query-memory", bad)
	}
	c, err = parseServe([]string{"--query-timeout", "2m"}, env(nil), io.Discard)
	require.NoError(t, err)
	require.Equal(t, 2*time.Minute, c.queryTimeout)
	c, err = parseServe(nil, env(map[string]string{"LOGQ_QUERY_TIMEOUT": "90s"}), io.Discard)
	require.NoError(t, err)
	require.Equal(t, 90*time.Second, c.queryTimeout)
	_, err = parseServe([]string{"--query-timeout", "0"}, env(nil), io.Discard)
	require.ErrorContains(t, err, "--query-timeout")
	_, err = parseServe(nil, env(map[string]string{"LOGQ_QUERY_TIMEOUT": "soon"}), io.Discard)
	require.ErrorContains(t, err, "LOGQ_QUERY_TIMEOUT")
	c, err = parseServe(nil, env(nil), io.Discard)
	require.NoError(t, err)
	require.Equal(t, ":4000", c.addr)
	require.Positive(t, c.queryMemory)
	require.Equal(t, 30*time.Second, c.queryTimeout)
	for _, bad := range [][]string{{"--addr", "nonsense"}, {"--nope"}, {"extra"}, {"--demo-events", "0"}} {
		_, err := parseServe(bad, env(nil), io.Discard)
		require.Error(t, err, bad)
	}
	c, err = parseServe(nil, env(nil), io.Discard)
	require.NoError(t, err)
	require.Equal(t, 5*time.Second, c.drain)
	c, err = parseServe(nil, env(map[string]string{"LOGQ_DRAIN_DELAY": "250ms"}), io.Discard)
	require.NoError(t, err)
	require.Equal(t, 250*time.Millisecond, c.drain)
	c, err = parseServe([]string{"--drain-delay", "0s"}, env(map[string]string{"LOGQ_DRAIN_DELAY": "9s"}), io.Discard)
	require.NoError(t, err)
	require.Equal(t, time.Duration(0), c.drain)
	_, err = parseServe(nil, env(map[string]string{"LOGQ_DRAIN_DELAY": "soon"}), io.Discard)
	require.ErrorContains(t, err, "LOGQ_DRAIN_DELAY")
	_, err = parseServe(nil, env(map[string]string{"LOGQ_RETENTION": "soon"}), io.Discard)
	require.ErrorContains(t, err, "LOGQ_RETENTION")
}

func TestServeRefusesWithoutKey(t *testing.T) {
	var out, errb bytes.Buffer
	t.Setenv("LOGQ_API_KEYS", "")
	code := run([]string{"serve", "--addr", "127.0.0.1:0"}, &out, &errb)
	require.Equal(t, 2, code)
	require.Contains(t, errb.String(), "--api-key")
}

func TestBadEndpointFileStopsStart(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte(
		"id: 11111111-2222-4333-8444-555555555555\nname: my.broken\nquery: |\n  select count(*) from t where\n"), 0o644))
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--api-key", "k", "--addr", "127.0.0.1:0", "--endpoints", dir}, &out, &errb)
	require.Equal(t, 2, code)
	require.Regexp(t, `broken\.yaml:4:\d+: expected an expression`, errb.String())
}

func TestQueryInProcessOverNDJSON(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "edge.ndjson")
	now := time.Now().UTC()
	var lines []string
	for i := 0; i < 5; i++ {
		lines = append(lines, fmt.Sprintf(`{"timestamp":%q,"project":"pq","event_message":"line %d"}`, now.Add(-time.Duration(i)*time.Minute).Format(time.RFC3339), i))
	}
	require.NoError(t, os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	var out, errb bytes.Buffer
	code := run([]string{"query", "logs.all", "project=pq", "project_tier=FREE", "--file", "cloudflare.logs.prod=" + f}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.Contains(t, out.String(), "line 0")
	require.Contains(t, out.String(), "(5 rows)")
	out.Reset()
	code = run([]string{"query", "--json", "logs.all", "project=pq", "project_tier=FREE", "--file", "cloudflare.logs.prod=" + f}, &out, &errb)
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(out.String(), `{"result":[{"id":`))
	// An absent project_tier is FREE (seed §4.4: any other value), not an error.
	out.Reset()
	code = run([]string{"query", "logs.all", "project=pq", "--file", "cloudflare.logs.prod=" + f}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.Contains(t, out.String(), "(5 rows)")
	errb.Reset()
	code = run([]string{"query", "logs.all", "--file", "cloudflare.logs.prod=" + f}, &out, &errb)
	require.Equal(t, 1, code)
	require.Contains(t, errb.String(), "project is required")
}

// In-process, --sandbox-logs-all lets logs.all take sql=, for --explain too;
// without it sql= is refused, naming the switch.
func TestQueryInProcessSandboxed(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "pg.ndjson")
	now := time.Now().UTC()
	require.NoError(t, os.WriteFile(f, []byte(fmt.Sprintf(`{"timestamp":%q,"project":"pq","event_message":"db line"}`+"\n", now.Format(time.RFC3339))), 0o644))
	var out, errb bytes.Buffer
	args := []string{"query", "--json", "logs.all", "project=pq", "sql=select event_message::text as m from postgres_logs", "--file", "postgres.logs=" + f}
	require.Equal(t, 0, run(append(args, "--sandbox-logs-all"), &out, &errb), errb.String())
	require.JSONEq(t, `{"result":[{"m":"db line"}]}`, out.String())
	out.Reset()
	require.Equal(t, 1, run(args, &out, &errb), out.String())
	require.Contains(t, errb.String(), "parameter sql: endpoint logs.all is not sandboxed")
	require.Contains(t, errb.String(), "--sandbox-logs-all")
	out.Reset()
	errb.Reset()
	code := run([]string{"query", "--explain", "--sandbox-logs-all", "logs.all", "project=pq", "sql=select id from postgres_logs"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.Contains(t, out.String(), "Scan postgres.logs")
	require.NotContains(t, out.String(), "cloudflare")
}

func TestExplain(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"query", "--explain", "logs.all", "project=p", "project_tier=PRO"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.Contains(t, out.String(), "TopK 100")
	require.Contains(t, out.String(), "Scan cloudflare.logs.prod")
}

func TestVersionAndUsage(t *testing.T) {
	var out bytes.Buffer
	require.Equal(t, 0, run([]string{"version"}, &out, io.Discard))
	require.Contains(t, out.String(), "logq")
	require.Equal(t, 2, run(nil, io.Discard, io.Discard))
	require.Equal(t, 2, run([]string{"frobnicate"}, io.Discard, io.Discard))
}

func freePort(t *testing.T) string { return freePortB(t) }

func freePortB(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// The real binary: starts, answers, passes healthcheck, drains on SIGTERM
// (in-flight requests finish) and exits 0.
func TestServeGracefulShutdown(t *testing.T) {
	addr := freePort(t)
	cmd := exec.Command(os.Args[0], "serve", "--addr", addr, "--api-key", "k1", "--drain-delay", "3s", "--data-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "LOGQ_TEST_MAIN=1")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	start := time.Now()
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	// The server's life is logged (JSON by default), nothing else printed.
	sc := bufio.NewScanner(stderr)
	var msgs []string
	nextMsg := func() string {
		require.True(t, sc.Scan())
		var line struct{ Msg string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "a JSON log line: %s", sc.Text())
		msgs = append(msgs, line.Msg)
		return line.Msg
	}
	for nextMsg() != "listening" { // background work (the scrub) may log too
	}
	require.Contains(t, msgs, "data directory opened")
	base := "http://" + addr
	var ready bool
	for i := 0; i < 100 && !ready; i++ {
		if r, err := http.Get(base + "/ready"); err == nil {
			ready = r.StatusCode == 200
			r.Body.Close()
		}
		if !ready {
			time.Sleep(10 * time.Millisecond)
		}
	}
	require.True(t, ready)
	t.Logf("start-up to ready: %s", time.Since(start))
	var out bytes.Buffer
	require.Equal(t, 0, run([]string{"healthcheck", "--url", base}, &out, io.Discard))

	req, _ := http.NewRequest(http.MethodPost, base+"/api/logs?source_name=s", strings.NewReader(`[{"event_message":"x"}]`))
	req.Header.Set("X-API-KEY", "k1")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	rest := make(chan []string)
	go func() {
		var m []string
		for sc.Scan() {
			var line struct{ Msg string }
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				line.Msg = "not JSON: " + sc.Text()
			}
			m = append(m, line.Msg)
		}
		rest <- m
	}()
	// During the drain delay /ready says 503 (with Retry-After) while the
	// API still answers, so a load balancer stops sending first.
	var draining bool
	for i := 0; i < 200 && !draining; i++ {
		if r, err := http.Get(base + "/ready"); err == nil {
			draining = r.StatusCode == 503 && r.Header.Get("Retry-After") != ""
			r.Body.Close()
		}
		if !draining {
			time.Sleep(5 * time.Millisecond)
		}
	}
	require.True(t, draining, "/ready answered 503 during the drain")
	req, _ = http.NewRequest(http.MethodPost, base+"/api/logs?source_name=s", strings.NewReader(`[{"event_message":"during drain"}]`))
	req.Header.Set("X-API-KEY", "k1")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, "requests are still served while draining")
	msgs = append(msgs, <-rest...)
	err = cmd.Wait()
	require.NoError(t, err, "exit status 0 after SIGTERM")
	require.Subset(t, msgs, []string{"draining", "stopped"})
	for _, m := range msgs {
		require.NotContains(t, m, "not JSON")
	}
	require.Empty(t, stdout.String(), "without --demo nothing is printed")
	require.Equal(t, 1, run([]string{"healthcheck", "--url", base}, io.Discard, io.Discard), "no longer serving")
}

func TestParseServeStorage(t *testing.T) {
	day := 24 * time.Hour
	cases := []struct {
		args     []string
		env      map[string]string
		dataDir  string
		inMemory bool
		ret      time.Duration
		maxDisk  int64
		err      string
	}{
		{args: nil, dataDir: "logq-data", ret: 90 * day},
		{args: []string{"--demo"}, inMemory: true, ret: 90 * day},
		{args: []string{"--demo", "--data-dir", "/d"}, dataDir: "/d", ret: 90 * day},
		{args: []string{"--in-memory"}, inMemory: true, ret: 90 * day},
		{env: map[string]string{"LOGQ_DATA_DIR": "/e"}, dataDir: "/e", ret: 90 * day},
		{args: []string{"--data-dir", "/f"}, env: map[string]string{"LOGQ_DATA_DIR": "/e"}, dataDir: "/f", ret: 90 * day},
		{args: []string{"--in-memory", "--data-dir", "/f"}, err: "contradict"},
		{args: []string{"--retention", "7d"}, dataDir: "logq-data", ret: 7 * day},
		{args: []string{"--retention", "36h"}, dataDir: "logq-data", ret: 36 * time.Hour},
		{args: []string{"--retention", "0"}, dataDir: "logq-data", ret: 0},
		{env: map[string]string{"LOGQ_RETENTION": "2d"}, dataDir: "logq-data", ret: 2 * day},
		{args: []string{"--retention", "1d"}, env: map[string]string{"LOGQ_RETENTION": "2d"}, dataDir: "logq-data", ret: day},
		{args: []string{"--retention", "7days"}, err: "--retention"},
		{args: []string{"--max-disk", "lots"}, err: "--max-disk"},
		{env: map[string]string{"LOGQ_MAX_DISK": "1TiB"}, dataDir: "logq-data", ret: 90 * day, maxDisk: 1 << 40},
		{args: []string{"--max-disk", "20GiB"}, dataDir: "logq-data", ret: 90 * day, maxDisk: 20 << 30},
		{args: []string{"--retention", "-3d"}, err: "--retention"},
	}
	for _, c := range cases {
		got, err := parseServe(c.args, env(c.env), io.Discard)
		if c.err != "" {
			require.ErrorContains(t, err, c.err, c.args)
			continue
		}
		require.NoError(t, err, c.args)
		require.Equal(t, c.dataDir, got.dataDir, c.args)
		require.Equal(t, c.inMemory, got.inMemory, c.args)
		require.Equal(t, c.ret, got.retention, c.args)
		require.Equal(t, c.maxDisk, got.maxDisk, c.args)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"512MiB": 512 << 20, "2GiB": 2 << 30, "2gib": 2 << 30, "1G": 1 << 30, "500MB": 500_000_000,
		"1048576": 1 << 20, "64KiB": 64 << 10, " 3 GiB ": 3 << 30, "1TB": 1_000_000_000_000, "0": 0,
	} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "GiB", "-1GiB", "1.5GiB", "12 parsecs", "99999999999TiB"} {
		_, err := parseSize(bad)
		require.Error(t, err, bad)
	}
}

func TestMachineMemory(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(p string) ([]byte, error) {
			if v, ok := m[p]; ok {
				return []byte(v), nil
			}
			return nil, os.ErrNotExist
		}
	}
	meminfo := "MemTotal:       24684084 kB\nMemFree: 1 kB\n"
	require.Equal(t, int64(1<<30), machineMemory(files(map[string]string{"/sys/fs/cgroup/memory.max": "1073741824\n", "/proc/meminfo": meminfo})))
	require.Equal(t, int64(24684084)<<10, machineMemory(files(map[string]string{"/sys/fs/cgroup/memory.max": "max\n", "/proc/meminfo": meminfo})))
	require.Equal(t, int64(2<<30), machineMemory(files(map[string]string{"/sys/fs/cgroup/memory/memory.limit_in_bytes": "2147483648", "/proc/meminfo": meminfo})))
	require.Equal(t, int64(24684084)<<10, machineMemory(files(map[string]string{"/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712", "/proc/meminfo": meminfo})))
	require.Equal(t, int64(4<<30), machineMemory(files(nil)))
}

// The default limit: 512 MiB beside a data directory, never more than half
// the machine; half the machine when the events live in memory.
func TestDefaultMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		machine  int64
		inMemory bool
		want     int64
	}{
		{24 << 30, false, 512 << 20},
		{24 << 30, true, 12 << 30},
		{512 << 20, false, 256 << 20},
		{1 << 30, false, 512 << 20},
		{1 << 30, true, 512 << 20},
	} {
		require.Equal(t, c.want, defaultMemoryLimit(c.machine, c.inMemory), "%d %v", c.machine, c.inMemory)
	}
}

// --sandbox-logs-all turns sandboxing on for the built-in logs.all only; the
// seed's default is off, and a logs.all replaced from --endpoints keeps the
// sandboxed: of its own YAML.
func TestSandboxLogsAllSwitch(t *testing.T) {
	sandboxed := func(dir string, on bool) map[string]bool {
		eps, err := loadEndpoints(dir, on)
		require.NoError(t, err)
		out := map[string]bool{}
		for _, e := range eps {
			out[e.Name] = e.Sandboxed
		}
		return out
	}
	require.Equal(t, map[string]bool{"logs.all": false, "usage.api-counts": false, "functions.invocation-stats": false}, sandboxed("", false))
	require.Equal(t, map[string]bool{"logs.all": true, "usage.api-counts": false, "functions.invocation-stats": false}, sandboxed("", true))

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte(`id: 11111111-2222-4333-8444-555555555555
name: logs.all
sandboxed: false
query: |
  select 1 as x
`), 0o644))
	require.False(t, sandboxed(dir, true)["logs.all"])
}
