package api

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"logq/event"
	"logq/ingest"
	"logq/storage"
)

// handleIngest stores the events of a body of the given form. Good events
// are stored and bad ones listed in a 406, the same way in every form; only
// a body that is not in the form at all is a 400.
func (s *Server) handleIngest(w http.ResponseWriter, r *http.Request, form ingest.Form) {
	rec := recorderOf(r)
	rec.endpoint = "ingest"
	body, aerr := readBody(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	batch, err := ingest.Decode(form, body, ingest.Options{CloudEventAttrs: cloudEventAttrs(r)})
	var be *ingest.BodyError
	if errors.As(err, &be) {
		// Say first that no source was named, when none was.
		if _, aerr := s.sourceOf(r, ""); aerr != nil && aerr.Code == 400 {
			writeError(w, aerr)
			return
		}
		writeError(w, errorf(400, "invalidBody", "", "%v", err))
		return
	} else if err != nil {
		writeError(w, errorf(500, "internalError", "", "internal error"))
		return
	}
	source, aerr := s.sourceOf(r, batch.Source)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	_, refused, ok := s.storeEvents(w, r, source, string(form), *batch, len(body))
	if !ok {
		return
	}
	if len(refused) > 0 {
		msgs := make([]string, len(refused))
		for i, rj := range refused {
			msgs[i] = rj.String()
		}
		writeJSON(w, http.StatusNotAcceptable, map[string]any{"message": msgs})
		return
	}
	writeJSON(w, 200, map[string]string{"message": "Logged!"})
}

// cloudEventAttrs collects CloudEvent attributes sent as ce-* headers.
func cloudEventAttrs(r *http.Request) map[string]string {
	var out map[string]string
	for k, vs := range r.Header {
		if name, ok := strings.CutPrefix(strings.ToLower(k), "ce-"); ok && len(vs) > 0 {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = vs[0]
		}
	}
	return out
}

// MaxSourceName bounds a source name, in bytes.
const MaxSourceName = 200

// storeEvents stores a decoded body's events and accounts for them (metrics
// and one log line), for every ingest form. refused holds the body's own
// refusals and the store's, by index in the body. When ok is false the
// request has been answered: 429 with Retry-After at the memory limit (the
// last resort of --memory-limit), 503 with Retry-After when the events could
// not be made durable. Neither acknowledges anything; shippers retry both.
func (s *Server) storeEvents(w http.ResponseWriter, r *http.Request, source, form string, batch ingest.Batch, bodyLen int) (accepted int, refused []event.Reject, ok bool) {
	if s.overloaded != nil && s.overloaded() {
		w.Header().Set("Retry-After", "2")
		writeError(w, errorf(429, "memoryLimit", "", "logq is at its memory limit; retry shortly"))
		return 0, nil, false
	}
	accepted, rejects, err := s.store.Ingest(source, batch.Events)
	if errors.Is(err, storage.ErrTooManySources) {
		// Retrying will not help: the source must be one the server has, or
		// the limit raised. (The message names no server path.)
		s.log.Warn("ingest: source refused", "source", source, "err", err)
		writeError(w, errorf(400, "tooManySources", "source_name", "source %q cannot be made: %v; send to an existing source, or raise --max-sources (LOGQ_MAX_SOURCES)", clip(source, 60), err))
		return 0, nil, false
	}
	if err != nil {
		// Nothing of the request is acknowledged. The local store keeps a
		// request whole or not at all, so a shipper's retry stores it once;
		// over ClickHouse a retry can store twice what a shard took before
		// the failure (docs/clickhouse.md). What went wrong
		// (with the files it names) goes to the log, not to the client.
		s.log.Error("ingest: events could not be made durable", "source", source, "events", len(batch.Events), "err", err)
		w.Header().Set("Retry-After", "5")
		writeError(w, errorf(503, "storageUnavailable", "", "the events could not be written durably; nothing from this request is acknowledged, retry later"))
		return 0, nil, false
	}
	refused = batch.Rejects
	tooOld := 0
	for _, rj := range rejects {
		if rj.TooOld {
			tooOld++
		}
		rj.Index = batch.Index[rj.Index] // the store numbers the events it was given
		refused = append(refused, rj)
	}
	sort.SliceStable(refused, func(i, j int) bool { return refused[i].Index < refused[j].Index })
	s.metrics.ingest(source, accepted, len(refused), tooOld, bodyLen)
	attrs := []any{"source", source, "accepted", accepted, "refused", len(refused), "client", r.RemoteAddr, "form", form}
	if len(refused) > 0 {
		attrs = append(attrs, "first_refusal", refused[0].String())
	}
	s.log.Info("ingest", attrs...)
	return accepted, refused, true
}

// sourceOf picks the source as Logflare's fetch_resource plug does:
// ?source_name= (or its alias ?collection_name=), else ?source= (or
// ?collection=), X-Source (or X-Collection); logq also reads an
// X-Source-Name header, and the body's "source" (fromBody) last. A
// name is checked (printable, at most MaxSourceName bytes) and created on
// first use; ?source= and the rest take a UUID (400 otherwise), which
// must name a source that exists (by its name-based UUID,
// or a source named by that UUID), else 404: creating a source that no
// endpoint reads would lose the events silently.
func (s *Server) sourceOf(r *http.Request, fromBody string) (string, *apiError) {
	q := r.URL.Query()
	for _, p := range []string{"source_name", "collection_name"} {
		if name := q.Get(p); name != "" {
			return name, checkSourceName(name, p)
		}
	}
	if name := r.Header.Get("X-Source-Name"); name != "" {
		return name, checkSourceName(name, "X-Source-Name")
	}
	var id, from string
	for _, c := range [][2]string{{"source", q.Get("source")}, {"collection", q.Get("collection")},
		{"X-Source", r.Header.Get("X-Source")}, {"X-Collection", r.Header.Get("X-Collection")}, {"source", fromBody}} {
		if c[1] != "" {
			from, id = c[0], c[1]
			break
		}
	}
	if id == "" {
		return "", errorf(400, "missingParameter", "source_name", "say which source the events belong to: ?source_name=<name>, ?source=<uuid> or an X-Source header")
	}
	if !isUUID(id) {
		// A mistyped UUID must not quietly become a new source name.
		return "", errorf(400, "invalidParameter", from, "%s takes a source UUID (as ?source=, ?collection=, X-Source, X-Collection and the body's \"source\" do); got %q: send a source name as ?source_name=<name>", from, clip(id, 60))
	}
	id = strings.ToLower(id)
	for _, name := range s.store.Names() {
		if storage.SourceUUID(name) == id || name == id {
			return name, nil
		}
	}
	return "", errorf(404, "sourceNotFound", "source", "no source has UUID %s; send ?source_name=<name> to create a source by name", id)
}

func checkSourceName(name, param string) *apiError {
	if len(name) > MaxSourceName {
		return errorf(400, "invalidParameter", param, "a source name is at most %d bytes; got %d", MaxSourceName, len(name))
	}
	if !utf8.ValidString(name) {
		return errorf(400, "invalidParameter", param, "a source name must be UTF-8 text")
	}
	for _, c := range name {
		if !unicode.IsPrint(c) {
			return errorf(400, "invalidParameter", param, "a source name must be printable; %q is not", c)
		}
	}
	if strings.TrimSpace(name) != name {
		return errorf(400, "invalidParameter", param, "a source name must not begin or end with a space; got %q", name)
	}
	return nil
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}

var zstdPool = sync.Pool{New: func() any {
	d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(4*MaxBody))
	return d
}}

