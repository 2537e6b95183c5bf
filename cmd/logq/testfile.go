package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// testFile is one file of `logq test` (docs/testing.md): a clock, the
// endpoints to load beside the built-in ones, and the tests.
type testFile struct {
	path           string // as named on the command line
	now            time.Time
	endpoints      []testRef // endpoint directories or files, resolved against the file's directory
	sandboxLogsAll bool
	tests          []*testCase
}

// testRef is a value the file gives and where it gives it ("file:line:col").
type testRef struct {
	value string
	at    string
}

// testCase is one test: a request to one endpoint over the events given,
// and the rows or the error it must answer.
type testCase struct {
	name     string
	at       string
	endpoint testRef
	params   url.Values
	sql      *testRef // the caller's SQL (sql=), nil when not given
	now      time.Time
	sources  []*testSource // in the order the file first names them
	want     []jsonRow     // nil when wantErr is set; empty for `want: []`
	wantErr  *wantError
}

// testSource holds the events of one source: those written in the file,
// as the JSON array body POST /api/logs takes, and NDJSON files.
type testSource struct {
	name     string
	inline   []byte   // nil when the file writes none
	inlineAt []string // where each inline event is written
	files    []*ndjsonFile
}

// ndjsonFile is an events file, read once however many tests name it.
type ndjsonFile struct {
	path string // resolved against the test file's directory
	at   string // where the test file first names it
	data []byte
}

// wantError is the error a test expects: the HTTP status, and a regular
// expression its message must match.
type wantError struct {
	status  int
	message *regexp.Regexp
}

// testParser reads one file; read opens the files it names (events files),
// so a fuzz target can read without a disk.
type testParser struct {
	path  string
	dir   string
	read  func(string) ([]byte, error)
	files map[string]*ndjsonFile
	yw    yamlJSONWriter
}

// parseTestFile reads a test file. Every error begins "file:line:col: "
// (or "file:line: " when YAML itself cannot say the column).
func parseTestFile(path string, data []byte, read func(string) ([]byte, error)) (*testFile, error) {
	p := &testParser{path: path, dir: filepath.Dir(path), read: read, files: map[string]*ndjsonFile{}}
	p.yw.at = p.at
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:1:1: the file is empty; it needs now: and tests:", path)
		}
		return nil, p.yamlError(err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, fmt.Errorf("%s: a test file is one YAML document", p.at(&next))
	} else if !errors.Is(err, io.EOF) {
		return nil, p.yamlError(err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s:1:1: the file is empty; it needs now: and tests:", path)
	}
	return p.file(doc.Content[0])
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError places a YAML syntax error: yaml.v3 knows only its line.
func (p *testParser) yamlError(err error) error {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%s:%s: %s", p.path, m[1], m[2])
	}
	return fmt.Errorf("%s: %w", p.path, err)
}

func (p *testParser) at(n *yaml.Node) string {
	return fmt.Sprintf("%s:%d:%d", p.path, n.Line, n.Column)
}

// fields returns a mapping's keys and values, aliases followed and merge
// keys applied (a test may start from `<<: *defaults`), each key checked
// against known.
func (p *testParser) fields(n *yaml.Node, what string, known ...string) ([]yamlPair, error) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: %s must be a mapping", p.at(n), what)
	}
	pairs, err := p.yw.pairs(n, 0)
	if err != nil {
		return nil, err
	}
	if known != nil {
		for _, kv := range pairs {
			if !slices.Contains(known, kv.key) {
				return nil, fmt.Errorf("%s: unknown key %q in %s (known: %s)", p.at(kv.keyNode), kv.key, what, strings.Join(known, ", "))
			}
		}
	}
	return pairs, nil
}

// deref follows aliases (bounded: yaml.v3 refuses cycles, but a walk
// must not trust that).
func deref(n *yaml.Node) *yaml.Node {
	for d := 0; n.Kind == yaml.AliasNode && n.Alias != nil && d < maxYAMLDepth; d++ {
		n = n.Alias
	}
	return n
}

// str reads a scalar as text: every parameter is a string on the wire, so
// `limit: 10` is "10". A null or a collection is an error.
func (p *testParser) str(n *yaml.Node, what string) (string, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", fmt.Errorf("%s: %s must be a value (write \"\" for an empty one)", p.at(n), what)
	}
	return n.Value, nil
}

