package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"logq/api"
	"logq/endpoint"
	"logq/logstore"
)

// Exit statuses of `logq test`.
const (
	testPassed     = 0 // every test passed
	testFailed     = 1 // a test's answer differs from what it wants
	testUnrunnable = 2 // a file cannot be read, is malformed, or its input is refused
)

// testCmd runs `logq test FILE...`: each test posts its events to a fresh
// in-memory server and queries it through the server's own handler, at
// the file's clock, so rows are encoded and errors worded as over HTTP.
func testCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("test", stderr)
	runRE := fs.String("run", "", "run only the tests whose name matches this regular expression")
	verbose := fs.Bool("v", false, "list every test, passed or not")
	// Flags may follow the files.
	files, help, err := parseInterleaved(fs, args)
	if help {
		return 0
	}
	if err != nil {
		return testUnrunnable
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "logq test: name the test files, e.g. logq test endpoints.test.yaml (docs/testing.md)")
		return testUnrunnable
	}
	r := newTestRunner(stdout, stderr)
	r.verbose = *verbose
	if *runRE != "" {
		re, err := regexp.Compile(*runRE)
		if err != nil {
			fmt.Fprintf(stderr, "logq test: --run: %v\n", err)
			return testUnrunnable
		}
		r.only = re
	}
	code := testPassed
	for _, f := range files {
		code = max(code, r.runFile(f))
	}
	return code
}

// testRunner runs files, sharing what does not change between them: the
// built-in endpoints, endpoint files named by several test files, and the
// order each endpoint's query gives its rows.
type testRunner struct {
	stdout, stderr io.Writer
	verbose        bool
	only           *regexp.Regexp

	builtin []*endpoint.Endpoint
	loaded  map[string][]*endpoint.Endpoint // by the path an endpoints entry names
	orders  map[*endpoint.Endpoint]rowOrder
	log     *slog.Logger
}

