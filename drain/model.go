package drain

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Backend is a drain, as Logflare's management API calls it: where events
// go (Type and Config) and what it is called. Its rules say which events.
type Backend struct {
	ID          int64          `json:"id"`
	Token       string         `json:"token"`
	Name        string         `json:"name"`
	Description *string        `json:"description"`
	Type        string         `json:"type"`
	Config      map[string]any `json:"config"`
	Metadata    map[string]any `json:"metadata"`
	InsertedAt  Time           `json:"inserted_at"`
	UpdatedAt   Time           `json:"updated_at"`
}

// Rule sends the events of one source that its LQL string matches to one
// backend.
type Rule struct {
	ID         int64  `json:"id"`
	Token      string `json:"token"`
	SourceID   int64  `json:"source_id"`
	Source     string `json:"source_name"` // logq's: the source's name, which the id is derived from
	BackendID  int64  `json:"backend_id"`
	LQL        string `json:"lql_string"`
	InsertedAt Time   `json:"inserted_at"`
	UpdatedAt  Time   `json:"updated_at"`
}

// Config is every backend and rule: the document a ConfigStore keeps.
type Config struct {
	Version       int64     `json:"version"` // grows with every change (another instance's is seen by it)
	NextBackendID int64     `json:"next_backend_id"`
	NextRuleID    int64     `json:"next_rule_id"`
	Backends      []Backend `json:"backends"`
	Rules         []Rule    `json:"rules"`
}

// clone returns a deep copy (configs are copied on write).
func (c *Config) clone() *Config {
	b, _ := json.Marshal(c)
	out := &Config{}
	_ = json.Unmarshal(b, out)
	return out
}

// backend returns the backend with token, or nil.
func (c *Config) backend(token string) *Backend {
	for i := range c.Backends {
		if c.Backends[i].Token == token {
			return &c.Backends[i]
		}
	}
	return nil
}

// backendByID returns the backend with id, or nil.
func (c *Config) backendByID(id int64) *Backend {
	for i := range c.Backends {
		if c.Backends[i].ID == id {
			return &c.Backends[i]
		}
	}
	return nil
}

// Time is a time as Logflare's API writes it: UTC, to the second, without
// a zone ("2026-12-05T07:39:13", Ecto's NaiveDateTime).
type Time time.Time

const timeLayout = "2006-01-02T15:04:05"

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format(timeLayout) + `"`), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.Parse(timeLayout, s)
	if err != nil {
		return err
	}
	*t = Time(v)
	return nil
}

// newToken returns a random UUID (version 4).
func newToken() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// Error is a refused management request: Status and either Fields (a 422,
// Logflare's {"errors": {"<field>": ["<why>"]}}) or Msg.
type Error struct {
	Status int
	Fields map[string][]string
	Msg    string
}

func (e *Error) Error() string {
	if len(e.Fields) > 0 {
		var parts []string
		for k, v := range e.Fields {
			parts = append(parts, k+": "+strings.Join(v, ", "))
		}
		return strings.Join(parts, "; ")
	}
	return e.Msg
}

// ErrNotFound is an unknown token or id (404).
var ErrNotFound = &Error{Status: 404, Msg: "Not Found"}

// field errors
func fieldErr(field string, why ...string) *Error {
	return &Error{Status: 422, Fields: map[string][]string{field: why}}
}

// Limits on what a management request may hold.
const (
	MaxName        = 255
	MaxDescription = 4096
	MaxBackends    = 100
	MaxRules       = 1000
	MaxLQL         = 4096
)

// BackendInput is a POST or PUT body of /api/backends, each field present
// or not (a PUT replaces the fields it holds).
type BackendInput struct {
	Name        *string         `json:"name"`
	Description json.RawMessage `json:"description"`
	Type        *string         `json:"type"`
	Config      json.RawMessage `json:"config"`
	Metadata    json.RawMessage `json:"metadata"`
}

// checkName checks a backend's name.
func checkName(name string) []string {
	switch {
	case strings.TrimSpace(name) == "":
		return []string{"can't be blank"}
	case utf8.RuneCountInString(name) > MaxName:
		return []string{fmt.Sprintf("should be at most %d character(s)", MaxName)}
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return []string{"must be printable text"}
		}
	}
	return nil
}

// optionalString reads a JSON string or null (nil pointer for null or
// absent); ok is false for another type.
func optionalString(raw json.RawMessage) (*string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, false
	}
	if s == "" {
		return nil, true // Logflare stores an empty description as null
	}
	return &s, true
}

// optionalObject reads a JSON object or null; ok is false for another type.
func optionalObject(raw json.RawMessage) (map[string]any, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

// RuleInput is one POST body of /api/rules.
type RuleInput struct {
	BackendID    json.RawMessage `json:"backend_id"`
	BackendToken string          `json:"backend_token"`
	SourceID     json.RawMessage `json:"source_id"`
	Source       string          `json:"source"` // logq's: a source's token or name instead of source_id
	LQL          *string         `json:"lql_string"`
}

// intField reads an integer id given as a JSON number or a numeric string.
func intField(raw json.RawMessage) (int64, bool, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, true
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, true, false
		}
		n = json.Number(s)
	}
	v, err := n.Int64()
	if err != nil || v <= 0 {
		return 0, true, false
	}
	return v, true, true
}