func (p *testParser) time(n *yaml.Node, what string) (time.Time, error) {
	s, err := p.str(n, what)
	if err != nil {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %s must be an RFC 3339 time such as 2026-01-01T12:00:00Z, got %q", p.at(n), what, s)
	}
	return t, nil
}

// resolve makes a path the file names relative to the file's directory.
func (p *testParser) resolve(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(p.dir, name)
}

func (p *testParser) file(root *yaml.Node) (*testFile, error) {
	pairs, err := p.fields(root, "a test file", "now", "endpoints", "sandbox_logs_all", "tests")
	if err != nil {
		return nil, err
	}
	f := &testFile{path: p.path}
	var tests *yaml.Node
	for _, kv := range pairs {
		v := deref(kv.val)
		switch kv.key {
		case "now":
			if f.now, err = p.time(v, "now"); err != nil {
				return nil, err
			}
		case "endpoints":
			list := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				list = v.Content
			}
			for _, e := range list {
				s, err := p.str(e, "an endpoints entry")
				if err != nil {
					return nil, err
				}
				f.endpoints = append(f.endpoints, testRef{p.resolve(s), p.at(e)})
			}
		case "sandbox_logs_all":
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
				return nil, fmt.Errorf("%s: sandbox_logs_all must be true or false", p.at(v))
			}
			f.sandboxLogsAll = v.Value == "true"
		case "tests":
			tests = v
		}
	}
	if f.now.IsZero() {
		return nil, fmt.Errorf("%s: now is required: the time every test runs at (CURRENT_TIMESTAMP), e.g. now: 2026-01-01T12:00:00Z", p.at(root))
	}
	if tests == nil || tests.Kind != yaml.SequenceNode || len(tests.Content) == 0 {
		at := root
		if tests != nil {
			at = tests
		}
		return nil, fmt.Errorf("%s: tests must be a list of one test or more", p.at(at))
	}
	names := map[string]string{}
	for _, tn := range tests.Content {
		tc, err := p.test(tn, f.now)
		if err != nil {
			return nil, err
		}
		if other, dup := names[tc.name]; dup {
			return nil, fmt.Errorf("%s: test name %q is also used at %s", tc.at, tc.name, other)
		}
		names[tc.name] = tc.at
		f.tests = append(f.tests, tc)
	}
	return f, nil
}

var testKeys = []string{"name", "endpoint", "params", "sql", "now", "events", "events_files", "want", "want_error"}

func (p *testParser) test(n *yaml.Node, now time.Time) (*testCase, error) {
	pairs, err := p.fields(n, "a test", testKeys...)
	if err != nil {
		return nil, err
	}
	tc := &testCase{at: p.at(deref(n)), now: now, params: url.Values{}}
	var want *yaml.Node
	for _, kv := range pairs {
		v := deref(kv.val)
		switch kv.key {
		case "name":
			tc.name, err = p.str(v, "name")
		case "endpoint":
			tc.endpoint.value, err = p.str(v, "endpoint")
			tc.endpoint.at = p.at(v)
		case "params":
			err = p.params(tc, v)
		case "sql":
			var s string
			if s, err = p.str(v, "sql"); err == nil {
				tc.sql = &testRef{s, p.at(v)}
			}
		case "now":
			tc.now, err = p.time(v, "now")
		case "events":
			err = p.events(tc, v)
		case "events_files":
			err = p.eventsFiles(tc, v)
		case "want":
			want = v
		case "want_error":
			tc.wantErr, err = p.wantError(v)
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case strings.TrimSpace(tc.name) == "":
		return nil, fmt.Errorf("%s: a test needs a name", tc.at)
	case tc.endpoint.value == "":
		return nil, fmt.Errorf("%s: test %q needs an endpoint (a name or a UUID)", tc.at, tc.name)
	case want != nil && tc.wantErr != nil:
		return nil, fmt.Errorf("%s: test %q gives both want and want_error", tc.at, tc.name)
	case want == nil && tc.wantErr == nil:
		return nil, fmt.Errorf("%s: test %q needs want (the rows; [] for none) or want_error", tc.at, tc.name)
	case tc.sql != nil && tc.params.Has("sql"):
		return nil, fmt.Errorf("%s: test %q gives sql both beside and in params", tc.sql.at, tc.name)
	}
	if want != nil {
		if tc.want, err = p.want(want); err != nil {
			return nil, err
		}
	}
	return tc, nil
}

func (p *testParser) params(tc *testCase, v *yaml.Node) error {
	pairs, err := p.fields(v, "params")
	if err != nil {
		return err
	}
	for _, kv := range pairs {
		s, err := p.str(kv.val, "parameter "+kv.key)
		if err != nil {
			return err
		}
		tc.params.Set(kv.key, s)
	}
	return nil
}

// source returns the test's events of a source, made on first mention.
func (tc *testCase) source(name string) *testSource {
	for _, s := range tc.sources {
		if s.name == name {
			return s
		}
	}
	s := &testSource{name: name}
	tc.sources = append(tc.sources, s)
	return s
}

// events reads `events: {source: [event, ...]}`; each event must be an
// object, as ingest requires, and becomes JSON here so a test run only
// posts bytes.
func (p *testParser) events(tc *testCase, v *yaml.Node) error {
	pairs, err := p.fields(v, "events")
	if err != nil {
		return err
	}
	for _, kv := range pairs {
		list := deref(kv.val)
		if kv.key == "" {
			return fmt.Errorf("%s: a source name must not be empty", p.at(kv.keyNode))
		}
		if list.Kind != yaml.SequenceNode {
			return fmt.Errorf("%s: the events of %s must be a list of objects", p.at(list), kv.key)
		}
		src := tc.source(kv.key)
		body := []byte{'['}
		for i, e := range list.Content {
			e = deref(e)
			if e.Kind != yaml.MappingNode {
				return fmt.Errorf("%s: an event must be an object, e.g. {timestamp: \"2026-01-01T11:00:00Z\", event_message: hello}", p.at(e))
			}
			js, err := yamlJSON(e, p.at)
			if err != nil {
				return err
			}
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, js...)
			src.inlineAt = append(src.inlineAt, p.at(e))
		}
		if len(list.Content) > 0 {
			src.inline = append(body, ']')
		}
	}
	return nil
}

