package api

import (
	"compress/gzip"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"logq/logstore"
)

func (s *Server) handleIngest(w http.ResponseWriter, r *http.Request) {
	rec := recorderOf(r)
	rec.endpoint = "ingest"
	source, aerr := s.sourceOf(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	body, aerr := readBody(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	events, err := logstore.SplitEvents(body)
	if err != nil {
		writeError(w, errorf(400, "invalidBody", "", "the body must be JSON: an array of events, {\"batch\": [...]}, one event, or one event per line: %v", err))
		return
	}
	accepted, rejects := s.store.Append(source, events)
	s.metrics.ingest(source, accepted, len(rejects), len(body))
	if len(rejects) > 0 {
		msgs := make([]string, len(rejects))
		for i, rj := range rejects {
			msgs[i] = rj.String()
		}
		writeJSON(w, http.StatusNotAcceptable, map[string]any{"message": msgs})
		return
	}
	writeJSON(w, 200, map[string]string{"message": "Logged!"})
}

// sourceOf picks the source: ?source_name=, else ?source= or X-Source (a UUID).
func (s *Server) sourceOf(r *http.Request) (string, *apiError) {
	q := r.URL.Query()
	if name := q.Get("source_name"); name != "" {
		return name, nil
	}
	id := q.Get("source")
	if id == "" {
		id = r.Header.Get("X-Source")
	}
	if id == "" {
		return "", errorf(400, "missingParameter", "source_name", "say which source the events belong to: ?source_name=<name>, ?source=<uuid> or an X-Source header")
	}
	id = strings.ToLower(id)
	for _, name := range s.store.Names() {
		if SourceUUID(name) == id {
			return name, nil
		}
	}
	return id, nil
}

// SourceUUID is the stable UUID (version 5 in the URL namespace of
// "logq:source:<name>") by which a named source can also be addressed.
func SourceUUID(name string) string {
	ns := [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte("logq:source:" + name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
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
	body, err := io.ReadAll(io.LimitReader(rd, MaxBody+1))
	if err != nil {
		return nil, bodyError(err)
	}
	if len(body) > MaxBody {
		return nil, errorf(413, "payloadTooLarge", "", "the request body is larger than %d bytes", MaxBody)
	}
	return body, nil
}

func bodyError(err error) *apiError {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return errorf(413, "payloadTooLarge", "", "the request body is larger than %d bytes", MaxBody)
	}
	return errorf(400, "invalidBody", "", "could not read the request body: %v", err)
}
