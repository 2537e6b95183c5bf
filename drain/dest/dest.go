package dest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
)

// Event is one event as a drain sends it.
type Event struct {
	Body      []byte // the event as one JSON object: "id", "timestamp" (µs since the epoch, an integer), "event_message" (when it has one), and its other fields; keys are already SQL-safe
	Timestamp int64  // µs since the epoch, as in Body
	Message   string // its event_message ("" when none)
}

// Batch is at most MaxBatch events of one source, in arrival order.
type Batch struct {
	Source string // the source's name; it is also the Loki/Datadog/OTLP "service" (logq has no service_name)
	Events []Event
}

// MaxBatch is the most events a Batch holds (Logflare's batch_size): one
// request carries at most this many.
const MaxBatch = 250

// Timeouts of the default client, and its keep-alive period.
const (
	dialTimeout    = 10 * time.Second
	requestTimeout = 30 * time.Second
	keepAlive      = 30 * time.Second
)

// Options are the delivery options shared by every destination.
type Options struct {
	// Client sends the requests. nil: a client of the destination's own,
	// with timeouts of 10 s to connect (and for the TLS handshake) and 30 s
	// per request, HTTP/2 as the config allows, no proxy. A given client is
	// used as it is (its transport, timeouts and protocols), except that
	// redirects are never followed and, under DenyPrivate, its transport
	// (which must then be an *http.Transport, or nil) is copied with a
	// checked dialer and without a proxy.
	Client *http.Client
	// DenyPrivate refuses to connect to loopback, private, link-local and
	// other non-public addresses (checked on the address actually dialled,
	// so DNS cannot get around it).
	DenyPrivate bool
	// UserAgent is sent as User-Agent (a drain's own User-Agent header
	// wins); "" leaves Go's default.
	UserAgent string

	// For tests only.
	intakeURL string         // the Datadog intake URL instead of the region's
	rootCAs   *x509.CertPool // roots the default client trusts instead of the system's
}

// Destination sends batches to one drain's endpoint. Safe for concurrent
// use.
type Destination interface {
	// Send delivers one batch with one HTTP request: nil on a 2xx answer,
	// else a *SendError.
	Send(ctx context.Context, b Batch) error
	// Test sends one real request (an empty batch, as Logflare's
	// test_connection does) and reports whether a 2xx came back, and why
	// not ("http_client_error" for 4xx, "http_server_error" for 5xx,
	// "http_unknown_error" for another status, "unknown_error: <text>" for
	// a transport error, "refused: private address" under DenyPrivate).
	Test(ctx context.Context) (connected bool, reason string)
}

// SendError is a failed delivery.
type SendError struct {
	Status     int           // the HTTP status, 0 for a transport error
	Retry      bool          // retrying may succeed: transport errors, 408, 425, 429, 5xx; not other 4xx (nor a DenyPrivate refusal)
	RetryAfter time.Duration // from a Retry-After header, 0 when none
	Msg        string        // one line for logs and /metrics: status and the first 200 bytes of the body, or the transport error

	cause error // the transport error
}

// Error returns Msg.
func (e *SendError) Error() string { return e.Msg }

type kind uint8

const (
	webhook kind = iota
	datadog
	loki
	otlp
)

// destination is a Destination; immutable once made.
type destination struct {
	kind    kind
	url     string
	host    string      // a drain's own Host header, "" when none
	header  http.Header // every header of a request
	gzip    bool
	flatten bool // otlp flatten_to_attributes
	client  *http.Client
}

