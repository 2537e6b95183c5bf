package api

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// compress encodes responses with zstd or gzip when the client accepts it
// (zstd preferred: faster at a similar ratio). Bodies under minCompress bytes
// are sent as they are: the framing would cost more than it saves. Every
// response says Vary: Accept-Encoding so caches keep the forms apart.
func compress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		enc := pickEncoding(r.Header.Get("Accept-Encoding"))
		if enc == "" || r.Method == http.MethodHead || strings.HasSuffix(r.URL.Path, "/tail") {
			// A tail streams: each event goes out as it comes (tail.go).
			next.ServeHTTP(w, r)
			return
		}
		cw := &compressWriter{ResponseWriter: w, enc: enc}
		defer cw.close()
		next.ServeHTTP(cw, r)
	})
}

const minCompress = 1024

// pickEncoding returns "zstd", "gzip" or "" from an Accept-Encoding header,
// honouring q=0 as a refusal.
func pickEncoding(h string) string {
	ok := map[string]bool{}
	for _, part := range strings.Split(h, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		q := 1.0
		if v, found := strings.CutPrefix(strings.TrimSpace(params), "q="); found {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		ok[name] = q > 0
	}
	switch {
	case ok["zstd"]:
		return "zstd"
	case ok["gzip"], ok["x-gzip"]:
		return "gzip"
	}
	return ""
}

// The fastest level of each: a response goes to a client beside logq or
// on its network, where a few more bytes cost less than the time to save
// them. On logs.all's 214 KB body (BenchmarkCompressLogsAll): gzip 0.25
// ms at 12.2% of the size (Go's compress/gzip at its default level took
// 2.4 ms for 9.8%), zstd 0.27 ms at 9.4% (its default level: 0.5 ms, the
// same size).
var (
	gzipPool = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed); return w }}
	zencPool = sync.Pool{New: func() any {
		w, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest))
		return w
	}}
)

type flushCloser interface {
	Write([]byte) (int, error)
	Close() error
}

// compressWriter decides at the first write: handlers here write a whole
// body at once (writeJSON, a cached result), so the first write's size is the
// body's size.
type compressWriter struct {
	http.ResponseWriter
	enc     string
	status  int
	decided bool
	out     flushCloser
}

// Unwrap gives the writer under the compression (http.ResponseController
// and recorderIn use it).
func (c *compressWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (c *compressWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}

func (c *compressWriter) Write(b []byte) (int, error) {
	if !c.decided {
		c.decided = true
		if c.status == 0 {
			c.status = http.StatusOK
		}
		h := c.ResponseWriter.Header()
		if len(b) >= minCompress && h.Get("Content-Encoding") == "" && c.status != http.StatusNoContent {
			h.Set("Content-Encoding", c.enc)
			h.Del("Content-Length")
			switch c.enc {
			case "zstd":
				z := zencPool.Get().(*zstd.Encoder)
				z.Reset(c.ResponseWriter)
				c.out = z
			default:
				g := gzipPool.Get().(*gzip.Writer)
				g.Reset(c.ResponseWriter)
				c.out = g
			}
		}
		c.ResponseWriter.WriteHeader(c.status)
	}
	if c.out != nil {
		return c.out.Write(b)
	}
	return c.ResponseWriter.Write(b)
}

func (c *compressWriter) close() {
	if !c.decided {
		if c.status != 0 {
			c.ResponseWriter.WriteHeader(c.status)
		}
		return
	}
	if c.out == nil {
		return
	}
	_ = c.out.Close()
	switch o := c.out.(type) {
	case *zstd.Encoder:
		o.Reset(nil)
		zencPool.Put(o)
	case *gzip.Writer:
		o.Reset(nil)
		gzipPool.Put(o)
	}
}
