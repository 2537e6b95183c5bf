package drain

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// receiver is a webhook destination that decodes what arrives on its own
// (gunzip, then a JSON array of objects) and counts each event id.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    map[string]int // id → deliveries
	order  []string
	bodies []map[string]any
	// fail, when it returns a status, answers a request with it instead.
	fail     atomic.Pointer[func() int]
	requests atomic.Int64
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		if f := r.fail.Load(); f != nil {
			if code := (*f)(); code != 0 {
				w.WriteHeader(code)
				return
			}
		}
		var rd io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				w.WriteHeader(400)
				return
			}
			rd = zr
		}
		var evs []map[string]any
		if err := json.NewDecoder(rd).Decode(&evs); err != nil {
			w.WriteHeader(400)
			return
		}
		r.mu.Lock()
		for _, ev := range evs {
			id, _ := ev["id"].(string)
			r.got[id]++
			r.order = append(r.order, id)
			r.bodies = append(r.bodies, ev)
		}
		r.mu.Unlock()
		w.WriteHeader(200)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) setFail(f func() int) { r.fail.Store(&f) }

func (r *receiver) ids() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.got))
	for k, v := range r.got {
		out[k] = v
	}
	return out
}

// waitFor polls cond until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ingest stores events ev<from>..ev<to-1> of source, k per request; odd ones
// are errors (metadata.level).
func ingest(t *testing.T, st *logstore.Store, source string, from, to, k int) {
	t.Helper()
	for i := from; i < to; i += k {
		var evs [][]byte
		for j := i; j < min(i+k, to); j++ {
			level := "info"
			if j%2 == 1 {
				level = "error"
			}
			evs = append(evs, []byte(fmt.Sprintf(`{"id":"ev%d","event_message":"message %d","metadata":{"level":%q,"n":%d}}`, j, j, level, j)))
		}
		_, rej, err := st.Ingest(source, evs)
		require.NoError(t, err)
		require.Empty(t, rej)
	}
}

func wantIDs(from, to, step int) map[string]int {
	out := map[string]int{}
	for i := from; i < to; i += step {
		out[fmt.Sprintf("ev%d", i)] = 1
	}
	return out
}

// newDrain makes a manager over st with one webhook drain of source "s"
// whose rule is lql, and returns the manager and the drain's token.
func newDrain(t *testing.T, st *logstore.Store, dir string, url, lql string, opts Options) (*Manager, string) {
	t.Helper()
	m := startManager(t, st, dir, opts)
	desc := ""
	name, typ := "hook", "webhook"
	b, err := m.CreateBackend(BackendInput{Name: &name, Type: &typ, Description: json.RawMessage(fmt.Sprintf("%q", desc)),
		Config: json.RawMessage(fmt.Sprintf(`{"url":%q,"gzip":true}`, url)), Metadata: json.RawMessage(`{"type":"log-drain"}`)})
	require.NoError(t, err)
	_, err = m.CreateRule(RuleInput{BackendID: json.RawMessage(fmt.Sprint(b.ID)), Source: "s", LQL: &lql})
	require.NoError(t, err)
	return m, b.Token
}

func startManager(t *testing.T, st *logstore.Store, dir string, opts Options) *Manager {
	t.Helper()
	var err error
	if dir != "" {
		opts.Store = FileStore{Dir: dir}
		if opts.Positions == nil {
			opts.Positions, err = LoadPositions(dir)
			require.NoError(t, err)
		}
	} else {
		opts.Store = &MemoryStore{}
	}
	opts.Feed = st
	opts.Sources = st.Names
	if opts.BatchWait == 0 {
		opts.BatchWait = 20 * time.Millisecond
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = 50 * time.Millisecond
	}
	if opts.PositionEvery == 0 {
		opts.PositionEvery = 20 * time.Millisecond
	}
	m, err := New(opts)
	require.NoError(t, err)
	return m
}

