package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"logq/exec"
	"logq/logstore"
)

// query runs an endpoint against a server (--url) or in-process over NDJSON
// files (--file SOURCE=PATH), printing a table or, with --json, the body.
func query(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("query", stderr)
	var files stringList
	asJSON := fs.Bool("json", false, "print the JSON response instead of a table")
	base := fs.String("url", "", "server base URL, e.g. http://127.0.0.1:4000 (env LOGQ_URL)")
	key := fs.String("api-key", "", "API key for --url (env LOGQ_API_KEY)")
	dir := fs.String("endpoints", "", "directory of extra endpoint YAML files, for in-process runs")
	explain := fs.Bool("explain", false, "print the optimised plan instead of running (in-process)")
	sandbox := fs.Bool("sandbox-logs-all", false, "in-process: the built-in logs.all takes sql= as with serve --sandbox-logs-all")
	raw := fs.Bool("raw", false, "print TIMESTAMP columns as integer microseconds, as the API sends them")
	sql := fs.String("sql", "", "run this SELECT over the sources by name (/api/query) instead of an endpoint; name=value arguments are its @params")
	fs.Var(&files, "file", "SOURCE=PATH.ndjson to load for an in-process run; repeatable")
	// Flags may follow the positional arguments.
	positional, help, perr := parseInterleaved(fs, args)
	if help {
		return 0
	}
	if perr != nil {
		return 2
	}
	if len(positional) == 0 && *sql == "" {
		fmt.Fprintln(stderr, "logq query: name the endpoint, e.g. logq query logs.all project=abc project_tier=PRO, or give --sql 'select …'")
		return 2
	}
	name, params := "", url.Values{}
	if *sql == "" {
		name, positional = positional[0], positional[1:]
	}
	for _, kv := range positional {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			fmt.Fprintf(stderr, "logq query: parameter %q is not name=value\n", kv)
			return 2
		}
		params.Set(k, v)
	}
	if *base == "" {
		*base = os.Getenv("LOGQ_URL")
	}
	if *key == "" {
		*key = os.Getenv("LOGQ_API_KEY")
	}
	var status int
	var body []byte
	var err error
	switch {
	case *base != "" && len(files) > 0:
		fmt.Fprintln(stderr, "logq query: use either --url or --file, not both")
		return 2
	case *explain && *sql != "":
		fmt.Fprintln(stderr, "logq query: --explain explains an endpoint, not --sql")
		return 2
	case *explain:
		return explainQuery(stdout, stderr, files, *dir, *sandbox, name, params)
	case *base != "":
		status, body, err = remoteQuery(*base, *key, queryPath(name, *sql, params))
	case len(files) > 0:
		status, body, err = localQuery(files, *dir, *sandbox, queryPath(name, *sql, params))
	default:
		fmt.Fprintln(stderr, "logq query: say where to run: --url http://host:4000 (a server) or --file SOURCE=PATH.ndjson (in-process)")
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "logq query:", err)
		return 1
	}
	if status != 200 {
		fmt.Fprintln(stderr, "logq query:", errorMessage(status, body))
		return 1
	}
	if *asJSON {
		_, _ = stdout.Write(body)
		return 0
	}
	return printTable(stdout, body, *raw)
}

// explainQuery prints the plan an in-process run would execute.
func explainQuery(stdout, stderr io.Writer, files []string, dir string, sandbox bool, name string, params url.Values) int {
	store := logstore.New(logstore.Options{})
	for _, f := range files {
		src, path, ok := strings.Cut(f, "=")
		if !ok {
			fmt.Fprintf(stderr, "logq query: --file %q is not SOURCE=PATH\n", f)
			return 2
		}
		if err := loadNDJSON(store, src, path); err != nil {
			fmt.Fprintln(stderr, "logq query:", err)
			return 1
		}
	}
	eps, err := loadEndpoints(dir, sandbox)
	if err != nil {
		fmt.Fprintln(stderr, "logq query:", err)
		return 1
	}
	for _, e := range eps {
		if e.Name == name || strings.EqualFold(e.ID, name) {
			p := map[string]string{}
			for k := range params {
				p[k] = params.Get(k)
			}
			q, _, err := e.CallerQuery(p)
			if err != nil {
				fmt.Fprintln(stderr, "logq query:", err)
				return 1
			}
			plan, err := exec.Explain(exec.Local(store), q, exec.Request{Params: p})
			if err != nil {
				fmt.Fprintln(stderr, "logq query:", err)
				return 1
			}
			fmt.Fprint(stdout, plan)
			return 0
		}
	}
	fmt.Fprintf(stderr, "logq query: no endpoint %q\n", name)
	return 1
}

// queryPath is the request path of an endpoint's call, or of an ad-hoc
// query when sql is set.
func queryPath(name, sql string, params url.Values) string {
	if sql != "" {
		p := url.Values{}
		for k, v := range params {
			p[k] = v
		}
		p.Set("sql", sql)
		return "/api/query?" + p.Encode()
	}
	return "/api/endpoints/query/" + url.PathEscape(name) + "?" + params.Encode()
}

