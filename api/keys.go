package api

import (
	"fmt"
	"strings"
)

// Scope is what a key may do: ingest events, run queries (saved
// endpoints, ad-hoc SQL, the tail), or administer (Logflare's management
// API: sources, backends, rules). A key holds one or more.
type Scope uint8

const (
	ScopeIngest Scope = 1 << iota
	ScopeQuery
	ScopeAdmin
	// ScopeAll is a bare --api-key's: everything, as before keys had scopes.
	ScopeAll = ScopeIngest | ScopeQuery | ScopeAdmin
)

// Key is a configured API key and its scopes.
type Key struct {
	Value  string
	Scopes Scope
}

// ParseKey reads a --api-key value: "KEY" (every scope, as a key meant
// before scopes), or "SCOPES:KEY" with SCOPES one of ingest, query, admin,
// or several joined by "+" ("ingest+query:KEY"). A key that itself holds a
// colon is written with its scopes ("all:KEY" for every scope).
func ParseKey(s string) (Key, error) {
	prefix, key, found := strings.Cut(s, ":")
	if !found {
		if s == "" {
			return Key{}, fmt.Errorf("an empty API key")
		}
		return Key{Value: s, Scopes: ScopeAll}, nil
	}
	var sc Scope
	for _, p := range strings.Split(prefix, "+") {
		switch p {
		case "ingest":
			sc |= ScopeIngest
		case "query":
			sc |= ScopeQuery
		case "admin", "all":
			sc |= ScopeAll
		default:
			// Not a scope list: a key that holds a colon, every scope.
			return Key{Value: s, Scopes: ScopeAll}, nil
		}
	}
	if key == "" {
		return Key{}, fmt.Errorf("%q: an empty API key after its scopes", prefix+":")
	}
	return Key{Value: key, Scopes: sc}, nil
}

// String names the scopes ("ingest+query").
func (s Scope) String() string {
	if s&ScopeAdmin != 0 {
		return "admin"
	}
	var out []string
	if s&ScopeIngest != 0 {
		out = append(out, "ingest")
	}
	if s&ScopeQuery != 0 {
		out = append(out, "query")
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, "+")
}

// verb says what a route of scope s does, for a refusal's message.
func (s Scope) verb() string {
	switch s {
	case ScopeIngest:
		return "ingest events"
	case ScopeQuery:
		return "run queries"
	}
	return "use the management API (sources, backends, rules)"
}

// Keys makes keys of every scope, as bare --api-key values are.
func Keys(values ...string) []Key {
	out := make([]Key, len(values))
	for i, v := range values {
		out[i] = Key{Value: v, Scopes: ScopeAll}
	}
	return out
}