// Every event acknowledged after a drain's rule exists reaches it once, in
// order, in batches of at most 250; the events before it do not.
func TestDrainDeliversEveryEventInOrder(t *testing.T) {
	st, err := logstore.Open(t.TempDir(), logstore.Options{SegmentRows: 100})
	require.NoError(t, err)
	defer st.Close()
	ingest(t, st, "s", 0, 10, 5) // before the drain: not sent
	rc := newReceiver(t)
	m, _ := newDrain(t, st, "", rc.srv.URL, `~".*?"`, Options{})
	defer m.Close()
	ingest(t, st, "s", 10, 1010, 7)
	waitFor(t, 10*time.Second, "every event", func() bool {
		if len(rc.ids()) == 1000 {
			return true
		}
		t.Logf("have %d, stats %+v", len(rc.ids()), m.Stats())
		return false
	})
	require.Equal(t, wantIDs(10, 1010, 1), rc.ids(), "each event once")
	rc.mu.Lock()
	for i, id := range rc.order {
		require.Equal(t, fmt.Sprintf("ev%d", 10+i), id, "in the order acknowledged")
	}
	first := rc.bodies[0]
	rc.mu.Unlock()
	// The body: id, timestamp (µs), event_message, and the event's fields.
	require.Equal(t, "message 10", first["event_message"])
	require.Equal(t, map[string]any{"level": "info", "n": float64(10)}, first["metadata"])
	require.IsType(t, float64(0), first["timestamp"])
	// The receiver holds the last batch before its answer reaches the
	// drain, which counts the batch only then.
	waitFor(t, 5*time.Second, "the last batch counted", func() bool { return m.Stats()[0].Delivered == 1000 })
	st2 := m.Stats()
	require.Len(t, st2, 1)
	require.Equal(t, int64(1000), st2[0].Delivered)
	require.GreaterOrEqual(t, st2[0].Batches, int64(4), "at most 250 events a request")
	waitFor(t, 5*time.Second, "no lag", func() bool { return m.Stats()[0].LagEvents == 0 })
}

// A rule's LQL chooses the events.
func TestDrainRuleFilters(t *testing.T) {
	st := logstore.New(logstore.Options{})
	rc := newReceiver(t)
	m, _ := newDrain(t, st, "", rc.srv.URL, `m.level:error`, Options{})
	defer m.Close()
	ingest(t, st, "s", 0, 100, 10)
	waitFor(t, 10*time.Second, "the errors", func() bool { return len(rc.ids()) == 50 })
	require.Equal(t, wantIDs(1, 100, 2), rc.ids())
}

// A destination that is down answers 503 for a while: the batch is sent
// again until it is taken, and nothing is lost or doubled; a 4xx that
// retrying cannot fix is counted and passed.
func TestDrainRetriesUntilTheDestinationIsBack(t *testing.T) {
	st := logstore.New(logstore.Options{})
	rc := newReceiver(t)
	var down atomic.Bool
	down.Store(true)
	rc.setFail(func() int {
		if down.Load() {
			return 503
		}
		return 0
	})
	m, _ := newDrain(t, st, "", rc.srv.URL, `~".*?"`, Options{})
	defer m.Close()
	ingest(t, st, "s", 0, 300, 30)
	waitFor(t, 10*time.Second, "a few failed tries", func() bool { return rc.requests.Load() >= 3 })
	require.Empty(t, rc.ids())
	stats := m.Stats()[0]
	require.Positive(t, stats.Retried)
	require.Contains(t, stats.LastError, "503")
	require.Equal(t, int64(300), stats.LagEvents, "everything is still to deliver")
	down.Store(false)
	waitFor(t, 10*time.Second, "every event", func() bool { return len(rc.ids()) == 300 })
	require.Equal(t, wantIDs(0, 300, 1), rc.ids())

	rc.setFail(func() int { return 400 })
	ingest(t, st, "s", 300, 310, 10)
	waitFor(t, 10*time.Second, "the refusal", func() bool { return m.Stats()[0].Refused == 10 })
	rc.setFail(func() int { return 0 })
	ingest(t, st, "s", 310, 320, 10)
	waitFor(t, 10*time.Second, "what follows", func() bool { return len(rc.ids()) == 310 })
	require.Zero(t, rc.ids()["ev305"], "a batch refused for good is not sent again")
}

