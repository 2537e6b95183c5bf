package clickhouse

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/api"
	"logq/event"
	"logq/exec"
	"logq/exec/golden"
	"logq/logstore"
)

// Ingest over ClickHouse: the same normalisation as the local store
// (schema evolution, refusals, the field cap), a schema that lives in
// ClickHouse (other instances, a restart), and what a 200 and a 503 mean
// when servers go away.

// evolution are events whose fields change kind: INT64 widening to FLOAT64
// then STRING, an object meeting a scalar both ways, arrays whose elements
// widen, an empty array first, a refused event, keys past the field cap.
var evolution = []string{
	`{"timestamp":"2024-05-01T10:00:00Z","id":"e1","n":1,"o":{"a":1},"s":5,"arr":[],"tags":[1,2]}`,
	`{"timestamp":"2024-05-01T10:01:00Z","id":"e2","n":2.5,"o":"flat","s":{"inner":true},"arr":[1],"tags":[3]}`,
	`{"timestamp":"2024-05-01T10:02:00Z","id":"e3","n":"three","o":{"a":"x","b":[true]},"s":7,"arr":[1.5],"tags":["t"]}`,
	`not json at all`,
	`{"timestamp":"2024-05-01T10:03:00Z","id":"e4","n":4,"o":{"a":2},"s":"str","tags":[4,"u"],"k1":1,"k2":2,"k3":3,"k4":4,"k5":5}`,
	`{"timestamp":"2024-05-01T10:04:00Z","id":"e5","n":null,"o":null,"m":{"k6":6,"k7":{"deep":7}},"k8":"eight"}`,
	`{"timestamp":"2024-05-01T10:05:00Z","id":"e6","n":1e300,"tags":null,"arr":[[1],[2]]}`,
	`{"timestamp":"2024-05-01T10:06:00Z","id":"e7","n":-7,"s":false,"x":1}`,
}

var evolutionQueries = []string{
	`select * from src order by id`,
	`select id, n, o, s, arr, tags from src order by id`,
	`select id, o.a, o.b from src order by id`,
	`select n, count(*) as c from src group by n order by n`,
	`select id from src where n = '1' or n = '2.5' or n = 'three' order by id`,
	`select id, t from src, unnest(tags) as t order by id, t`,
}

func TestSchemaEvolutionAgrees(t *testing.T) {
	cl := needCluster(t)
	const maxFields = 14
	local := logstore.New(logstore.Options{SegmentRows: 2, MaxFields: maxFields})
	ch := cl.engine(t, Config{MaxFields: maxFields})
	c := &golden.Case{Inputs: map[string][][]byte{}, Sources: []string{"src"}}
	for _, e := range evolution {
		c.Inputs["src"] = append(c.Inputs["src"], []byte(e))
	}
	loadGolden(t, c, local, ch)
	// Another instance, started afterwards, reads the same schema from
	// ClickHouse alone.
	other := cl.engine(t, Config{MaxFields: maxFields, Database: ch.cfg.Database})
	for _, q := range evolutionQueries {
		t.Run(q, func(t *testing.T) {
			compareEnginesOrdered(t, q, nil, goldenNow, local, ch)
			compareEnginesOrdered(t, q, nil, goldenNow, local, other)
		})
	}
}

// Two instances write the same source at once, widening the same field
// in opposite orders; every instance then reads what one local store
// holding all the events reads.
func TestTwoInstancesWriteOneSource(t *testing.T) {
	cl := needCluster(t)
	a := cl.engine(t, Config{})
	b := cl.engine(t, Config{Database: a.cfg.Database})
	local := logstore.New(logstore.Options{})
	batches := func(who string, kinds []string) [][][]byte {
		var out [][][]byte
		for i := 0; i < 20; i++ {
			var evs [][]byte
			for j := 0; j < 25; j++ {
				k := (i*25 + j)
				v := map[string]string{"int": fmt.Sprint(k), "float": fmt.Sprint(float64(k) + 0.5), "string": fmt.Sprintf("%q", fmt.Sprint("s", k))}[kinds[i%len(kinds)]]
				evs = append(evs, []byte(fmt.Sprintf(`{"timestamp":"2024-05-01T10:%02d:%02dZ","id":"%s-%d","v":%s,"%s_only":%d}`, k/60%60, k%60, who, k, v, who, k)))
			}
			out = append(out, evs)
		}
		return out
	}
	fromA := batches("a", []string{"int", "float", "string"})
	fromB := batches("b", []string{"string", "int", "float"})
	var wg sync.WaitGroup
	for _, w := range []struct {
		e  *Engine
		bs [][][]byte
	}{{a, fromA}, {b, fromB}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, evs := range w.bs {
				_, rej, err := w.e.Ingest("src", evs)
				require.NoError(t, err)
				require.Empty(t, rej)
			}
		}()
	}
	wg.Wait()
	for _, bs := range [][][][]byte{fromA, fromB} {
		for _, evs := range bs {
			local.Append("src", evs)
		}
	}
	fresh := cl.engine(t, Config{Database: a.cfg.Database})
	for _, q := range []string{
		`select id, v, a_only, b_only from src order by id`,
		`select count(*) as n, count(distinct v) as d, count(a_only) as a, count(b_only) as b from src`,
	} {
		for _, e := range []*Engine{a, b, fresh} {
			compareEnginesOrdered(t, q, nil, goldenNow, local, e)
		}
	}
}

