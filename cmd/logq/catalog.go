package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"logq/logstore"
)

// catalog runs `logq endpoints` and `logq sources`: GET /api/endpoints or
// /api/sources of a server (--url), or in-process (built-in endpoints plus
// --endpoints DIR; sources loaded from --file), printed as a table or JSON.
func catalog(what string, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(what, stderr)
	var files stringList
	asJSON := fs.Bool("json", false, "print the JSON response instead of a table")
	base := fs.String("url", "", "server base URL, e.g. http://127.0.0.1:4000 (env LOGQ_URL)")
	key := fs.String("api-key", "", "API key for --url (env LOGQ_API_KEY)")
	dir := fs.String("endpoints", "", "directory of extra endpoint YAML files, for in-process runs")
	fs.Var(&files, "file", "SOURCE=PATH.ndjson to load for an in-process run; repeatable")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "logq %s: takes no arguments, got %q\n", what, fs.Args())
		return 2
	}
	if *base == "" {
		*base = os.Getenv("LOGQ_URL")
	}
	if *key == "" {
		*key = os.Getenv("LOGQ_API_KEY")
	}
	path := "/api/" + what
	var (
		status int
		body   []byte
		err    error
	)
	if *base == "" && what == "drains" {
		fmt.Fprintln(stderr, "logq drains: give the server's --url (or LOGQ_URL) and an admin --api-key: drains run in a server")
		return 2
	}
	if *base != "" {
		status, body, err = remoteGet(*base, *key, path)
	} else {
		store := logstore.New(logstore.Options{})
		for _, f := range files {
			src, p, ok := strings.Cut(f, "=")
			if !ok || src == "" || p == "" {
				err = fmt.Errorf("--file %q is not SOURCE=PATH", f)
				break
			}
			if err = loadNDJSON(store, src, p); err != nil {
				break
			}
		}
		if err == nil {
			eps, lerr := loadEndpoints(*dir, false)
			if err = lerr; err == nil {
				status, body, err = inProcessGet(store, eps, path)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "logq %s: %v\n", what, err)
		return 1
	}
	if status != 200 {
		fmt.Fprintf(stderr, "logq %s: %s\n", what, errorMessage(status, body))
		return 1
	}
	if *asJSON {
		_, _ = stdout.Write(body)
		return 0
	}
	switch what {
	case "endpoints":
		return printEndpoints(stdout, body)
	case "drains":
		return printDrains(stdout, body)
	}
	return printSources(stdout, body)
}

// printDrains prints GET /api/drains: each drain's delivery figures, as
// /metrics reports them.
func printDrains(w io.Writer, body []byte) int {
	var drains []struct {
		Name, Type, Token          string
		LastError                  string `json:"last_error"`
		Sources                    int
		Delivered, Batches, Failed int64
		Retried, Refused, Lost     int64
		LagEvents                  int64   `json:"lag_events"`
		LagSeconds                 float64 `json:"lag_seconds"`
	}
	if err := json.Unmarshal(body, &drains); err != nil {
		fmt.Fprintln(w, string(body))
		return 1
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tSOURCES\tDELIVERED\tBATCHES\tFAILED\tRETRIED\tREFUSED\tLOST\tLAG EVENTS\tLAG SECONDS\tLAST ERROR")
	for _, d := range drains {
		last := d.LastError
		if last == "" {
			last = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%s\n", d.Name, d.Type, d.Sources, d.Delivered, d.Batches,
			d.Failed, d.Retried, d.Refused, d.Lost, d.LagEvents, d.LagSeconds, clipLine(last, 80))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "(%d drains)\n", len(drains))
	return 0
}

func clipLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func remoteGet(base, key, path string) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(base, "/")+path, nil)
	if err != nil {
		return 0, nil, err
	}
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

func printEndpoints(w io.Writer, body []byte) int {
	var out struct {
		Result []struct {
			ID, Name     string
			CacheSeconds int `json:"cache_seconds"`
			WarmSeconds  int `json:"warm_seconds"`
			Sandboxed    bool
			Params       []struct {
				Name     string
				Required bool
				OneOf    []string `json:"one_of"`
			}
		}
	}
	if err := json.Unmarshal(body, &out); err != nil {
		fmt.Fprintln(w, string(body))
		return 1
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tCACHE\tPARAMETERS")
	for _, e := range out.Result {
		var ps []string
		for _, p := range e.Params {
			s := p.Name
			if p.Required {
				s += "*"
			}
			if len(p.OneOf) > 0 {
				s += "=" + strings.Join(p.OneOf, "|")
			}
			ps = append(ps, s)
		}
		cache := "off"
		if e.CacheSeconds > 0 {
			cache = fmt.Sprintf("%ds, warm %ds", e.CacheSeconds, e.WarmSeconds)
		}
		if e.Sandboxed {
			ps = append(ps, "sql (sandboxed)")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, e.ID, cache, strings.Join(ps, " "))
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "(* required)")
	return 0
}

func printSources(w io.Writer, body []byte) int {
	// GET /api/sources answers a bare array, as Logflare's does.
	var out struct {
		Result []struct {
			Name, Token string
			ID          int64
			Events      int
			Bytes       int64
			FirstEvent  *string `json:"first_event"`
			LastEvent   *string `json:"last_event"`
		}
	}
	if err := json.Unmarshal(body, &out.Result); err != nil {
		fmt.Fprintln(w, string(body))
		return 1
	}
	str := func(p *string) string {
		if p == nil {
			return "-"
		}
		return *p
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tTOKEN\tEVENTS\tBYTES\tFIRST EVENT\tLAST EVENT")
	for _, s := range out.Result {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%s\t%s\n", s.Name, s.ID, s.Token, s.Events, s.Bytes, str(s.FirstEvent), str(s.LastEvent))
	}
	_ = tw.Flush()
	if len(out.Result) == 1 {
		fmt.Fprintln(w, "(1 source)")
	} else {
		fmt.Fprintf(w, "(%d sources)\n", len(out.Result))
	}
	return 0
}