// Positions survive a restart: what was delivered is not sent again, and
// what arrived while the drain was stopped, even past a seal of its
// segment (the WAL file waits in the spool), is delivered once it runs.
func TestDrainResumesAfterARestart(t *testing.T) {
	dir := t.TempDir()
	drains := filepath.Join(dir, "drains")
	positions, err := LoadPositions(drains)
	require.NoError(t, err)
	st, err := logstore.Open(dir, logstore.Options{SegmentRows: 50, Holds: positions.Holds()})
	require.NoError(t, err)
	rc := newReceiver(t)
	m, _ := newDrain(t, st, drains, rc.srv.URL, `~".*?"`, Options{Positions: positions})
	ingest(t, st, "s", 0, 100, 10)
	waitFor(t, 10*time.Second, "the first events", func() bool { return len(rc.ids()) == 100 })
	m.Close()
	// Stopped: these pile up, and segments seal meanwhile.
	ingest(t, st, "s", 100, 400, 10)
	require.NoError(t, st.Close())

	positions, err = LoadPositions(drains)
	require.NoError(t, err)
	st, err = logstore.Open(dir, logstore.Options{SegmentRows: 50, Holds: positions.Holds()})
	require.NoError(t, err)
	defer st.Close()
	m = startManager(t, st, drains, Options{Positions: positions})
	defer m.Close()
	waitFor(t, 10*time.Second, "the backlog", func() bool { return len(rc.ids()) == 400 })
	require.Equal(t, wantIDs(0, 400, 1), rc.ids(), "each once")
	waitFor(t, 5*time.Second, "the spool emptied", func() bool {
		st.TrimSpool()
		return st.DiskBytes() > 0 && len(spoolFiles(t, dir)) == 0
	})
}

// A stop while a batch is under way waits for its answer and saves the
// position past it: the destination, slow to answer but answering, is not
// sent the batch again after the restart.
func TestStopWaitsForTheBatchUnderWay(t *testing.T) {
	dir := t.TempDir()
	drains := filepath.Join(dir, "drains")
	positions, err := LoadPositions(drains)
	require.NoError(t, err)
	st, err := logstore.Open(dir, logstore.Options{Holds: positions.Holds()})
	require.NoError(t, err)
	rc := newReceiver(t)
	arrived := make(chan struct{})
	var once sync.Once
	rc.setFail(func() int {
		once.Do(func() { close(arrived); time.Sleep(300 * time.Millisecond) })
		return 0
	})
	m, _ := newDrain(t, st, drains, rc.srv.URL, `~".*?"`, Options{Positions: positions})
	ingest(t, st, "s", 0, 10, 10)
	<-arrived
	m.Close() // while the receiver holds the request
	require.NoError(t, st.Close())

	positions, err = LoadPositions(drains)
	require.NoError(t, err)
	st, err = logstore.Open(dir, logstore.Options{Holds: positions.Holds()})
	require.NoError(t, err)
	defer st.Close()
	m = startManager(t, st, drains, Options{Positions: positions})
	defer m.Close()
	ingest(t, st, "s", 10, 11, 1)
	waitFor(t, 10*time.Second, "the event after the restart", func() bool { return rc.ids()["ev10"] > 0 })
	require.Equal(t, wantIDs(0, 11, 1), rc.ids(), "each once")
}

func spoolFiles(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "spool", "*", "*.log"))
	require.NoError(t, err)
	sort.Strings(files)
	return files
}

// A drain deleted while it delivers stops, and its backlog is let go.
func TestDeletedDrainStops(t *testing.T) {
	dir := t.TempDir()
	drains := filepath.Join(dir, "drains")
	positions, err := LoadPositions(drains)
	require.NoError(t, err)
	holds := positions.Holds()
	st, err := logstore.Open(dir, logstore.Options{SegmentRows: 20, Holds: holds})
	require.NoError(t, err)
	defer st.Close()
	rc := newReceiver(t)
	rc.setFail(func() int { return 503 }) // it never takes anything
	m, token := newDrain(t, st, drains, rc.srv.URL, `~".*?"`, Options{Positions: positions})
	defer m.Close()
	ingest(t, st, "s", 0, 100, 10)
	waitFor(t, 5*time.Second, "spooled files", func() bool { return len(spoolFiles(t, dir)) > 0 })
	require.NoError(t, m.DeleteBackend(token))
	before := rc.requests.Load()
	require.Empty(t, holds.Holders("s"), "the drain needs nothing any more")
	st.TrimSpool()
	require.Empty(t, spoolFiles(t, dir), "its backlog is dropped")
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, before, rc.requests.Load(), "no request after the delete")
	_, err = m.Rules(0, token)
	require.ErrorIs(t, err, ErrNotFound)
	rules, err := m.Rules(0, "")
	require.NoError(t, err)
	require.Empty(t, rules, "its rules went with it")
}
