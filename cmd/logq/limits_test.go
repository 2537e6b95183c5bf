package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Under a limit of 300 open files, new sources are refused with a 400 that
// names the limit before the server runs out of descriptors, and it keeps
// accepting connections: 30 held open at once all get /health answered.
// (Without the bound, the 288th source got a 503 and 29 of 30 new
// connections then timed out.)
func TestServeUnderAFileLimit(t *testing.T) {
	dir := t.TempDir()
	c := startChildEnv(t, freePort(t), []string{"LOGQ_TEST_NOFILE=300"}, "--data-dir", dir)
	defer c.kill()
	client := &http.Client{Timeout: 10 * time.Second}
	made := 0
	for ; made < 400; made++ {
		code, err := post(client, c.base, fmt.Sprintf("src%03d", made), `[{"event_message":"x"}]`)
		require.NoError(t, err)
		if code == 400 {
			break
		}
		require.Equal(t, 200, code, "source %d", made)
	}
	require.Less(t, made, 300, "refused before the descriptors ran out")
	require.Greater(t, made, 100)
	req, _ := http.NewRequest(http.MethodPost, c.base+"/api/logs?source_name=one-too-many", strings.NewReader(`[{"event_message":"x"}]`))
	req.Header.Set("X-API-KEY", "k")
	resp, err := client.Do(req)
	require.NoError(t, err)
	var body strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&body)
	resp.Body.Close()
	require.Equal(t, 400, resp.StatusCode)
	require.Contains(t, body.String(), "limit of")
	require.Contains(t, body.String(), "open files")

	addr := strings.TrimPrefix(c.base, "http://")
	conns := make([]net.Conn, 30)
	for i := range conns {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		require.NoError(t, err, "connection %d", i)
		conns[i] = conn
	}
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	for i, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := fmt.Fprintf(conn, "GET /health HTTP/1.1\r\nHost: logq\r\nConnection: close\r\n\r\n"); err != nil {
				errs[i] = err
				return
			}
			line, err := bufio.NewReader(conn).ReadString('\n')
			if err == nil && !strings.Contains(line, " 200 ") {
				err = fmt.Errorf("status line %q", line)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "connection %d", i)
	}
}
