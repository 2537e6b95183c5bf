package uitest

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"logq/api"
	"logq/endpoint"
	"logq/fixtures"
	"logq/logstore"
)

const key = "ui-test-key"

// testSource holds events the test writes itself, so that every answer the
// page shows can be checked against values known here.
const testSource = "ui.test"

// chromium finds the browser, or skips (fails under LOGQ_REQUIRE_BROWSER=1).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("LOGQ_REQUIRE_BROWSER") == "1" {
		t.Fatal("LOGQ_REQUIRE_BROWSER=1 and no Chromium found (scripts/test installs Debian's chromium)")
	}
	t.Skip("no Chromium found: the page's browser tests need it (scripts/test installs Debian's chromium)")
	return ""
}

type server struct {
	url string
	now time.Time
}

// call makes one request with the key and wants 200; body may be nil.
func (s server) call(t *testing.T, method, path, contentType string, body []byte) []byte {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-API-KEY", key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, string(b))
	return b
}

func (s server) post(t *testing.T, path, contentType string, body []byte) []byte {
	t.Helper()
	return s.call(t, http.MethodPost, path, contentType, body)
}

func (s server) get(t *testing.T, path string) []byte {
	t.Helper()
	return s.call(t, http.MethodGet, path, "", nil)
}

func (s server) ingest(t *testing.T, source string, events []string) {
	t.Helper()
	s.post(t, "/api/logs?source_name="+url.QueryEscape(source), "application/json", []byte("["+strings.Join(events, ",")+"]"))
}

// startServer runs logq's handler on a loopback port with the demo sources
// (2,000 events each over the last 7 days) and testSource: five events a
// few minutes old, n = 0…4, the odd ones at level error.
func startServer(t *testing.T) server {
	eps, err := endpoint.LoadFS(fixtures.Endpoints, "endpoints")
	require.NoError(t, err)
	store := logstore.New(logstore.Options{})
	srv := api.New(api.Config{Keys: api.Keys(key), Endpoints: eps, Backend: api.Local(store),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv.SetReady(true)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); srv.Close() })
	s := server{url: hs.URL, now: time.Now().UTC()}

	spec := fixtures.DefaultSpec(2000, s.now)
	for _, src := range fixtures.Sources {
		fixtures.GenerateBatches(spec, src, 1000, func(evs [][]byte) {
			s.post(t, "/api/logs?source_name="+url.QueryEscape(src), "application/json",
				fixtures.ArrayBody(evs))
		})
	}
	var evs []string
	for i := 0; i < 5; i++ {
		level := "info"
		if i%2 == 1 {
			level = "error"
		}
		ts := s.now.Add(time.Duration(i-10) * time.Minute).UnixMicro()
		evs = append(evs, fmt.Sprintf(`{"event_message":"row-%d","timestamp":%d,"n":%d,"level":%q}`, i, ts, i, level))
	}
	s.ingest(t, testSource, evs)
	return s
}

// problems collects what makes a page run fail whatever the step.
type problems struct {
	mu   sync.Mutex
	list []string
}

func (p *problems) add(format string, args ...any) {
	p.mu.Lock()
	p.list = append(p.list, fmt.Sprintf(format, args...))
	p.mu.Unlock()
}

func (p *problems) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.list)
}

func (p *problems) reset() {
	p.mu.Lock()
	p.list = nil
	p.mu.Unlock()
}

func (p *problems) check(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Empty(t, p.list, "the page made requests to other hosts or reported errors")
}

// openBrowser starts headless Chromium with a listener that records
// requests to hosts other than the test server's and JavaScript errors.
func openBrowser(t *testing.T, path string, base string) (context.Context, *problems) {
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
			chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()),
			// Chromium's own temporary files too stay under the test's directory.
			chromedp.Env("TMPDIR="+t.TempDir()))...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })

	host := strings.TrimPrefix(base, "http://")
	p := &problems{}
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			u, err := url.Parse(ev.Request.URL)
			if err != nil || (u.Scheme != "data" && u.Scheme != "blob" && u.Host != host) {
				p.add("request to another host: %s", ev.Request.URL)
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			p.add("uncaught exception: %s", msg)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				p.add("console.%s: %s", ev.Type, strings.Join(parts, " "))
			}
		case *cdplog.EventEntryAdded:
			// Failed requests the test makes on purpose are logged by the
			// browser with source "network"; anything else at level error
			// (a CSP violation, a failed module) is a fault of the page.
			if e := ev.Entry; e.Level == cdplog.EntryLevelError && e.Source != cdplog.EntrySourceNetwork {
				p.add("browser log (%s): %s %s", e.Source, e.Text, e.URL)
			}
		}
	}))
	return ctx, p
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, steps...))
}