// readBody reads the body, decompressing gzip or zstd, refusing more than
// MaxBody bytes either way (so a small bomb cannot expand past the limit).
func readBody(r *http.Request) ([]byte, *apiError) {
	var rd io.Reader = http.MaxBytesReader(nil, r.Body, MaxBody)
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		gz, err := gzip.NewReader(rd)
		if err != nil {
			return nil, bodyError(err)
		}
		defer gz.Close()
		rd = gz
	case "zstd":
		d := zstdPool.Get().(*zstd.Decoder)
		defer zstdPool.Put(d)
		if err := d.Reset(rd); err != nil {
			return nil, bodyError(err)
		}
		rd = d
	default:
		return nil, errorf(400, "invalidBody", "", "Content-Encoding %q is not supported (use gzip or zstd)", enc)
	}
	body, err := readAll(rd, r.ContentLength)
	if err != nil {
		return nil, bodyError(err)
	}
	if len(body) > MaxBody {
		return nil, errorf(413, "payloadTooLarge", "", "the request body is larger than %d bytes", MaxBody)
	}
	return body, nil
}

// readAll reads at most MaxBody+1 bytes of rd into one buffer sized by
// hint (the request's Content-Length), where io.ReadAll would grow its
// buffer from 512 bytes, copying and clearing a shipper's ~1 MB batch ~12
// times: that was ~15% of an ingest's CPU. The hint only sizes the buffer
// (a compressed body's is below its size; a wrong one costs a growth).
func readAll(rd io.Reader, hint int64) ([]byte, error) {
	var buf bytes.Buffer
	if hint > 0 && hint <= MaxBody {
		buf.Grow(int(hint) + bytes.MinRead) // ReadFrom's last read, of EOF, then fits
	}
	_, err := buf.ReadFrom(io.LimitReader(rd, MaxBody+1))
	return buf.Bytes(), err
}

func bodyError(err error) *apiError {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return errorf(413, "payloadTooLarge", "", "the request body is larger than %d bytes", MaxBody)
	}
	return errorf(400, "invalidBody", "", "could not read the request body: %v", err)
}
