package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"logq/fixtures"
)

// BenchmarkServeMemoryLimit runs `logq serve --data-dir … --memory-limit L`
// as a child process, posts LOGQ_BENCH_EVENTS edge events (default 1M; the
// issue's case is 20M) over HTTP from 4 clients in bodies of 500, samples the
// child's RssAnon every 100 ms (the queries' memory included), then checks that every event is queryable and
// that the built-in endpoints answer; then kills the child, starts it again on
// the same directory, and reports how long it took to be ready.
//
//	LOGQ_BENCH_EVENTS=20000000 go test ./cmd/logq/ -run XXX -bench ServeMemoryLimit -benchtime 1x -timeout 60m
func BenchmarkServeMemoryLimit(b *testing.B) {
	events := fixtures.BenchEvents(1_000_000)
	// LOGQ_BENCH_MEMORY_LIMIT=default starts the child with no
	// --memory-limit, as an operator who sets nothing would.
	limitArgs := []string{"--memory-limit", "1GiB"}
	switch v := os.Getenv("LOGQ_BENCH_MEMORY_LIMIT"); v {
	case "":
	case "default":
		limitArgs = nil
	default:
		limitArgs = []string{"--memory-limit", v}
	}
	// LOGQ_BENCH_RELAY=1 loads as many relay events after the edge ones, as
	// the bench kit's 10M + 10M does.
	sources := []string{"cloudflare.logs.prod"}
	if os.Getenv("LOGQ_BENCH_RELAY") == "1" {
		sources = append(sources, "deno-relay-logs")
	}
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		eps := filepath.Join(dir, "endpoints")
		if err := os.MkdirAll(eps, 0o755); err != nil {
			b.Fatal(err)
		}
		for i, src := range sources {
			yaml := fmt.Sprintf("id: 22222222-2222-4222-8222-22222222222%d\nname: bench.count.%d\nquery: |\n  select count(*) as n, count(distinct id) as ids from `%s` where starts_with(id, @prefix)\n", i, i, src)
			if err := os.WriteFile(filepath.Join(eps, fmt.Sprintf("count%d.yaml", i)), []byte(yaml), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		c := startChildB(b, append([]string{"--data-dir", filepath.Join(dir, "data"), "--endpoints", eps}, limitArgs...)...)
		var maxRSS atomic.Int64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				if r := childRSSAnon(c.cmd.Process.Pid); r > maxRSS.Load() {
					maxRSS.Store(r)
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		type upload struct {
			source string
			events []byte
		}
		bodies := make(chan upload, 8)
		var wg sync.WaitGroup
		var retries atomic.Int64
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for body := range bodies {
					for {
						code, err := post(http.DefaultClient, c.base, body.source, string(body.events))
						if err != nil {
							b.Error(err)
							return
						}
						if code == 200 {
							break
						}
						if code != 429 && code != 503 {
							b.Errorf("ingest: %d", code)
							return
						}
						retries.Add(1)
						time.Sleep(200 * time.Millisecond)
					}
				}
			}()
		}
		start := time.Now()
		spec := fixtures.DefaultSpec(events, time.Now().UTC())
		for _, src := range sources {
			fixtures.GenerateBatches(spec, src, 500, func(evs [][]byte) {
				bodies <- upload{src, fixtures.ArrayBody(evs)}
			})
		}
		close(bodies)
		wg.Wait()
		elapsed := time.Since(start)
		afterLoad := childStatus(c.cmd.Process.Pid, "VmRSS:")
		b.Logf("loaded %d events per source (%d sources) in %s, max RssAnon so far %d MiB, RSS now %d MiB", events, len(sources), elapsed, maxRSS.Load()>>20, afterLoad>>20)
		checkCounts := func(when string) {
			for i := range sources {
				if n, ids := countEvents(b, c.base, i, events); n != int64(events) || ids != int64(events) {
					b.Fatalf("%s: %s holds %d events (%d ids), sent %d", when, sources[i], n, ids, events)
				}
			}
		}
		checkCounts("after the load")
		// Every shape of the three endpoints answers, and how long it takes.
		p := "?project=" + fixtures.ProjectRef(0)
		for _, q := range []string{
			"functions.invocation-stats" + p + "&interval=1day", "functions.invocation-stats" + p + "&interval=7day",
			"functions.invocation-stats" + p + "&interval=1hr", "usage.api-counts" + p + "&interval=daily",
			"usage.api-counts" + p + "&interval=hourly", "usage.api-counts" + p + "&interval=minutely",
			"logs.all" + p + "&project_tier=PRO", "logs.all" + p + "&project_tier=FREE", "logs.all" + p + "&project_tier=ENTERPRISE",
		} {
			t := time.Now()
			getJSON(b, c.base+"/api/endpoints/query/"+q)
			b.Logf("%s: %s", q, time.Since(t).Round(100*time.Microsecond))
		}
		close(stop)
		<-sampled
		afterQueries := childStatus(c.cmd.Process.Pid, "VmRSS:")
		c.kill()
		// Killed (as by the OOM killer), then started again on the same
		// directory: how long until /ready, and every event is still there.
		restart := time.Now()
		c = startChildB(b, append([]string{"--data-dir", filepath.Join(dir, "data"), "--endpoints", eps}, limitArgs...)...)
		ready := time.Since(restart)
		checkCounts("after a restart")
		firstQuery := time.Since(restart) - ready
		c.kill()
		b.ReportMetric(ready.Seconds(), "restart-s")
		b.ReportMetric(float64(firstQuery.Milliseconds()), "firstCountAfterRestart-ms")
		b.ReportMetric(float64(events*len(sources))/elapsed.Seconds(), "events/s")
		b.ReportMetric(float64(maxRSS.Load())/(1<<20), "maxRssAnonMiB")
		b.ReportMetric(float64(retries.Load()), "retries")
		b.ReportMetric(float64(afterLoad)/(1<<20), "rssAfterLoadMiB")
		b.ReportMetric(float64(afterQueries)/(1<<20), "rssAfterQueriesMiB")
	}
}