// A restart of logq, and of every ClickHouse server, loses nothing
// acknowledged.
func TestRestartLosesNothing(t *testing.T) {
	cl := needCluster(t)
	cl.needOwnServers(t)
	ch := cl.engine(t, Config{})
	local := logstore.New(logstore.Options{})
	evs := numbered(0, 400)
	_, _, err := ch.Ingest("src", evs)
	require.NoError(t, err)
	local.Append("src", evs)
	require.NoError(t, ch.Close())
	cl.restart(t, 0)
	cl.restart(t, 1)
	again := cl.engine(t, Config{Database: ch.cfg.Database})
	compareEnginesOrdered(t, `select count(*) as n, min(id) as lo, max(id) as hi, sum(k) as s from src`, nil, goldenNow, local, again)
}

// numbered makes events k in [from, to), one second apart, with id ev-k.
func numbered(from, to int) [][]byte {
	var out [][]byte
	for k := from; k < to; k++ {
		ts := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(k) * time.Second)
		out = append(out, []byte(fmt.Sprintf(`{"timestamp":%q,"id":"ev-%06d","k":%d,"msg":"event %d"}`, ts.Format(time.RFC3339Nano), k, k, k)))
	}
	return out
}

// While a shard is down (past the insert's retries) the API answers ingest
// and queries with 503 and Retry-After, acknowledging nothing; when it is
// back, everything acknowledged before is there, and ingest works again.
func TestClickHouseDownAndBack(t *testing.T) {
	cl := needCluster(t)
	cl.needOwnServers(t)
	ch := cl.engine(t, Config{InsertRetry: 300 * time.Millisecond})
	srv := api.New(api.Config{Keys: api.Keys(testKey), Backend: ch, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv.SetReady(true)
	t.Cleanup(srv.Close)
	h := srv.Handler()
	post := func(evs [][]byte) *httptest.ResponseRecorder {
		body := "[" + string(joinLines(evs, ",")) + "]"
		r := httptest.NewRequest("POST", "/api/logs?source_name=src", strings.NewReader(body))
		r.Header.Set("X-API-Key", testKey)
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	require.Equal(t, 200, post(numbered(0, 100)).Code)

	cl.servers[1].kill()
	w := post(numbered(100, 200))
	require.Equal(t, http.StatusServiceUnavailable, w.Code, w.Body.String())
	require.NotEmpty(t, w.Header().Get("Retry-After"))
	require.NotContains(t, w.Body.String(), "127.0.0.1", "no server address in the answer")
	q, err := exec.Prepare(`select count(*) as n from src`)
	require.NoError(t, err)
	_, err = exec.Run(context.Background(), ch, q, exec.Request{Now: goldenNow})
	require.Error(t, err)
	require.Equal(t, exec.KindUnavailable, err.(*exec.Error).Kind)

	cl.restart(t, 1)
	require.Equal(t, 200, post(numbered(200, 300)).Code)
	res, err := exec.Run(context.Background(), ch, q, exec.Request{Now: goldenNow})
	require.NoError(t, err)
	n := res.Rows[0][0].I
	// Every acknowledged event is there; of the refused request, what the
	// live shard took before the other failed may be too (docs/clickhouse.md).
	require.GreaterOrEqual(t, n, int64(200))
	require.LessOrEqual(t, n, int64(300))
}

func joinLines(evs [][]byte, sep string) []byte {
	var b []byte
	for i, e := range evs {
		if i > 0 {
			b = append(b, sep...)
		}
		b = append(b, e...)
	}
	return b
}

// A shard killed while its part of a large insert is under way, and
// started again: the insert retries what that shard lacks until it is
// back, and every event is stored once. Shard 1 is reached through a slow
// proxy, which says when it has passed part of the insert's body: the
// server is then reading it and cannot have it whole.
func TestShardKilledMidInsert(t *testing.T) {
	cl := needCluster(t)
	cl.needOwnServers(t)
	proxy, midway := slowProxy(t, fmt.Sprintf("127.0.0.1:%d", cl.servers[1].http), 256<<10, 128<<10)
	ch := cl.engine(t, Config{Cluster: clusterName, URLs: []string{cl.servers[0].url(), proxy}})
	const n = 20_000 // shard 1's half, ~1 MB, takes seconds through the proxy
	evs := numbered(0, n)
	_, _, err := ch.Ingest("src", evs[:10]) // the table exists before the kill
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, _, err := ch.Ingest("src", evs[10:])
		done <- err
	}()
	select {
	case <-midway:
	case err := <-done:
		t.Fatalf("the insert ended (%v) before shard 1 had read part of it", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("shard 1 was sent nothing of the insert")
	}
	cl.servers[1].kill()
	cl.restart(t, 1)
	require.NoError(t, <-done, "the insert outlasts the shard's restart")
	require.NotZero(t, ch.resent.Load(), "shard 1's rows were sent again")
	requireStoredOnce(t, ch, n)
}

// requireStoredOnce checks that source src holds n rows of n ids.
func requireStoredOnce(t *testing.T, ch *Engine, n int) {
	t.Helper()
	q, err := exec.Prepare(`select count(*) as n, count(distinct id) as ids from src`)
	require.NoError(t, err)
	res, err := exec.Run(context.Background(), ch, q, exec.Request{Now: goldenNow})
	require.NoError(t, err)
	require.Equal(t, int64(n), res.Rows[0][1].I, "every event is stored")
	require.Equal(t, int64(n), res.Rows[0][0].I, "no event is stored twice")
}

// An insert while a shard is down: the other shard commits its rows, the
// down one refuses the connection until it is started again, and the
// insert, retried, answers success with every event stored once.
func TestInsertOutlastsAShardRestart(t *testing.T) {
	cl := needCluster(t)
	cl.needOwnServers(t)
	ch := cl.engine(t, Config{})
	evs := numbered(0, 2000)
	_, _, err := ch.Ingest("src", evs[:10])
	require.NoError(t, err)
	cl.servers[1].kill()
	started := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		started <- cl.servers[1].start(serverBinary())
	}()
	_, _, err = ch.Ingest("src", evs[10:])
	require.NoError(t, <-started)
	require.NoError(t, err)
	require.NotZero(t, ch.resent.Load(), "shard 1's rows were sent again")
	for i, s := range cl.servers {
		c, _ := newClient(s.url(), "", "")
		out, err := c.text(context.Background(), "SELECT count() FROM "+ch.local("src"), nil)
		require.NoError(t, err)
		require.NotEqual(t, "0", strings.TrimSpace(out), "shard %d holds rows", i)
	}
	requireStoredOnce(t, ch, len(evs))
}

// The retry's own step: a server that took some days of an insert and not
// others is asked which it lacks, and only those are sent again.
func TestRetrySendsOnlyMissingDays(t *testing.T) {
	cl := needCluster(t)
	ch := cl.engine(t, Config{URLs: []string{cl.servers[0].url()}})
	var evs [][]byte
	for k := 0; k < 300; k++ { // 300 events 20 minutes apart: 5 days
		ts := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(k) * 20 * time.Minute)
		evs = append(evs, []byte(fmt.Sprintf(`{"timestamp":%q,"id":"ev-%03d","k":%d}`, ts.Format(time.RFC3339Nano), k, k)))
	}
	// An earlier insert of the same events: rows of another token, which
	// must not count as this insert's.
	_, _, err := ch.Ingest("src", evs[:100])
	require.NoError(t, err)
	src, err := ch.source(context.Background(), "src", false)
	require.NoError(t, err)
	rows, cols, _, _, _ := src.shred(evs, goldenNow, 0)
	in := newInsert(time.Now().Add(time.Minute))
	in.add(rows, cols)
	in.stamp()
	src.mu.Lock()
	require.NoError(t, ch.addColumns(context.Background(), "src", src.lay, in.cols))
	src.mu.Unlock()
	order := make([]int, len(in.rows))
	for i := range order {
		order[i] = i
	}
	bodies := make([]shardBody, 1)
	in.fill(bodies, order, nil)
	b := &bodies[0]
	require.Len(t, b.days, 5)
	stmt := in.statement(ch.local("src"))
	c := ch.servers[0]
	// The server takes days 0 and 3, as if the insert had failed after them.
	for _, d := range []dayPart{b.days[0], b.days[3]} {
		require.NoError(t, c.insert(context.Background(), stmt, b.buf[d.start:d.end], nil))
	}
	missing, err := src.missingDays(context.Background(), c, "none", in.token, b, false)
	require.NoError(t, err)
	var got []int64
	for _, d := range missing {
		got = append(got, d.day)
	}
	require.Equal(t, []int64{b.days[1].day, b.days[2].day, b.days[4].day}, got)
	var rest []byte
	for _, d := range missing {
		rest = append(rest, b.buf[d.start:d.end]...)
	}
	require.NoError(t, c.insert(context.Background(), stmt, rest, nil))
	missing, err = src.missingDays(context.Background(), c, "none", in.token, b, false)
	require.NoError(t, err)
	require.Empty(t, missing)
	// Part of a day, which one block per body rules out, is not retried:
	// the same rows under a new token, two rows of day 2 on the server.
	in.token += 2
	in.fill(bodies, order, nil)
	d := b.days[2]
	lines := bytes.SplitAfter(b.buf[d.start:d.end], []byte("\n"))
	require.NoError(t, c.insert(context.Background(), stmt, b.buf[d.start:d.start+len(lines[0])+len(lines[1])], nil))
	_, err = src.missingDays(context.Background(), c, "none", in.token, b, false)
	require.ErrorIs(t, err, errPartialDay)
	q, err := exec.Prepare(`select count(*) as n, count(distinct id) as ids from src`)
	require.NoError(t, err)
	res, err := exec.Run(context.Background(), ch, q, exec.Request{Now: goldenNow})
	require.NoError(t, err)
	require.Equal(t, []int64{402, 300}, []int64{res.Rows[0][0].I, res.Rows[0][1].I}, "the earlier 100, this insert's 300, and two of the partial day")
}

// A table made before rows carried their insert's token gets the column
// at its next insert, and its rows stay readable.
func TestTableWithoutInsertColumn(t *testing.T) {
	cl := needCluster(t)
	ch := cl.engine(t, Config{URLs: []string{cl.servers[0].url()}})
	c := ch.servers[0]
	require.NoError(t, c.exec(context.Background(), fmt.Sprintf("CREATE TABLE %s (`timestamp` Int64, `id` String) ENGINE = MergeTree() PARTITION BY intDiv(`timestamp`, %d) ORDER BY `timestamp`", ch.table("src"), microsPerDay), nil))
	require.NoError(t, c.exec(context.Background(), "INSERT INTO "+ch.table("src")+" VALUES (1714557600000000, 'old')", nil))
	_, _, err := ch.Ingest("src", numbered(0, 10))
	require.NoError(t, err)
	out, err := c.text(context.Background(), "SELECT "+ident(insertColumn)+" = 0, count() FROM "+ch.table("src")+" GROUP BY "+ident(insertColumn)+" = 0 ORDER BY 1 FORMAT TabSeparated", nil)
	require.NoError(t, err)
	require.Equal(t, "0\t10\n1\t1\n", out, "the new rows carry a token, the old row none")
	requireStoredOnce(t, ch, 11)
}

// An event older than the retention is refused as the local store refuses
// it (the 406's reason, counted apart), never stored, and not delivered to
// the feed's readers; the others of the request are stored.
func TestOldEventsRefused(t *testing.T) {
	cl := needCluster(t)
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	e := cl.engine(t, Config{Retention: 90 * 24 * time.Hour, Now: func() time.Time { return now }})
	head := e.FeedHead("s")
	evs := [][]byte{
		[]byte(`{"event_message":"old","timestamp":"2026-01-01T00:00:00Z"}`),
		[]byte(`{"event_message":"new","timestamp":"2026-12-05T11:00:00Z"}`),
	}
	acc, rej, err := e.Ingest("s", evs)
	require.NoError(t, err)
	require.Equal(t, 1, acc)
	require.Equal(t, []event.Reject{{Index: 0, TooOld: true,
		Reason: "the event's timestamp 2026-01-01T00:00:00Z is older than the retention of 90d"}}, rej)

	local := logstore.New(logstore.Options{})
	local.Append("s", evs[1:])
	compareEnginesOrdered(t, `select event_message, timestamp from s`, nil, now, local, e)

	recs, _, _, err := e.ReadFeed("s", head, 100)
	require.NoError(t, err)
	var delivered []string
	for _, rec := range recs {
		for i, ev := range rec.Events {
			if _, _, msg, err := event.AppendBody(nil, ev, rec.Origin(i)); err == nil {
				delivered = append(delivered, msg)
			}
		}
	}
	require.Equal(t, []string{"new"}, delivered)
}