// eval evaluates a JavaScript expression and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	require.NoError(t, err, js)
	return v
}

// wait polls a JavaScript predicate until it holds, failing with what the
// page shows in its alerts when it does not.
func wait(t *testing.T, ctx context.Context, predicate string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		alerts, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll('[role=alert],[role=status]')].map(e => e.id + ': ' + e.textContent)`))
		t.Fatalf("waiting for %s: %v\nalerts and statuses: %q", predicate, err, alerts)
	}
}

// tableRows reads a table's body as text, row by row.
func tableRows(t *testing.T, ctx context.Context, id string) [][]string {
	t.Helper()
	return eval[[][]string](t, ctx, fmt.Sprintf(
		`[...document.querySelectorAll('#%s tbody tr')].map(tr => [...tr.cells].map(c => c.textContent))`, id))
}

// waitRows waits until the results table shows exactly want.
func waitRows(t *testing.T, ctx context.Context, want [][]string) {
	t.Helper()
	b, _ := json.Marshal(want)
	wait(t, ctx, fmt.Sprintf(`JSON.stringify([...document.querySelectorAll('#results tbody tr')].map(tr => [...tr.cells].map(c => c.textContent))) === %q`, b))
}

// runQuery types sql, presses Run and waits for the rows.
func runQuery(t *testing.T, ctx context.Context, sql string, want [][]string) {
	t.Helper()
	setQuery(t, ctx, sql)
	do(t, ctx, chromedp.Click(chromedp.ID("run")))
	waitRows(t, ctx, want)
}

// setQuery replaces the editor's text as typing would (an input event).
func setQuery(t *testing.T, ctx context.Context, sql string) {
	t.Helper()
	b, _ := json.Marshal(sql)
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const q = document.getElementById('query'); q.focus(); q.value = %s;
		q.dispatchEvent(new Event('input', {bubbles: true})); return true })()`, b))
}

