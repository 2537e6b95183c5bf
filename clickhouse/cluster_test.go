package clickhouse

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The tests of this package run against a private ClickHouse cluster of two
// shards, two clickhouse-server processes on loopback started by TestMain
// (the Debian package clickhouse-server; `.ci/run` installs it). Without
// the server binary they are skipped with a note that says how to run them,
// unless LOGQ_REQUIRE_CLICKHOUSE=1 (CI) makes that a failure.

var cluster *testCluster

type testCluster struct {
	dir     string
	servers []*testServer
}

type testServer struct {
	http, tcp int
	dir       string
	cmd       *exec.Cmd
	external  string // a server this suite did not start (LOGQ_CLICKHOUSE_TEST_URL)
	extra     string // more clusters for remote_servers (a test's; see setClusters)
	// configTime is the time config.xml was last dated (writeConfig).
	configTime time.Time
}

func (s *testServer) url() string {
	if s.external != "" {
		return s.external
	}
	return fmt.Sprintf("http://127.0.0.1:%d", s.http)
}

// external reports whether the suite runs against a server given by
// LOGQ_CLICKHOUSE_TEST_URL (one server, no cluster: for checks by hand
// against other ClickHouse versions) instead of its own cluster.
func (c *testCluster) external() bool { return c.servers[0].external != "" }

// needOwnServers skips a test that stops servers when the suite runs
// against a server it did not start.
func (c *testCluster) needOwnServers(t testing.TB) {
	t.Helper()
	if c.external() {
		t.Skip("stops servers: runs on the suite's own cluster only")
	}
}

// serverBinary finds clickhouse-server.
func serverBinary() string {
	for _, name := range []string{"clickhouse-server", "/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

const clusterName = "logq_test"

// replicaCluster is the same servers as one shard with two replicas: a
// cluster whose inserts go through the Distributed table.
const replicaCluster = "logq_test_replicas"

func TestMain(m *testing.M) {
	if u := os.Getenv("LOGQ_CLICKHOUSE_TEST_URL"); u != "" {
		cluster = &testCluster{servers: []*testServer{{external: u}}}
		os.Exit(m.Run())
	}
	bin := serverBinary()
	if bin == "" {
		if os.Getenv("LOGQ_REQUIRE_CLICKHOUSE") == "1" {
			fmt.Fprintln(os.Stderr, "clickhouse tests: LOGQ_REQUIRE_CLICKHOUSE=1 but no clickhouse-server binary is installed")
			os.Exit(1)
		}
		os.Exit(m.Run()) // each test skips, saying how to run it
	}
	c, err := startCluster(bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "clickhouse tests: starting the cluster:", err)
		if c != nil {
			c.stop()
		}
		os.Exit(1)
	}
	cluster = c
	code := m.Run()
	c.stop()
	os.Exit(code)
}

// needCluster skips a test when no server binary was found.
func needCluster(t testing.TB) *testCluster {
	t.Helper()
	if cluster == nil {
		t.Skip("no clickhouse-server binary: install the Debian package clickhouse-server (`.ci/run` does) to run the ClickHouse suite")
	}
	return cluster
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	var ports []int
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func startCluster(bin string) (*testCluster, error) {
	dir, err := os.MkdirTemp("", "logq-clickhouse-")
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(4)
	if err != nil {
		return nil, err
	}
	c := &testCluster{dir: dir}
	for i := 0; i < 2; i++ {
		c.servers = append(c.servers, &testServer{http: ports[2*i], tcp: ports[2*i+1], dir: filepath.Join(dir, fmt.Sprint("s", i))})
	}
	for _, s := range c.servers {
		if err := s.writeConfig(c.servers); err != nil {
			return c, err
		}
		if err := s.start(bin); err != nil {
			return c, err
		}
	}
	return c, nil
}

func (s *testServer) writeConfig(all []*testServer) error {
	for _, d := range []string{"data", "tmp", "log", "user_files", "format_schemas"} {
		if err := os.MkdirAll(filepath.Join(s.dir, d), 0o755); err != nil {
			return err
		}
	}
	var shards, replicas strings.Builder
	for _, o := range all {
		fmt.Fprintf(&shards, "<shard><replica><host>127.0.0.1</host><port>%d</port></replica></shard>", o.tcp)
		fmt.Fprintf(&replicas, "<replica><host>127.0.0.1</host><port>%d</port></replica>", o.tcp)
	}
	config := fmt.Sprintf(`<yandex>
  <logger><level>warning</level><log>%[1]s/log/server.log</log><errorlog>%[1]s/log/server.err.log</errorlog></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>%[2]d</http_port>
  <tcp_port>%[3]d</tcp_port>
  <path>%[1]s/data/</path>
  <tmp_path>%[1]s/tmp/</tmp_path>
  <user_files_path>%[1]s/user_files/</user_files_path>
  <format_schema_path>%[1]s/format_schemas/</format_schema_path>
  <users_config>%[1]s/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>268435456</mark_cache_size>
  <remote_servers><%[4]s>%[5]s</%[4]s><%[6]s><shard>%[7]s</shard></%[6]s>%[8]s</remote_servers>
</yandex>
`, s.dir, s.http, s.tcp, clusterName, shards.String(), replicaCluster, replicas.String(), s.extra)
	users := `<yandex>
  <profiles><default><max_threads>2</max_threads><max_memory_usage>4000000000</max_memory_usage></default></profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default>
    <secret><password>s3cret</password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></secret>
  </users>
  <quotas><default></default></quotas>
</yandex>
`
	path := filepath.Join(s.dir, "config.xml")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		return err
	}
	// The server sees a change by the file's time in whole seconds: a
	// second write within the second of the first would go unseen, so each
	// write is dated a second past the one before.
	next := s.configTime.Add(time.Second)
	if now := time.Now().Truncate(time.Second); now.After(next) {
		next = now
	}
	s.configTime = next
	if err := os.Chtimes(path, s.configTime, s.configTime); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.dir, "users.xml"), []byte(users), 0o644)
}