// eventsFiles reads `events_files: {source: file}` (or a list of files).
func (p *testParser) eventsFiles(tc *testCase, v *yaml.Node) error {
	pairs, err := p.fields(v, "events_files")
	if err != nil {
		return err
	}
	for _, kv := range pairs {
		if kv.key == "" {
			return fmt.Errorf("%s: a source name must not be empty", p.at(kv.keyNode))
		}
		val := deref(kv.val)
		list := []*yaml.Node{val}
		if val.Kind == yaml.SequenceNode {
			list = val.Content
		}
		src := tc.source(kv.key)
		for _, fn := range list {
			name, err := p.str(fn, "an events file")
			if err != nil {
				return err
			}
			path := p.resolve(name)
			f := p.files[path]
			if f == nil {
				data, err := p.read(path)
				if err != nil {
					return fmt.Errorf("%s: events file: %w", p.at(fn), err)
				}
				f = &ndjsonFile{path: path, at: p.at(fn), data: data}
				p.files[path] = f
			}
			src.files = append(src.files, f)
		}
	}
	return nil
}

func (p *testParser) want(v *yaml.Node) ([]jsonRow, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: want must be a list of rows (objects); want: [] means no rows", p.at(v))
	}
	rows := make([]jsonRow, 0, len(v.Content))
	for _, r := range v.Content {
		r = deref(r)
		if r.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: a row must be an object of column: value", p.at(r))
		}
		js, err := yamlJSON(r, p.at)
		if err != nil {
			return nil, err
		}
		row, err := decodeRow(js)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.at(r), err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func (p *testParser) wantError(v *yaml.Node) (*wantError, error) {
	pairs, err := p.fields(v, "want_error", "status", "message")
	if err != nil {
		return nil, err
	}
	we := &wantError{}
	for _, kv := range pairs {
		s, err := p.str(kv.val, kv.key)
		if err != nil {
			return nil, err
		}
		switch kv.key {
		case "status":
			we.status, err = strconv.Atoi(s)
			if err != nil || we.status < 400 || we.status > 599 {
				return nil, fmt.Errorf("%s: status must be an HTTP error status (400 to 599), got %q", p.at(deref(kv.val)), s)
			}
		case "message":
			if we.message, err = regexp.Compile(s); err != nil {
				return nil, fmt.Errorf("%s: message is a regular expression: %w", p.at(deref(kv.val)), err)
			}
		}
	}
	if we.status == 0 {
		return nil, fmt.Errorf("%s: want_error needs a status, e.g. {status: 400, message: interval}", p.at(deref(v)))
	}
	return we, nil
}
