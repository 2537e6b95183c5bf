package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// tail follows a source on a server (GET /api/sources/SOURCE/tail, Server-
// Sent Events) and prints each event as it is acknowledged: its time and
// message, or with --json the event itself (one JSON object a line). It
// ends on Ctrl-C, or when the server drops a reader that fell behind.
func tail(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("tail", stderr)
	base := fs.String("url", "", "server base URL, e.g. http://127.0.0.1:4000 (env LOGQ_URL)")
	key := fs.String("api-key", "", "API key (env LOGQ_API_KEY)")
	filter := fs.String("lql", "", "only events this LQL filter matches (e.g. error, m.level:error, ~\"timeout|refused\")")
	from := fs.String("from", "now", "now, start (the oldest event kept) or an event's cursor")
	asJSON := fs.Bool("json", false, "print each event as a JSON object (NDJSON)")
	positional, help, err := parseInterleaved(fs, args)
	if help {
		return 0
	}
	if err != nil {
		return 2
	}
	if len(positional) != 1 {
		fmt.Fprintln(stderr, "logq tail: name one source, e.g. logq tail cloudflare.logs.prod --url http://127.0.0.1:4000 --api-key KEY")
		return 2
	}
	if *base == "" {
		*base = os.Getenv("LOGQ_URL")
	}
	if *key == "" {
		*key = os.Getenv("LOGQ_API_KEY")
	}
	if *base == "" {
		fmt.Fprintln(stderr, "logq tail: give the server's --url (or LOGQ_URL)")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	q := url.Values{"from": {*from}}
	if *filter != "" {
		q.Set("lql", *filter)
	}
	u := strings.TrimSuffix(*base, "/") + "/api/sources/" + url.PathEscape(positional[0]) + "/tail?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		fmt.Fprintln(stderr, "logq tail:", err)
		return 2
	}
	req.Header.Set("Accept", "text/event-stream")
	if *key != "" {
		req.Header.Set("X-API-KEY", *key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "logq tail:", err)
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		fmt.Fprintln(stderr, "logq tail:", errorMessage(resp.StatusCode, body))
		return 1
	}
	return readTail(ctx, resp.Body, stdout, stderr, *asJSON)
}

// readTail prints the events of an SSE stream until it ends.
func readTail(ctx context.Context, r io.Reader, stdout, stderr io.Writer, asJSON bool) int {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var ev, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if code, done := tailMessage(ev, data, stdout, stderr, asJSON); done {
				return code
			}
			ev, data = "", ""
		case strings.HasPrefix(line, "event: "):
			ev = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			data += line[len("data: "):]
		}
	}
	if ctx.Err() != nil {
		return 0 // interrupted
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(stderr, "logq tail:", err)
	}
	return 1
}

// tailMessage prints one message; done says the stream is over.
func tailMessage(ev, data string, stdout, stderr io.Writer, asJSON bool) (int, bool) {
	switch ev {
	case "log":
		if asJSON {
			fmt.Fprintln(stdout, data)
			return 0, false
		}
		var e struct {
			Timestamp    int64  `json:"timestamp"`
			EventMessage string `json:"event_message"`
		}
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			fmt.Fprintln(stdout, data)
			return 0, false
		}
		fmt.Fprintf(stdout, "%s  %s\n", time.UnixMicro(e.Timestamp).UTC().Format("2006-01-02T15:04:05.000000Z"), e.EventMessage)
	case "lost":
		fmt.Fprintln(stderr, "logq tail: events were lost before this reader saw them:", data)
	case "dropped", "error":
		fmt.Fprintln(stderr, "logq tail: the server ended the tail:", data)
		return 1, true
	}
	return 0, false
}