// New makes a destination from a validated config (it is validated again:
// a config Validate refuses is an error).
func New(typ string, config map[string]any, opts Options) (Destination, error) {
	cfg, errs := Validate(typ, config)
	if errs != nil {
		var parts []string
		for _, k := range sortedKeys(errs) {
			parts = append(parts, k+": "+strings.Join(errs[k], ", "))
		}
		return nil, fmt.Errorf("dest: invalid %s config: %s", typ, strings.Join(parts, "; "))
	}
	d := &destination{header: http.Header{}}
	if opts.UserAgent != "" {
		d.header.Set("User-Agent", opts.UserAgent)
	}
	http2 := true
	contentType := "application/json"
	switch typ {
	case "webhook":
		d.kind, d.url, d.gzip = webhook, cfg["url"].(string), cfg["gzip"].(bool)
		http2 = cfg["http"] == "http2"
		d.userHeaders(cfg["headers"])
	case "datadog":
		d.kind, d.url, d.gzip = datadog, datadogIntake[cfg["region"].(string)], true
		if opts.intakeURL != "" {
			d.url = opts.intakeURL
		}
		d.header.Set("dd-api-key", cfg["api_key"].(string))
	case "loki":
		d.kind, d.url, d.gzip = loki, cfg["url"].(string), true
		http2 = false // Logflare's "http1"
		d.userHeaders(cfg["headers"])
		if u, ok := cfg["username"].(string); ok {
			p, _ := cfg["password"].(string)
			d.header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u+":"+p)))
		}
	case "otlp":
		d.kind, d.url, d.gzip = otlp, cfg["endpoint"].(string), cfg["gzip"].(bool)
		d.flatten, _ = cfg["flatten_to_attributes"].(bool)
		d.userHeaders(cfg["headers"])
		contentType = "application/x-protobuf"
	}
	d.header.Set("Content-Type", contentType)
	if d.gzip {
		d.header.Set("Content-Encoding", "gzip")
	}
	c, err := newClient(opts, http2)
	if err != nil {
		return nil, err
	}
	d.client = c
	return d, nil
}

// userHeaders adds a drain's own headers, but never Content-Type or
// Content-Encoding (the body's own are sent) nor Content-Length; Host sets
// the request's host.
func (d *destination) userHeaders(x any) {
	m, _ := stringMap(x)
	for _, k := range sortedKeys(m) {
		switch strings.ToLower(k) {
		case "content-type", "content-encoding", "content-length", "transfer-encoding":
		case "host":
			d.host = m[k]
		default:
			d.header.Set(k, m[k])
		}
	}
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// newClient returns the client of a destination (see Options.Client).
func newClient(opts Options, http2 bool) (*http.Client, error) {
	if opts.Client != nil {
		c := *opts.Client
		c.CheckRedirect = noRedirect
		if opts.DenyPrivate {
			rt := c.Transport
			if rt == nil {
				rt = http.DefaultTransport
			}
			t, ok := rt.(*http.Transport)
			if !ok {
				return nil, errors.New("dest: DenyPrivate needs Options.Client's transport to be an *http.Transport")
			}
			c.Transport = guardTransport(t)
		}
		return &c, nil
	}
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: keepAlive}
	if opts.DenyPrivate {
		dialer.ControlContext = denyControl
	}
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetHTTP2(http2) // over TLS only: cleartext stays HTTP/1.1
	t := &http.Transport{
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: opts.rootCAs},
		TLSHandshakeTimeout:   dialTimeout,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		Protocols:             &p,
	}
	return &http.Client{Transport: t, Timeout: requestTimeout, CheckRedirect: noRedirect}, nil
}

// Send delivers one batch with one HTTP request.
func (d *destination) Send(ctx context.Context, b Batch) error {
	raw := getBuf()
	var err error
	switch d.kind {
	case webhook:
		raw.b = appendWebhook(raw.b[:0], b)
	case datadog:
		raw.b = appendDatadog(raw.b[:0], b)
	case loki:
		raw.b = appendLoki(raw.b[:0], b)
	case otlp:
		raw.b, err = appendOTLP(raw.b[:0], b, d.flatten, time.Now())
	}
	if err != nil {
		putBuf(raw)
		return &SendError{Msg: "encoding the batch: " + err.Error(), cause: err}
	}
	body := raw
	if d.gzip {
		body = getBuf()
		zw := gzipPool.Get().(*gzip.Writer)
		zw.Reset(body)
		_, _ = zw.Write(raw.b) // writes to a buffer do not fail
		_ = zw.Close()
		gzipPool.Put(zw)
		putBuf(raw)
	}
	return d.post(ctx, body)
}

