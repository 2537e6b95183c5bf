package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain lets tests run the command itself in a child process.
func TestMain(m *testing.M) {
	if os.Getenv("LOGQ_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseServeFlagsAndEnvironment(t *testing.T) {
	c, err := parseServe(nil, env(map[string]string{"LOGQ_API_KEYS": "a, b", "LOGFLARE_API_KEY": "c", "LOGQ_ADDR": "127.0.0.1:9"}), io.Discard)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, c.keys)
	require.Equal(t, "127.0.0.1:9", c.addr)
	c, err = parseServe([]string{"--api-key", "x", "--api-key", "y", "--addr", ":4001"}, env(map[string]string{"LOGFLARE_PRIVATE_ACCESS_TOKEN": "z"}), io.Discard)
	require.NoError(t, err)
	require.Equal(t, []string{"x", "y", "z"}, c.keys)
	require.Equal(t, ":4001", c.addr)
	c, err = parseServe(nil, env(nil), io.Discard)
	require.NoError(t, err)
	require.Equal(t, ":4000", c.addr)
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
	errb.Reset()
	code = run([]string{"query", "logs.all", "project=pq", "--file", "cloudflare.logs.prod=" + f}, &out, &errb)
	require.Equal(t, 1, code)
	require.Contains(t, errb.String(), "project_tier is required")
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

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// The real binary: starts, answers, passes healthcheck, drains on SIGTERM
// (in-flight requests finish) and exits 0.
func TestServeGracefulShutdown(t *testing.T) {
	addr := freePort(t)
	cmd := exec.Command(os.Args[0], "serve", "--addr", addr, "--api-key", "k1", "--drain-delay", "3s")
	cmd.Env = append(os.Environ(), "LOGQ_TEST_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard
	start := time.Now()
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	require.True(t, sc.Scan())
	require.Contains(t, sc.Text(), "listening on")
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
	go func() {
		for sc.Scan() {
		}
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
	err = cmd.Wait()
	require.NoError(t, err, "exit status 0 after SIGTERM")
	require.Equal(t, 1, run([]string{"healthcheck", "--url", base}, io.Discard, io.Discard), "no longer serving")
}