func newTestRunner(stdout, stderr io.Writer) *testRunner {
	return &testRunner{stdout: stdout, stderr: stderr, loaded: map[string][]*endpoint.Endpoint{},
		orders: map[*endpoint.Endpoint]rowOrder{}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// testKey is the API key of the in-process servers: nothing else can reach
// them, but the handler checks a key as it does for any caller.
const testKey = "logq-test"

// runFile runs one file and prints its report; it returns the file's exit
// status.
func (r *testRunner) runFile(path string) int {
	start := time.Now()
	tf, eps, targets, err := r.setUp(path)
	if err != nil {
		fmt.Fprintf(r.stderr, "logq test: %v\n", err)
		fmt.Fprintf(r.stdout, "FAIL\t%s\t[could not run]\n", path)
		return testUnrunnable
	}
	results := r.runTests(tf, targets, eps)
	ran, failed, broken := 0, 0, 0
	for i, tc := range tf.tests {
		res := results[i]
		if !res.ran {
			continue
		}
		ran++
		switch {
		case res.err != nil:
			broken++
			fmt.Fprintf(r.stderr, "logq test: %v\n", res.err)
		case res.lines != nil:
			failed++
			fmt.Fprintf(r.stdout, "--- FAIL: %s: %s (%s)\n", tc.at, tc.name, tc.endpoint.value)
			for _, l := range res.lines {
				fmt.Fprintf(r.stdout, "    %s\n", l)
			}
		case r.verbose:
			fmt.Fprintf(r.stdout, "--- PASS: %s: %s (%s)\n", tc.at, tc.name, tc.endpoint.value)
		}
	}
	took := time.Since(start).Seconds()
	switch {
	case broken > 0:
		fmt.Fprintf(r.stdout, "FAIL\t%s\t%s, %d could not run, %d failed\t%.3fs\n", path, plural(ran, "test"), broken, failed, took)
		return testUnrunnable
	case failed > 0:
		fmt.Fprintf(r.stdout, "FAIL\t%s\t%s, %d failed\t%.3fs\n", path, plural(ran, "test"), failed, took)
		return testFailed
	}
	fmt.Fprintf(r.stdout, "ok\t%s\t%s\t%.3fs\n", path, plural(ran, "test"), took)
	return testPassed
}

// setUp reads a file and finds the endpoint of each of its tests.
func (r *testRunner) setUp(path string) (*testFile, []*endpoint.Endpoint, []*endpoint.Endpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	tf, err := parseTestFile(path, data, os.ReadFile)
	if err != nil {
		return nil, nil, nil, err
	}
	eps, err := r.endpoints(tf)
	if err != nil {
		return nil, nil, nil, err
	}
	targets := make([]*endpoint.Endpoint, len(tf.tests))
	for i, tc := range tf.tests {
		if targets[i], err = findEndpoint(eps, tc); err != nil {
			return nil, nil, nil, err
		}
	}
	return tf, eps, targets, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// testResult is what one test came to: ran is false for a test --run
// leaves out; lines is its difference when it failed; err says why it
// could not run.
type testResult struct {
	ran   bool
	lines []string
	err   error
}

// runTests runs a file's tests, several at once: each has a server and a
// store of its own, so they share nothing but the endpoints, which no run
// changes. The report follows the file's order whatever the timing.
func (r *testRunner) runTests(tf *testFile, targets, eps []*endpoint.Endpoint) []testResult {
	results := make([]testResult, len(tf.tests))
	sem := make(chan struct{}, min(runtime.GOMAXPROCS(0), 8))
	var wg sync.WaitGroup
	for i, tc := range tf.tests {
		if r.only != nil && !r.only.MatchString(tc.name) {
			continue
		}
		ord := r.order(targets[i], tc) // the cache is not shared with the goroutines
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			lines, err := r.runTest(tc, ord, eps)
			results[i] = testResult{ran: true, lines: lines, err: err}
		}()
	}
	wg.Wait()
	return results
}

// runTest runs one test on a server of its own (a fresh store: tests are
// independent). It returns the lines of the difference when the test
// fails, and an error when its events are refused.
func (r *testRunner) runTest(tc *testCase, ord rowOrder, eps []*endpoint.Endpoint) ([]string, error) {
	now := tc.now
	// The store's clock is the arrival time of events without a timestamp.
	store := logstore.New(logstore.Options{Now: func() time.Time { return now }})
	defer store.Close()
	srv := api.New(api.Config{Keys: api.Keys(testKey), Endpoints: eps, Backend: api.Local(store), Clock: api.NewFakeClock(now), Logger: r.log})
	defer srv.Close()
	srv.SetReady(true)
	h := srv.Handler()
	for _, src := range tc.sources {
		if src.inline != nil {
			if err := postEvents(h, tc, src.name, src.inline, func(i int) string { return src.inlineAt[i] }); err != nil {
				return nil, err
			}
		}
		for _, f := range src.files {
			if err := postEvents(h, tc, src.name, f.data, f.eventAt); err != nil {
				return nil, err
			}
		}
	}
	params := tc.params
	if tc.sql != nil {
		params = url.Values{}
		for k, v := range tc.params {
			params[k] = v
		}
		params.Set("sql", tc.sql.value)
	}
	status, body := serveOne(h, http.MethodGet, "/api/endpoints/query/"+url.PathEscape(tc.endpoint.value)+"?"+params.Encode(), nil)
	return judge(tc, ord, status, body), nil
}

// serveOne answers one request with the server's handler.
func serveOne(h http.Handler, method, target string, body []byte) (int, []byte) {
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	req.Header.Set("X-API-KEY", testKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

var refusalRE = regexp.MustCompile(`^event (\d+): (?:line \d+: )?(.*)$`)

// postEvents sends one body of events as POST /api/logs does. Anything but
// 200 is the test's input at fault: each refused event is named at the
// place it is written (eventAt of its index in the body).
func postEvents(h http.Handler, tc *testCase, source string, body []byte, eventAt func(int) string) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	status, resp := serveOne(h, http.MethodPost, "/api/logs?source_name="+url.QueryEscape(source), body)
	switch status {
	case http.StatusOK:
		return nil
	case http.StatusNotAcceptable:
		var out struct {
			Message []string `json:"message"`
		}
		if json.Unmarshal(resp, &out) != nil || len(out.Message) == 0 {
			break
		}
		var errs []error
		for _, m := range out.Message {
			if sm := refusalRE.FindStringSubmatch(m); sm != nil {
				i, _ := strconv.Atoi(sm[1])
				errs = append(errs, fmt.Errorf("%s: test %q: ingest refused this event of %s: %s", eventAt(i), tc.name, source, sm[2]))
				continue
			}
			errs = append(errs, fmt.Errorf("%s: test %q: ingest refused an event of %s: %s", tc.at, tc.name, source, m))
		}
		return errors.Join(errs...)
	}
	return fmt.Errorf("%s: test %q: ingest into %s answered %d: %s", tc.at, tc.name, source, status, errorMessage(status, resp))
}

// eventAt names the place of the i-th event of an NDJSON file: ingest
// counts the lines that are not blank.
func (f *ndjsonFile) eventAt(i int) string {
	if bytes.HasPrefix(bytes.TrimSpace(f.data), []byte("[")) {
		return fmt.Sprintf("%s: event %d", f.path, i+1) // a JSON array, not NDJSON
	}
	line, n := 0, 0
	for _, l := range bytes.Split(f.data, []byte("\n")) {
		line++
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if n == i {
			return fmt.Sprintf("%s:%d", f.path, line)
		}
		n++
	}
	return fmt.Sprintf("%s: event %d", f.path, i+1)
}

// judge compares an answer with what the test wants; nil when it passes.
func judge(tc *testCase, ord rowOrder, status int, body []byte) []string {
	if we := tc.wantErr; we != nil {
		msg := apiErrorMessage(body)
		switch {
		case status == http.StatusOK:
			n := "rows"
			if rows, err := decodeResult(body); err == nil {
				n = plural(len(rows), "row")
			}
			return []string{fmt.Sprintf("want error %d, got 200 with %s", we.status, n)}
		case status != we.status:
			return []string{fmt.Sprintf("want error %d, got %d: %s", we.status, status, msg)}
		case we.message != nil && !we.message.MatchString(msg):
			return []string{fmt.Sprintf("want an error message matching %q, got %q", we.message.String(), msg)}
		}
		return nil
	}
	if status != http.StatusOK {
		return []string{fmt.Sprintf("want %s, got error %d: %s", plural(len(tc.want), "row"), status, apiErrorMessage(body))}
	}
	got, err := decodeResult(body)
	if err != nil {
		return []string{err.Error()}
	}
	lines := compareRows(tc.want, got, ord)
	if lines == nil {
		return nil
	}
	how := "compared as a multiset (the query has no ORDER BY at its top level)"
	if ord.ordered {
		how = "compared in order (" + ord.by + ")"
	}
	return append([]string{fmt.Sprintf("want %s, got %d; %s", plural(len(tc.want), "row"), len(got), how)}, lines...)
}

// apiErrorMessage is the message of an error answer (CONTRACT.md §2), or
// the body itself when it is not one.
func apiErrorMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Message == "" {
		return strings.TrimSpace(string(body))
	}
	return e.Error.Message
}