// countEvents counts the stored events of sources[source] and their
// distinct ids (endpoint bench.count.<source>). Past 2M
// events the distinct ids do not fit one query's memory under a 1 GiB
// limit, so they are counted in 16 disjoint shards by the ids' first hex
// digit (the generator's ids are hex UUIDs).
func countEvents(b *testing.B, base string, source, events int) (n, ids int64) {
	shards := []string{""}
	if events > 2_000_000 {
		shards = strings.Split("0123456789abcdef", "")
	}
	for _, p := range shards {
		var res struct {
			Result []struct {
				N   int64 `json:"n"`
				IDs int64 `json:"ids"`
			} `json:"result"`
		}
		body := getJSON(b, fmt.Sprintf("%s/api/endpoints/query/bench.count.%d?prefix=%s", base, source, p))
		if err := json.Unmarshal(body, &res); err != nil || len(res.Result) != 1 {
			b.Fatalf("count: %s", body)
		}
		n += res.Result[0].N
		ids += res.Result[0].IDs
	}
	return n, ids
}

func startChildB(b *testing.B, args ...string) *child {
	return startChildAt(b, freePortB(b), args...)
}

func getJSON(b *testing.B, url string) []byte {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("X-API-KEY", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		b.Fatalf("%s: %d %s", url, resp.StatusCode, body)
	}
	return body
}

// childRSSAnon reads a process's anonymous resident memory in bytes.
func childRSSAnon(pid int) int64 { return childStatus(pid, "RssAnon:") }

// childStatus reads one size (kB) of /proc/PID/status in bytes: VmRSS is
// what a container's limit and `ps` see, RssAnon the part that is the heap.
func childStatus(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}