func TestPage(t *testing.T) {
	path := chromium(t)
	s := startServer(t)
	ctx, faults := openBrowser(t, path, s.url)
	downloads := t.TempDir()
	shots := os.Getenv("LOGQ_UI_SCREENSHOTS")
	if shots != "" {
		// Made here, so that a directory not there yet is not a failure
		// halfway through the pages.
		require.NoError(t, os.MkdirAll(shots, 0o755))
	}

	t.Run("sign-in", func(t *testing.T) {
		do(t, ctx, chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.ID("key")))
		// The fault recorder itself: a console.error and an uncaught
		// exception are seen (else every later check would pass vacuously).
		eval[bool](t, ctx, `console.error('probe-console'); setTimeout(() => { throw new Error('probe-throw') }); true`)
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) && len(faults.take()) < 2 {
			time.Sleep(20 * time.Millisecond)
		}
		got := strings.Join(faults.take(), "\n")
		require.Contains(t, got, "probe-console")
		require.Contains(t, got, "probe-throw")
		faults.reset()

		require.True(t, eval[bool](t, ctx, `location.pathname === '/ui/'`), "/ redirects to the page")
		// Logged, not asserted: timings on a shared machine are noise.
		t.Logf("first contentful paint: %.0f ms", eval[float64](t, ctx,
			`(performance.getEntriesByName('first-contentful-paint')[0] || {startTime: -1}).startTime`))
		label := eval[string](t, ctx, `document.querySelector('label[for=key]').textContent.trim()`)
		require.Equal(t, "API key", label)

		do(t, ctx, chromedp.SendKeys(chromedp.ID("key"), "not-the-key"+kb.Enter))
		wait(t, ctx, `document.getElementById('signin-alert').textContent.includes('not accepted')`)

		do(t, ctx, chromedp.Clear(chromedp.ID("key")), chromedp.SendKeys(chromedp.ID("key"), key+kb.Enter))
		wait(t, ctx, `document.querySelectorAll('#sources-table tbody tr').length >= 10`)
		require.Equal(t, key, eval[string](t, ctx, `sessionStorage.getItem('logq.apiKey')`))
		require.True(t, eval[bool](t, ctx, `localStorage.getItem('logq.apiKey') === null`), "not remembered unless asked")
		require.NotContains(t, eval[string](t, ctx, `location.href`), key, "the key never goes into a URL")
		faults.check(t)
	})

	t.Run("sources", func(t *testing.T) {
		rows := tableRows(t, ctx, "sources-table")
		got := map[string][]string{}
		for _, r := range rows {
			got[r[0]] = r
		}
		for _, src := range append(slices.Clone(fixtures.Sources), testSource) {
			require.Contains(t, got, src)
		}
		require.Equal(t, "5", got[testSource][1], "the events column of %s", testSource)
		require.Contains(t, got[testSource][5], "min ago", "time since the last event")
		screenshot(t, ctx, shots, "sources")

		do(t, ctx, chromedp.Click(chromedp.JSPath(fmt.Sprintf(
			`[...document.querySelectorAll('#sources-table tbody a')].find(a => a.textContent === %q)`, testSource))))
		wait(t, ctx, `location.hash.startsWith('#/explore') && new URLSearchParams(location.hash.split('?')[1]).get('source') === 'ui.test'`)
		// The default query: the source's newest rows in the last hour.
		wait(t, ctx, `document.querySelectorAll('#results tbody tr').length === 5`)
		faults.check(t)
	})

	t.Run("histogram", func(t *testing.T) {
		wait(t, ctx, `document.getElementById('hist-status').textContent.startsWith('5 events')`)
		bars := eval[int](t, ctx, `document.querySelectorAll('#histogram rect.bar').length`)
		require.GreaterOrEqual(t, bars, 1)
		require.LessOrEqual(t, bars, 5, "one bar per non-empty bucket, and there are five events")
		faults.check(t)
	})

	const good = "select n, event_message from `ui.test`\nwhere level = 'error'\norder by n"
	t.Run("query", func(t *testing.T) {
		runQuery(t, ctx, good, [][]string{{"1", "row-1"}, {"3", "row-3"}})
		require.True(t, eval[bool](t, ctx, `document.getElementById('run-status').textContent.startsWith('2 rows')`))
		hash := eval[string](t, ctx, `new URLSearchParams(location.hash.split('?')[1]).get('q')`)
		require.Equal(t, good, hash, "the query lives in the URL")
		// The histogram counts what the query's FROM and WHERE give: the
		// two error events of the five, two minutes apart (two bars).
		wait(t, ctx, `document.getElementById('hist-status').textContent.startsWith('2 events match the query')`)
		require.Equal(t, 2, eval[int](t, ctx, `document.querySelectorAll('#histogram rect.bar').length`))
		// A FROM without a timestamp column: the source's histogram, said so.
		runQuery(t, ctx, "select x from unnest([1, 2]) as x", [][]string{{"1"}, {"2"}})
		wait(t, ctx, `document.getElementById('hist-status').textContent.startsWith('5 events of ui.test (all of them')`)
		// The histogram keeps to the range, though the query does not: a
		// generated source's week of events is ~2000 minutes, past the 1000
		// rows /api/query answers, so a count of every minute would not reach
		// the last hour. Its count there, asked directly:
		from, to := s.now.Add(-time.Hour).Format(time.RFC3339), s.now.Add(time.Minute).Format(time.RFC3339)
		var counted struct{ Result []struct{ N int } }
		require.NoError(t, json.Unmarshal(s.post(t, "/api/query", "application/json", []byte(fmt.Sprintf(
			`{"sql":"select count(*) as n from `+"`cloudflare.logs.prod`"+` where timestamp >= timestamp(@from) and timestamp < timestamp(@to)","from":%q,"to":%q}`, from, to))), &counted))
		require.Len(t, counted.Result, 1)
		n := counted.Result[0].N
		require.Greater(t, n, 0)
		q := url.Values{"source": {"cloudflare.logs.prod"}, "q": {"select id from `cloudflare.logs.prod` limit 3"}, "from": {from}, "to": {to}}
		do(t, ctx, chromedp.Navigate(s.url+"/ui/#/explore?"+q.Encode()))
		wait(t, ctx, fmt.Sprintf(`document.getElementById('hist-status').textContent.startsWith('%d events match the query')`, n))
		// Back to the test source and the last hour, for what follows.
		do(t, ctx, chromedp.Navigate(s.url+"/ui/#/explore?"+url.Values{"source": {testSource}, "q": {good}}.Encode()))
		waitRows(t, ctx, [][]string{{"1", "row-1"}, {"3", "row-3"}})

		// Ctrl+Enter runs it too.
		setQuery(t, ctx, "select n from `ui.test` where n >= 3 order by n")
		do(t, ctx, chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierCtrl)))
		waitRows(t, ctx, [][]string{{"3"}, {"4"}})
		faults.check(t)
	})

	t.Run("bad query", func(t *testing.T) {
		setQuery(t, ctx, "select\n  count(* from x")
		do(t, ctx, chromedp.Click(chromedp.ID("run")))
		wait(t, ctx, `document.getElementById('explore-alert').textContent.includes('2:11')`)
		// Marked in the editor: the caret sits at line 2, column 11.
		require.Equal(t, len("select\n")+10, eval[int](t, ctx, `document.getElementById('query').selectionStart`))
		mark := eval[string](t, ctx, `document.getElementById('err-mark').textContent`)
		require.Contains(t, mark, strings.Repeat(" ", 10)+"^", "a caret under column 11")
		faults.check(t)
	})

	t.Run("details and filter", func(t *testing.T) {
		runQuery(t, ctx, good, [][]string{{"1", "row-1"}, {"3", "row-3"}})
		do(t, ctx, chromedp.Click(chromedp.CSS("#results tbody tr")))
		wait(t, ctx, `!document.getElementById('details').hidden && document.getElementById('details-json').textContent !== ''`)
		var detail map[string]any
		require.NoError(t, json.Unmarshal([]byte(eval[string](t, ctx, `document.getElementById('details-json').textContent`)), &detail))
		require.Equal(t, map[string]any{"n": 1.0, "event_message": "row-1"}, detail)
		screenshot(t, ctx, shots, "explorer")

		// "≠ row-1" adds a condition to the WHERE and runs again.
		do(t, ctx, chromedp.Click(chromedp.JSPath(
			`[...document.querySelectorAll('#details button')].find(b => b.textContent.startsWith('≠') && b.textContent.includes('row-1'))`)))
		wait(t, ctx, `document.getElementById('query').value.includes("event_message != 'row-1'")`)
		waitRows(t, ctx, [][]string{{"3", "row-3"}})
		do(t, ctx, chromedp.KeyEvent(kb.Escape))
		faults.check(t)
	})

	t.Run("export", func(t *testing.T) {
		runQuery(t, ctx, "select n from `ui.test` where n = 4", [][]string{{"4"}}) // a different table first
		runQuery(t, ctx, good, [][]string{{"1", "row-1"}, {"3", "row-3"}})
		_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: downloads, EventsEnabled: ptr(true)})
		require.NoError(t, err)

		csvText := download(t, ctx, downloads, `[aria-label=Export] button[data-export=csv]`)
		recs, err := csv.NewReader(strings.NewReader(csvText)).ReadAll()
		require.NoError(t, err)
		require.Equal(t, [][]string{{"n", "event_message"}, {"1", "row-1"}, {"3", "row-3"}}, recs)

		var rows []map[string]any
		require.NoError(t, json.Unmarshal([]byte(download(t, ctx, downloads, `[aria-label=Export] button[data-export=json]`)), &rows))
		require.Equal(t, []map[string]any{{"n": 1.0, "event_message": "row-1"}, {"n": 3.0, "event_message": "row-3"}}, rows)

		nd := strings.Split(strings.TrimSpace(download(t, ctx, downloads, `[aria-label=Export] button[data-export=ndjson]`)), "\n")
		require.Len(t, nd, 2)
		require.JSONEq(t, `{"n":3,"event_message":"row-3"}`, nd[1])

		// Strings a spreadsheet would run as formulas are written as text;
		// numbers, and every other string, as they are.
		runQuery(t, ctx, "select '=1+2' as f, '@x' as a, '-y' as m, 'x=1' as plain, -3 as n",
			[][]string{{"=1+2", "@x", "-y", "x=1", "-3"}})
		recs, err = csv.NewReader(strings.NewReader(download(t, ctx, downloads, `[aria-label=Export] button[data-export=csv]`))).ReadAll()
		require.NoError(t, err)
		require.Equal(t, [][]string{{"f", "a", "m", "plain", "n"}, {"'=1+2", "'@x", "'-y", "x=1", "-3"}}, recs)
		runQuery(t, ctx, good, [][]string{{"1", "row-1"}, {"3", "row-3"}}) // the tail below shows these columns
		faults.check(t)
	})

	t.Run("live tail", func(t *testing.T) {
		do(t, ctx, chromedp.Click(chromedp.ID("live")))
		wait(t, ctx, `document.getElementById('tail-status').textContent.startsWith('Following')`)
		msg := fmt.Sprintf("tailed-%d", time.Now().UnixNano())
		s.ingest(t, testSource, []string{fmt.Sprintf(`{"event_message":%q,"n":99}`, msg)})
		wait(t, ctx, fmt.Sprintf(`document.getElementById('results').textContent.includes(%q)`, msg))
		do(t, ctx, chromedp.Click(chromedp.ID("live")))
		faults.check(t)
	})

	t.Run("keyboard", func(t *testing.T) {
		do(t, ctx, chromedp.Click(chromedp.CSS("body")), chromedp.KeyEvent("/"))
		wait(t, ctx, `document.activeElement && document.activeElement.id === 'query'`)
		do(t, ctx, chromedp.Blur(chromedp.ID("query")), chromedp.KeyEvent("?"))
		wait(t, ctx, `document.getElementById('shortcuts').open`)
		do(t, ctx, chromedp.KeyEvent(kb.Escape))
		wait(t, ctx, `!document.getElementById('shortcuts').open`)
	})

	t.Run("endpoint", func(t *testing.T) {
		params := "project=" + fixtures.ProjectRef(0) + "&interval=hourly"
		do(t, ctx, chromedp.Navigate(s.url+"/ui/#/endpoints/usage.api-counts?"+params))
		wait(t, ctx, `document.querySelector('#ep-params [name=project]') && document.querySelector('#ep-params [name=project]').value === 'proj00ref'`)
		require.Equal(t, "SELECT", eval[string](t, ctx, `document.querySelector('#ep-params [name=interval]').tagName`), "enumerations are selects")
		do(t, ctx, chromedp.Click(chromedp.ID("ep-run")))
		wait(t, ctx, `document.getElementById('ep-count').textContent !== '–'`)

		var want struct{ Result []map[string]any }
		require.NoError(t, json.Unmarshal(s.get(t, "/api/endpoints/query/usage.api-counts?"+params), &want))
		require.NotEmpty(t, want.Result)
		require.Equal(t, fmt.Sprint(len(want.Result)), eval[string](t, ctx, `document.getElementById('ep-count').textContent`))
		require.Len(t, tableRows(t, ctx, "ep-table"), len(want.Result))
		require.Contains(t, []string{"hit", "miss"}, eval[string](t, ctx, `document.getElementById('ep-cache').textContent`))
		curl := eval[string](t, ctx, `document.getElementById('ep-curl').textContent`)
		require.Contains(t, curl, "/api/endpoints/query/usage.api-counts?")
		require.Contains(t, curl, "project=proj00ref")
		require.NotContains(t, curl, key, "the curl line names $KEY, not the key")

		do(t, ctx, chromedp.Click(chromedp.ID("ep-copy-test")))
		wait(t, ctx, `document.getElementById('ep-test').textContent.includes('want:')`)
		yaml := eval[string](t, ctx, `document.getElementById('ep-test').textContent`)
		require.Contains(t, yaml, `endpoint: "usage.api-counts"`)
		require.Contains(t, yaml, `params: {interval: "hourly", project: "proj00ref"}`)
		screenshot(t, ctx, shots, "endpoints")
		faults.check(t)
	})

	t.Run("sign-out", func(t *testing.T) {
		do(t, ctx, chromedp.Click(chromedp.ID("signout")))
		wait(t, ctx, `!document.getElementById('page-signin').hidden`)
		require.True(t, eval[bool](t, ctx, `sessionStorage.getItem('logq.apiKey') === null`))
		screenshot(t, ctx, shots, "signin")
		faults.check(t)
	})
}

// download clicks an export button and returns the downloaded file.
func download(t *testing.T, ctx context.Context, dir, button string) string {
	t.Helper()
	progress := chromedp.BrowserEvents(ctx, browser.DownloadProgress)
	do(t, ctx, chromedp.Click(chromedp.CSS(button)))
	for ev, err := range progress {
		require.NoError(t, err)
		if ev.State == browser.DownloadProgressStateCanceled {
			t.Fatalf("the download of %s was canceled", button)
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			b, err := os.ReadFile(filepath.Join(dir, ev.GUID))
			require.NoError(t, err)
			return string(b)
		}
	}
	t.Fatalf("no download from %s", button)
	return ""
}

// screenshot writes the page, light and dark, when LOGQ_UI_SCREENSHOTS
// names a directory.
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	if dir == "" {
		return
	}
	for _, scheme := range []string{"light", "dark"} {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		require.NoError(t, err)
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+"-"+scheme+".png"), png, 0o644))
	}
}

func ptr[T any](v T) *T { return &v }
