package api

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"

	"logq/event"
	"logq/lql"
	"logq/storage"
)

// The live tail: GET /api/sources/{source}/tail streams a source's events
// as Server-Sent Events as they are acknowledged, read from the store's feed
// (the WAL, or a ring in memory), so a tail never slows or holds up ingest.
// Each event is its body (what drains send: event.AppendBody), as
//
//	id: <cursor>
//	event: log
//	data: {"id":"…","timestamp":…,"event_message":"…",…}
//
// where the cursor (seq.offset.index) resumes the tail just after that
// event (from=<cursor>, or the Last-Event-ID header); from=start begins
// with the oldest event the feed keeps, and the default is now. lql= keeps
// the events an LQL filter matches (package lql; routing semantics). The
// first message is "event: hello" with the source and its cursor; ": ping"
// comments keep idle connections open. A reader that falls more than
// MaxTailBacklog events behind is sent "event: dropped" with the reason
// and closed; a memory feed's events lost to a slow reader are announced as
// "event: lost" with their count. At most MaxTails tails run at once (429
// beyond).

// MaxTails bounds the tails open at once.
const MaxTails = 64

// MaxTailBacklog is how far behind the feed's head a tail may fall.
const MaxTailBacklog = 20000

// tailPing is how often an idle tail sends a comment.
const tailPing = 15 * time.Second

var openTails atomic.Int64

func (s *Server) handleTail(w http.ResponseWriter, r *http.Request) {
	feed, ok := s.store.(storage.Feed)
	if !ok {
		writeError(w, errorf(501, "unimplemented", "", "this storage has no feed to tail"))
		return
	}
	key := mux.Vars(r)["source"]
	source := key
	if v, ok := s.sourceNamed(key); ok {
		source = v.Name
	} else if isUUID(key) {
		writeError(w, errorf(404, "notFound", "source", "no source has token %s", key))
		return
	}
	if aerr := checkSourceName(source, "source"); aerr != nil {
		writeError(w, aerr)
		return
	}
	q := r.URL.Query()
	var filter *lql.Query
	if f := q.Get("lql"); strings.TrimSpace(f) != "" {
		var err error
		if filter, err = lql.Parse(f); err != nil {
			loc := ""
			if le, ok := err.(*lql.Error); ok {
				loc = fmt.Sprintf("%d:%d", le.Line, le.Col)
			}
			writeError(w, errorf(400, "invalidQuery", loc, "lql: %v", err))
			return
		}
	}
	from := q.Get("from")
	if from == "" {
		from = r.Header.Get("Last-Event-ID")
	}
	var (
		pos  storage.Pos
		skip = -1 // events of the first chunk already sent (its index)
	)
	switch from {
	case "", "now":
		pos = feed.FeedHead(source)
	case "start":
	default:
		p, i, ok := parseCursor(from)
		if !ok {
			writeError(w, errorf(400, "invalidParameter", "from", "from takes now, start or an event's cursor (seq.offset.index); got %q", clip(from, 60)))
			return
		}
		pos, skip = p, i
	}
	if openTails.Add(1) > MaxTails {
		openTails.Add(-1)
		writeError(w, errorf(429, "rateLimitExceeded", "", "%d tails are open already; close one", MaxTails))
		return
	}
	defer openTails.Add(-1)
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a tail outlives the server's write timeout
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(200)
	var buf bytes.Buffer
	send := func() bool {
		if buf.Len() == 0 {
			return true
		}
		_ = rc.SetWriteDeadline(time.Now().Add(30 * time.Second)) // a reader that takes nothing for this long is gone
		_, err := w.Write(buf.Bytes())
		if err == nil {
			err = rc.Flush()
		}
		_ = rc.SetWriteDeadline(time.Time{})
		buf.Reset()
		return err == nil
	}
	fmt.Fprintf(&buf, "event: hello\ndata: {\"source\":%q,\"cursor\":%q}\n\n", source, cursor(pos, -1))
	if !send() {
		return
	}
	ctx := r.Context()
	lastPing, lastCheck := time.Now(), time.Now()
	var body []byte
	for ctx.Err() == nil {
		changed := feed.FeedChanged()
		recs, next, lost, err := feed.ReadFeed(source, pos, 256)
		if err != nil {
			fmt.Fprintf(&buf, "event: error\ndata: %q\n\n", err.Error())
			send()
			return
		}
		if lost > 0 {
			fmt.Fprintf(&buf, "event: lost\ndata: {\"events\":%d}\n\n", lost)
		}
		for _, rec := range recs {
			for i, ev := range rec.Events {
				if skip >= 0 {
					if i <= skip {
						continue
					}
				}
				var berr error
				body, _, _, berr = event.AppendBody(body[:0], ev, rec.Origin(i))
				if berr != nil || filter != nil && !filter.Match(body) {
					continue
				}
				fmt.Fprintf(&buf, "id: %s\nevent: log\ndata: ", cursor(pos, i))
				buf.Write(body)
				buf.WriteString("\n\n")
			}
			skip = -1
			pos = rec.Next
		}
		if len(recs) == 0 {
			pos = next
		}
		if !send() {
			return
		}
		if time.Since(lastCheck) > time.Second {
			lastCheck = time.Now()
			if n, err := feed.FeedBacklog(source, pos); err == nil && n > MaxTailBacklog {
				fmt.Fprintf(&buf, "event: dropped\ndata: {\"reason\":%q}\n\n",
					fmt.Sprintf("this reader fell %d events behind the source (at most %d are allowed); reconnect with from=now", n, MaxTailBacklog))
				send()
				return
			}
		}
		if len(recs) > 0 {
			continue
		}
		if time.Since(lastPing) > tailPing {
			lastPing = time.Now()
			buf.WriteString(": ping\n\n")
			if !send() {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-changed:
		case <-time.After(tailPing):
		}
	}
}

// cursor names the event at index i of the chunk at p (-1: before it).
func cursor(p storage.Pos, i int) string {
	return strconv.FormatUint(p.Seq, 10) + "." + strconv.FormatInt(p.Off, 10) + "." + strconv.Itoa(i)
}

func parseCursor(s string) (storage.Pos, int, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return storage.Pos{}, 0, false
	}
	seq, err1 := strconv.ParseUint(parts[0], 10, 64)
	off, err2 := strconv.ParseInt(parts[1], 10, 64)
	i, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || off < 0 || i < -1 {
		return storage.Pos{}, 0, false
	}
	return storage.Pos{Seq: seq, Off: off}, i, true
}
