package clickhouse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// client talks to one ClickHouse server over its HTTP interface, with the
// standard library: statements in the POST body (data after them for
// inserts), settings as URL parameters, basic authentication, errors as a
// non-200 status whose body starts "Code: N." (every version since 18.16
// answers so).
type client struct {
	base     *url.URL
	user     string
	password string
	hc       *http.Client
}

func newClient(raw, user, password string) (*client, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http:// or https:// URL", raw)
	}
	u.Path, u.RawQuery = "/", ""
	return &client{base: u, user: user, password: password, hc: &http.Client{Transport: transport}}, nil
}

// transport keeps connections to the servers alive between queries.
var transport = &http.Transport{
	Proxy:               nil,
	MaxIdleConnsPerHost: 16,
	IdleConnTimeout:     60 * time.Second,
}

// Error is an error ClickHouse reported, with its code.
type Error struct {
	Code    int
	Message string // ClickHouse's own text
	Status  int    // the HTTP status
}

func (e *Error) Error() string { return fmt.Sprintf("clickhouse: code %d: %s", e.Code, e.Message) }

// ClickHouse error codes logq reads.
const (
	codeUnknownTable     = 60
	codeUnknownDatabase  = 81
	codeColumnExists     = 44 // 18.16's code for a column that exists
	codeDuplicateColumn  = 15 // current versions' (DUPLICATE_COLUMN)
	codeDecimalOverflow  = 407
	codeThrowIf          = 395 // FUNCTION_THROW_IF_VALUE_IS_NON_ZERO
	codeTableExists      = 57
	codeNoSuchColumn     = 16
	codeTimeout          = 159
	codeMemoryLimit      = 241
	codeAuthFailed       = 193
	codeUnknownUser      = 192
	codeReadonly         = 164
	codeTooManyParts     = 252
	codeAllConnectFailed = 279
	codeNetwork          = 210
	codeSocketTimeout    = 209
	codeTooManyQueries   = 202
	codeResultTooLarge   = 396
)

var codeRE = regexp.MustCompile(`^Code: (\d+)`)

// do sends sql (and, for an insert, body after it) and returns the answer's
// body for the caller to read and close.
func (c *client) do(ctx context.Context, sql string, body io.Reader, settings map[string]string) (io.ReadCloser, error) {
	q := url.Values{}
	for k, v := range settings {
		q.Set(k, v)
	}
	u := *c.base
	u.RawQuery = q.Encode()
	var rd io.Reader = strings.NewReader(sql)
	if body != nil {
		q.Set("query", sql)
		u.RawQuery = q.Encode()
		rd = body
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), rd)
	if err != nil {
		return nil, err
	}
	if c.user != "" || c.password != "" {
		req.SetBasicAuth(c.user, c.password)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	// A server may answer 200 and still report an exception in this header
	// (an insert whose body timed out, before 24.6).
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-ClickHouse-Exception-Code") != "" {
		defer resp.Body.Close()
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
		text := strings.TrimSpace(string(msg))
		e := &Error{Message: text, Status: resp.StatusCode}
		if m := codeRE.FindStringSubmatch(text); m != nil {
			e.Code, _ = strconv.Atoi(m[1])
		}
		if h := resp.Header.Get("X-ClickHouse-Exception-Code"); h != "" && e.Code == 0 {
			e.Code, _ = strconv.Atoi(h)
		}
		return nil, e
	}
	return resp.Body, nil
}

// exec runs a statement and discards its answer.
func (c *client) exec(ctx context.Context, sql string, settings map[string]string) error {
	return c.insert(ctx, sql, nil, settings)
}

// insert runs a statement with data after it (none when body is nil) and
// discards its answer.
func (c *client) insert(ctx context.Context, sql string, body []byte, settings map[string]string) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	rc, err := c.do(ctx, sql, rd, settings)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, rc)
	rc.Close()
	return err
}

// text runs a query and returns its whole answer.
func (c *client) text(ctx context.Context, sql string, settings map[string]string) (string, error) {
	rc, err := c.do(ctx, sql, nil, settings)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}

// isCode reports whether err is ClickHouse's error code code.
func isCode(err error, code int) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