func (s *testServer) start(bin string) error {
	out, err := os.Create(filepath.Join(s.dir, "log", "stdout"))
	if err != nil {
		return err
	}
	s.cmd = exec.Command(bin, "--config-file="+filepath.Join(s.dir, "config.xml"))
	s.cmd.Stdout, s.cmd.Stderr = out, out
	dieWithTest(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := http.Get(s.url() + "/ping"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("server %s did not answer /ping", s.dir)
}

func (s *testServer) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// restart stops server i (if it runs) and starts it again over its data;
// a test that stops a server restarts it, so the next test finds the
// cluster whole.
func (c *testCluster) restart(t testing.TB, i int) {
	t.Helper()
	s := c.servers[i]
	s.kill()
	if err := s.start(serverBinary()); err != nil {
		t.Fatal(err)
	}
}

// setClusters rewrites every server's remote_servers with the suite's
// clusters and extra (XML of more clusters); a running server reloads it
// within seconds, as ClickHouse does with its configuration.
func (c *testCluster) setClusters(t testing.TB, extra string) {
	t.Helper()
	for _, s := range c.servers {
		s.extra = extra
		if err := s.writeConfig(c.servers); err != nil {
			t.Fatal(err)
		}
	}
}

func (c *testCluster) stop() {
	for _, s := range c.servers {
		s.kill()
	}
	os.RemoveAll(c.dir)
}

var dbSeq atomic.Int64

// database makes a new database on every server for one test, dropped when
// it ends.
func (c *testCluster) database(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbSeq.Add(1))
	for _, s := range c.servers {
		cl, _ := newClient(s.url(), "", "")
		if err := cl.exec(context.Background(), "CREATE DATABASE "+ident(name), nil); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, s := range c.servers {
			if s.cmd == nil && s.external == "" {
				continue
			}
			cl, _ := newClient(s.url(), "", "")
			cl.exec(context.Background(), "DROP DATABASE IF EXISTS "+ident(name), nil)
		}
	})
	return name
}

// engine opens an engine over the cluster (cluster mode) in a new database.
func (c *testCluster) engine(t testing.TB, cfg Config) *Engine {
	t.Helper()
	if cfg.Database == "" {
		cfg.Database = c.database(t)
	}
	if cfg.URLs == nil {
		for _, s := range c.servers {
			cfg.URLs = append(cfg.URLs, s.url())
		}
		if !c.external() {
			cfg.Cluster = clusterName
		}
	}
	if cfg.Linger == 0 {
		cfg.Linger = time.Millisecond
	}
	e, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// slowProxy listens on loopback and forwards each connection to target,
// passing what the client sends at about rate bytes a second (the answers
// at full speed): an insert through it lasts long enough that a test can
// act while the server is still reading it, however loaded the machine.
// It returns the proxy's base URL and a channel closed once one connection
// has passed more than midway bytes: a request at least that long is then
// under way and, throttled, not yet whole.
func slowProxy(t testing.TB, target string, rate, midway int) (string, <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	mid := make(chan struct{})
	var once sync.Once
	go func() {
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer down.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				go func() {
					io.Copy(down, up)
					down.Close()
				}()
				const chunk = 16 << 10
				buf := make([]byte, chunk)
				sent := 0
				for {
					n, err := down.Read(buf)
					if n > 0 {
						if _, werr := up.Write(buf[:n]); werr != nil {
							return
						}
						if sent += n; sent > midway {
							once.Do(func() { close(mid) })
						}
						time.Sleep(time.Duration(n) * time.Second / time.Duration(rate))
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String(), mid
}