// post sends a body (a pooled buffer it releases) and classifies the
// answer.
func (d *destination) post(ctx context.Context, body *buffer) error {
	sb := &sharedBody{buf: body}
	sb.refs.Store(2) // post's own, and the first reader's
	defer sb.release()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url, nil)
	if err != nil {
		sb.release()
		return &SendError{Msg: err.Error(), cause: err}
	}
	req.Header = d.header.Clone()
	if d.host != "" {
		req.Host = d.host
	}
	req.Body = &bodyReader{s: sb}
	req.GetBody = func() (io.ReadCloser, error) {
		sb.refs.Add(1) // only called inside Do, while post holds its reference
		return &bodyReader{s: sb}, nil
	}
	req.ContentLength = int64(len(body.b))
	resp, err := d.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return &SendError{Retry: !errors.Is(err, errPrivate), Msg: oneLine(err.Error()), cause: err}
	}
	defer resp.Body.Close()
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil
	}
	var head [200]byte
	n, _ := io.ReadFull(resp.Body, head[:])
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	msg := strconv.Itoa(code)
	if t := http.StatusText(code); t != "" {
		msg += " " + t
	}
	if text := oneLine(string(head[:n])); text != "" {
		msg += ": " + text
	}
	return &SendError{
		Status:     code,
		Retry:      code == 408 || code == 425 || code == 429 || code >= 500 && code <= 599,
		RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now()),
		Msg:        msg,
	}
}

// Test sends an empty batch and reports whether a 2xx came back.
func (d *destination) Test(ctx context.Context) (bool, string) {
	err := d.Send(ctx, Batch{})
	if err == nil {
		return true, ""
	}
	var se *SendError
	if !errors.As(err, &se) {
		return false, "unknown_error: " + err.Error()
	}
	switch {
	case se.Status == 0 && errors.Is(se.cause, errPrivate):
		return false, errPrivate.Error()
	case se.Status == 0:
		return false, "unknown_error: " + se.Msg
	case se.Status >= 400 && se.Status <= 499:
		return false, "http_client_error"
	case se.Status >= 500 && se.Status <= 599:
		return false, "http_server_error"
	}
	return false, "http_unknown_error"
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		if s > 1<<31 {
			s = 1 << 31
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// oneLine returns s as one line of valid UTF-8 (control characters become
// spaces), trimmed.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexFunc(s, isControl) >= 0 {
		s = strings.Map(func(r rune) rune {
			if isControl(r) {
				return ' '
			}
			return r
		}, s)
	}
	// a body cut at 200 bytes may end in the middle of a character
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return strings.TrimSpace(s)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// buffer is a pooled byte slice.
type buffer struct{ b []byte }

// Write appends p (the gzip writer's output).
func (b *buffer) Write(p []byte) (int, error) {
	b.b = append(b.b, p...)
	return len(p), nil
}

var (
	bufPool  = sync.Pool{New: func() any { return &buffer{b: make([]byte, 0, 64<<10)} }}
	gzipPool = sync.Pool{New: func() any {
		zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
		return zw
	}}
)

func getBuf() *buffer { return bufPool.Get().(*buffer) }

func putBuf(b *buffer) {
	if cap(b.b) > 16<<20 {
		return // an outsize batch: let it go
	}
	b.b = b.b[:0]
	bufPool.Put(b)
}

// sharedBody is a request body's buffer, returned to the pool when post
// and every reader the transport was given are done with it (a transport
// may still read and close a body after Do returns).
type sharedBody struct {
	buf  *buffer
	refs atomic.Int32
}

func (s *sharedBody) release() {
	if s.refs.Add(-1) == 0 {
		putBuf(s.buf)
	}
}

// bodyReader reads a sharedBody; once closed it reads nothing more.
type bodyReader struct {
	mu     sync.Mutex
	s      *sharedBody
	off    int
	closed bool
}

var errClosedBody = errors.New("dest: read of a closed request body")

func (r *bodyReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errClosedBody
	}
	b := r.s.buf.b
	if r.off >= len(b) {
		return 0, io.EOF
	}
	n := copy(p, b[r.off:])
	r.off += n
	return n, nil
}

func (r *bodyReader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		r.s.release()
	}
	return nil
}