func remoteQuery(base, key, path string) (int, []byte, error) {
	u := strings.TrimSuffix(base, "/") + path
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// localQuery loads NDJSON files into an in-process store and serves the one
// request through the same handler the server uses.
func localQuery(files []string, dir string, sandbox bool, path string) (int, []byte, error) {
	store := logstore.New(logstore.Options{})
	for _, f := range files {
		src, path, ok := strings.Cut(f, "=")
		if !ok || src == "" || path == "" {
			return 0, nil, fmt.Errorf("--file %q is not SOURCE=PATH", f)
		}
		if err := loadNDJSON(store, src, path); err != nil {
			return 0, nil, err
		}
	}
	eps, err := loadEndpoints(dir, sandbox)
	if err != nil {
		return 0, nil, err
	}
	return inProcessGet(store, eps, path)
}

func loadNDJSON(store *logstore.Store, source, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var batch [][]byte
	line := 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		batch = append(batch, []byte(b))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, rejects := store.Append(source, batch)
	if len(rejects) > 0 {
		return fmt.Errorf("%s: %s", path, rejects[0])
	}
	return nil
}

// errorMessage is the message of an error body (CONTRACT.md §2), with the
// parameter or position it names; else the status and the body as text.
func errorMessage(status int, body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
			Errors  []struct {
				Location string `json:"location"`
			} `json:"errors"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Message == "" {
		return fmt.Sprintf("HTTP %d: %s", status, strings.TrimSpace(string(body)))
	}
	msg := e.Error.Message
	if len(e.Error.Errors) > 0 && e.Error.Errors[0].Location != "" && !strings.Contains(msg, e.Error.Errors[0].Location) {
		msg += " (" + e.Error.Errors[0].Location + ")"
	}
	return msg
}

// timeColumn says whether a column holds TIMESTAMPs: the API sends them as
// integer microseconds, without types, so a column is taken for one when its
// name says time (timestamp, *_timestamp, *_at, *time) and every value is
// an integer of 16 digits (2001 to 2286).
func timeColumn(name string, vals []string) bool {
	n := strings.ToLower(name)
	if !(strings.HasSuffix(n, "timestamp") || strings.HasSuffix(n, "_at") || strings.HasSuffix(n, "time")) {
		return false
	}
	for _, v := range vals {
		if _, err := strconv.ParseInt(v, 10, 64); err != nil || len(v) != 16 {
			return false
		}
	}
	return len(vals) > 0
}

// printTable renders {"result": [...]} as aligned columns; TIMESTAMP
// columns as RFC 3339 UTC unless raw.
func printTable(w io.Writer, body []byte, raw bool) int {
	var out struct {
		Result []json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		fmt.Fprintln(w, string(body))
		return 1
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	var cols []string
	var rows [][]string
	for i, r := range out.Result {
		keys, vals := orderedObject(r)
		if i == 0 {
			cols = keys
		}
		rows = append(rows, vals)
	}
	if !raw {
		for c, name := range cols {
			var col []string
			for _, r := range rows {
				if c < len(r) {
					col = append(col, r[c])
				}
			}
			if !timeColumn(name, col) {
				continue
			}
			for _, r := range rows {
				us, _ := strconv.ParseInt(r[c], 10, 64)
				r[c] = time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z07:00")
			}
		}
	}
	if len(cols) > 0 {
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	_ = tw.Flush()
	if len(out.Result) == 1 {
		fmt.Fprintln(w, "(1 row)")
	} else {
		fmt.Fprintf(w, "(%d rows)\n", len(out.Result))
	}
	return 0
}

// orderedObject returns an object's keys in document order and its values as
// compact JSON text (strings unquoted).
func orderedObject(raw json.RawMessage) ([]string, []string) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var keys, vals []string
	if _, err := dec.Token(); err != nil {
		return nil, nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		keys = append(keys, fmt.Sprint(k))
		s := string(v)
		var str string
		if json.Unmarshal(v, &str) == nil {
			s = str
		}
		if len(s) > 80 {
			s = s[:77] + "..."
		}
		vals = append(vals, s)
	}
	return keys, vals
}

func healthcheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("healthcheck", stderr)
	base := fs.String("url", "", "server base URL (default: from --addr)")
	addr := fs.String("addr", "", "the server's listen address, as given to serve (env LOGQ_ADDR; default :4000)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *base == "" {
		*base = healthURL(*addr, os.Getenv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(*base, "/")+"/health", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "unhealthy:", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		fmt.Fprintln(stderr, "unhealthy: status", resp.StatusCode)
		return 1
	}
	fmt.Fprintln(stdout, "healthy")
	return 0
}

// healthURL turns a listen address (--addr, else LOGQ_ADDR, else :4000)
// into the URL to probe: an empty or wildcard host is this machine.
func healthURL(addr string, env func(string) string) string {
	if addr == "" {
		addr = env("LOGQ_ADDR")
	}
	if addr == "" {
		addr = ":4000"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
