package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// child is a `logq serve` process run from this test binary (see TestMain).
type child struct {
	cmd  *exec.Cmd
	base string
	errs *bytes.Buffer
}

func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	return startChildAt(t, freePort(t), args...)
}

func startChildAt(t testing.TB, addr string, args ...string) *child {
	t.Helper()
	return startChildEnv(t, addr, nil, args...)
}

// startChildEnv starts a child with more environment (env, as KEY=value).
func startChildEnv(t testing.TB, addr string, env []string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", addr, "--api-key", "k"}, args...)...)
	cmd.Env = append(append(os.Environ(), "LOGQ_TEST_MAIN=1"), env...)
	errs := &bytes.Buffer{}
	cmd.Stderr = errs
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	go io.Copy(io.Discard, bufio.NewReader(stdout))
	c := &child{cmd: cmd, base: "http://" + addr, errs: errs}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := http.Get(c.base + "/ready"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return c
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("child did not become ready: %s", errs.String())
	return nil
}

func (c *child) kill() {
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

// post sends one ingest request and reports whether it was acknowledged.
func post(client *http.Client, base, source, body string) (int, error) {
	req, _ := http.NewRequest(http.MethodPost, base+"/api/logs?source_name="+source, strings.NewReader(body))
	req.Header.Set("X-API-KEY", "k")
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// SIGKILL at random moments while concurrent clients ingest: after every
// restart, every acknowledged event is there exactly once.
func TestCrashLosesNothingAcknowledged(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	const trials, clients = 20, 4
	var (
		mu    sync.Mutex
		acked = map[string]bool{}
		sent  = map[string]bool{} // everything ever sent, acknowledged or not
	)
	for trial := 0; trial < trials; trial++ {
		c := startChild(t, "--data-dir", dir, "--segment-rows", "300")
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for cl := 0; cl < clients; cl++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				client := &http.Client{Timeout: 5 * time.Second}
				for seq := 0; ; seq++ {
					select {
					case <-stop:
						return
					default:
					}
					n := 1 + (seq*7+cl)%25
					ids := make([]string, n)
					var body strings.Builder
					body.WriteString("[")
					for i := range ids {
						ids[i] = fmt.Sprintf("t%d-c%d-s%d-e%d", trial, cl, seq, i)
						if i > 0 {
							body.WriteString(",")
						}
						fmt.Fprintf(&body, `{"id":%q,"event_message":"payload %d","metadata":{"n":%d}}`, ids[i], i, seq)
					}
					body.WriteString("]")
					mu.Lock()
					for _, id := range ids {
						sent[id] = true
					}
					mu.Unlock()
					code, err := post(client, c.base, "crash", body.String())
					if err != nil {
						return // the server is gone
					}
					if code == 200 {
						mu.Lock()
						for _, id := range ids {
							acked[id] = true
						}
						mu.Unlock()
					}
				}
			}()
		}
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		c.kill()
		close(stop)
		wg.Wait()
	}
	require.NotEmpty(t, acked)

	// Every id the store holds, counted; read with the store itself once the
	// last child is dead, and once more through a served query after a start.
	st, err := logstore.Open(dir, logstore.Options{SegmentRows: 300})
	require.NoError(t, err)
	snap := st.Snapshot("crash")
	count := map[string]int{}
	for _, seg := range snap.Segments {
		col, err := seg.Column("id")
		require.NoError(t, err)
		for r := 0; r < seg.Rows(); r++ {
			count[col.Str(r)]++
		}
	}
	require.NoError(t, st.Close())
	var missing, doubled, unknown []string
	for id := range acked {
		if count[id] == 0 {
			missing = append(missing, id)
		}
	}
	for id, n := range count {
		if n > 1 {
			doubled = append(doubled, id)
		}
		if !sent[id] {
			unknown = append(unknown, id)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "acknowledged but lost")
	require.Empty(t, doubled, "stored twice")
	require.Empty(t, unknown, "never sent")
	t.Logf("%d trials: %d events acknowledged, %d stored (%d sent)", trials, len(acked), len(count), len(sent))

	// And the server starts on what the kills left, and keeps taking events.
	c := startChild(t, "--data-dir", dir, "--segment-rows", "300")
	defer c.kill()
	code, err := post(http.DefaultClient, c.base, "crash", `{"id":"after","event_message":"x"}`)
	require.NoError(t, err)
	require.Equal(t, 200, code)
}

// A second server on the same data directory is refused with a clear message.
func TestDataDirLock(t *testing.T) {
	dir := t.TempDir()
	c := startChild(t, "--data-dir", dir)
	defer c.kill()
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--addr", "127.0.0.1:0", "--api-key", "k", "--data-dir", dir}, &out, &errb)
	require.Equal(t, 1, code)
	require.Contains(t, errb.String(), "locked by another logq process (pid ")
}
