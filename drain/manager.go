package drain

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"logq/drain/dest"
	"logq/lql"
	"logq/storage"
)

// Options configure a Manager.
type Options struct {
	Store     ConfigStore
	Feed      storage.Feed
	Positions *Positions // nil: positions are not kept (a memory feed)
	// Sources lists the sources that exist now (rules name them by id).
	Sources func() []string
	Dest    dest.Options
	Logger  *slog.Logger
	Now     func() time.Time
	// Reload, when positive, re-reads the store this often, so that
	// another instance's changes are seen (ClickHouse).
	Reload time.Duration

	MaxBatch      int           // events per request; default dest.MaxBatch
	BatchWait     time.Duration // a batch waits at most this for more events; default 1 s
	ReadEvents    int           // events read from the feed at a time; default 1024
	MaxBackoff    time.Duration // the longest wait between retries; default 60 s
	SendTimeout   time.Duration // one request's time limit; default 30 s
	PositionEvery time.Duration // positions are saved this often while they change; default 1 s
}

// Manager is the drains: their backends and rules (Logflare's management
// API, which api serves over it), kept in a ConfigStore, and the engine
// that delivers to them.
//
// Who calls: api's handlers, any number at once; every method is safe for
// concurrent use.
type Manager struct {
	opts   Options
	mu     sync.Mutex // serialises changes; cfg is replaced, never modified
	cfg    *Config
	engine *Engine
	stop   chan struct{}
	wg     sync.WaitGroup
}

// New loads the config and starts delivering.
func New(opts Options) (*Manager, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sources == nil {
		opts.Sources = func() []string { return nil }
	}
	if opts.MaxBatch <= 0 || opts.MaxBatch > dest.MaxBatch {
		opts.MaxBatch = dest.MaxBatch
	}
	if opts.BatchWait <= 0 {
		opts.BatchWait = time.Second
	}
	if opts.ReadEvents <= 0 {
		opts.ReadEvents = 1024
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 60 * time.Second
	}
	if opts.SendTimeout <= 0 {
		opts.SendTimeout = 30 * time.Second
	}
	if opts.PositionEvery <= 0 {
		opts.PositionEvery = time.Second
	}
	cfg, err := opts.Store.Load()
	if err != nil {
		return nil, fmt.Errorf("drains: %w", err)
	}
	m := &Manager{opts: opts, cfg: cfg, stop: make(chan struct{})}
	m.engine = newEngine(&m.opts)
	m.engine.sync(cfg)
	if opts.Reload > 0 {
		m.wg.Add(1)
		go m.reloadLoop()
	}
	return m, nil
}

// Close stops delivering and saves the positions.
func (m *Manager) Close() {
	close(m.stop)
	m.wg.Wait()
	m.engine.close()
}

// reloadLoop picks up changes another instance saved.
func (m *Manager) reloadLoop() {
	defer m.wg.Done()
	t := time.NewTicker(m.opts.Reload)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			cfg, err := m.opts.Store.Load()
			if err != nil {
				m.opts.Logger.Warn("drains: reading the config failed", "err", err)
				continue
			}
			m.mu.Lock()
			m.adopt(cfg)
			m.mu.Unlock()
		}
	}
}

// adopt takes a config read from the store when it is newer than the one
// held: a read that began before a change of this instance was saved
// returns the older version, which must not undo it. Called with mu held.
func (m *Manager) adopt(cfg *Config) {
	if cfg.Version > m.cfg.Version {
		m.cfg = cfg
		m.engine.sync(cfg)
	}
}

// change applies f to a copy of the newest config, saves it and applies
// it. The store is read first so that a change another instance saved
// since the last reload is built on, not overwritten (two changes at the
// same moment on two instances still race: the last saved wins).
// Called with mu held.
func (m *Manager) change(f func(c *Config) error) error {
	latest, err := m.opts.Store.Load()
	if err != nil {
		return &Error{Status: 503, Msg: "the drains' config could not be read: " + err.Error()}
	}
	m.adopt(latest)
	c := m.cfg.clone()
	if err := f(c); err != nil {
		return err
	}
	c.Version++
	if err := m.opts.Store.Save(c); err != nil {
		return &Error{Status: 503, Msg: "the drains' config could not be saved: " + err.Error()}
	}
	m.cfg = c
	m.engine.sync(c)
	return nil
}

// current returns the config now (read-only).
func (m *Manager) current() *Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg
}

// redacted is b as the API shows it: secrets "REDACTED".
func redacted(b Backend) Backend {
	b.Config = dest.Redact(b.Type, b.Config)
	return b
}

// Backends lists the backends, oldest first, redacted; a non-nil metadata
// keeps those whose metadata equals it as a whole (Logflare's filter,
// "true" and "false" read as booleans).
func (m *Manager) Backends(metadata map[string]string) []Backend {
	c := m.current()
	var want map[string]any
	if metadata != nil {
		want = map[string]any{}
		for k, v := range metadata {
			switch v {
			case "true":
				want[k] = true
			case "false":
				want[k] = false
			default:
				want[k] = v
			}
		}
	}
	out := []Backend{}
	for _, b := range c.Backends {
		if want != nil && canonicalJSON(b.Metadata) != canonicalJSON(want) {
			continue
		}
		out = append(out, redacted(b))
	}
	return out
}

// Backend returns one backend, redacted.
func (m *Manager) Backend(token string) (Backend, error) {
	if b := m.current().backend(token); b != nil {
		return redacted(*b), nil
	}
	return Backend{}, ErrNotFound
}

// CreateBackend makes a backend from a POST body.
func (m *Manager) CreateBackend(in BackendInput) (Backend, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out Backend
	err := m.change(func(c *Config) error {
		if len(c.Backends) >= MaxBackends {
			return &Error{Status: 422, Fields: map[string][]string{"name": {fmt.Sprintf("logq keeps at most %d drains", MaxBackends)}}}
		}
		b := Backend{Token: newToken()}
		if err := applyBackend(&b, in, true); err != nil {
			return err
		}
		b.ID = max(c.NextBackendID, 1)
		c.NextBackendID = b.ID + 1
		now := Time(m.opts.Now())
		b.InsertedAt, b.UpdatedAt = now, now
		c.Backends = append(c.Backends, b)
		out = b
		return nil
	})
	return redacted(out), err
}

// UpdateBackend applies a PUT (or PATCH) body: the fields it holds replace
// the backend's, its config over the stored one (dest.Unredact: a
// "REDACTED" keeps the stored secret, omitted keys their values).
func (m *Manager) UpdateBackend(token string, in BackendInput) (Backend, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out Backend
	err := m.change(func(c *Config) error {
		b := c.backend(token)
		if b == nil {
			return ErrNotFound
		}
		if err := applyBackend(b, in, false); err != nil {
			return err
		}
		b.UpdatedAt = Time(m.opts.Now())
		out = *b
		return nil
	})
	return redacted(out), err
}

// applyBackend checks in and sets b's fields from it (create: every
// required field must be there).
func applyBackend(b *Backend, in BackendInput, create bool) error {
	errs := map[string][]string{}
	if in.Name != nil || create {
		name := ""
		if in.Name != nil {
			name = *in.Name
		}
		if why := checkName(name); why != nil {
			errs["name"] = why
		} else {
			b.Name = name
		}
	}
	if len(in.Description) > 0 {
		d, ok := optionalString(in.Description)
		switch {
		case !ok:
			errs["description"] = []string{"is invalid"}
		case d != nil && len(*d) > MaxDescription:
			errs["description"] = []string{fmt.Sprintf("should be at most %d character(s)", MaxDescription)}
		default:
			b.Description = d
		}
	}
	oldType := b.Type
	if in.Type != nil || create {
		switch {
		case in.Type == nil || *in.Type == "":
			errs["type"] = []string{"can't be blank"}
		case !validType(*in.Type):
			errs["type"] = []string{"is invalid: logq drains to " + strings.Join(dest.Types(), ", ")}
		default:
			b.Type = *in.Type
		}
	}
	if len(in.Metadata) > 0 {
		md, ok := optionalObject(in.Metadata)
		if !ok {
			errs["metadata"] = []string{"is invalid"}
		} else {
			b.Metadata = md
		}
	}
	var submitted map[string]any
	switch {
	case len(in.Config) > 0:
		cfg, ok := optionalObject(in.Config)
		if !ok || cfg == nil {
			errs["config"] = []string{"is invalid"}
		}
		submitted = cfg
	case create:
		errs["config"] = []string{"can't be blank"}
	}
	if len(errs) == 0 {
		var merged map[string]any
		switch {
		case submitted == nil:
			merged = b.Config // unchanged
		case !create && oldType == b.Type:
			merged = dest.Unredact(b.Type, submitted, b.Config)
		default:
			merged = submitted
		}
		cfg, cerrs := dest.Validate(b.Type, merged)
		for k, v := range cerrs {
			errs[k] = v
		}
		b.Config = cfg
	}
	if len(errs) > 0 {
		return &Error{Status: 422, Fields: errs}
	}
	return nil
}

func validType(t string) bool {
	for _, x := range dest.Types() {
		if x == t {
			return true
		}
	}
	return false
}

// DeleteBackend removes a backend and its rules; its streams stop.
func (m *Manager) DeleteBackend(token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.change(func(c *Config) error {
		b := c.backend(token)
		if b == nil {
			return ErrNotFound
		}
		id := b.ID
		kept := c.Backends[:0]
		for _, x := range c.Backends {
			if x.Token != token {
				kept = append(kept, x)
			}
		}
		c.Backends = kept
		rules := c.Rules[:0]
		for _, r := range c.Rules {
			if r.BackendID != id {
				rules = append(rules, r)
			}
		}
		c.Rules = rules
		return nil
	})
}

// TestBackend sends one real request to the backend's destination.
func (m *Manager) TestBackend(ctx context.Context, token string) (bool, string, error) {
	b := m.current().backend(token)
	if b == nil {
		return false, "", ErrNotFound
	}
	d, err := dest.New(b.Type, b.Config, m.opts.Dest)
	if err != nil {
		return false, err.Error(), nil
	}
	ok, reason := d.Test(ctx)
	return ok, reason, nil
}

// Rules lists the rules, oldest first; a backend id or token keeps its own
// (an unknown one is a 404).
func (m *Manager) Rules(backendID int64, backendToken string) ([]Rule, error) {
	c := m.current()
	out := []Rule{}
	id := int64(0)
	switch {
	case backendToken != "":
		b := c.backend(backendToken)
		if b == nil {
			return nil, ErrNotFound
		}
		id = b.ID
	case backendID != 0:
		if c.backendByID(backendID) == nil {
			return nil, ErrNotFound
		}
		id = backendID
	}
	for _, r := range c.Rules {
		if id == 0 || r.BackendID == id {
			out = append(out, r)
		}
	}
	return out, nil
}

// Rule returns one rule.
func (m *Manager) Rule(token string) (Rule, error) {
	for _, r := range m.current().Rules {
		if r.Token == token {
			return r, nil
		}
	}
	return Rule{}, ErrNotFound
}

// CreateRule makes a rule from a POST body.
func (m *Manager) CreateRule(in RuleInput) (Rule, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out Rule
	err := m.change(func(c *Config) error {
		r, err := m.checkRule(c, in)
		if err != nil {
			return err
		}
		if len(c.Rules) >= MaxRules {
			return &Error{Status: 422, Fields: map[string][]string{"lql_string": {fmt.Sprintf("logq keeps at most %d rules", MaxRules)}}}
		}
		r.ID = max(c.NextRuleID, 1)
		c.NextRuleID = r.ID + 1
		r.Token = newToken()
		now := Time(m.opts.Now())
		r.InsertedAt, r.UpdatedAt = now, now
		c.Rules = append(c.Rules, r)
		out = r
		return nil
	})
	return out, err
}

// checkRule checks a rule's body against the config.
func (m *Manager) checkRule(c *Config, in RuleInput) (Rule, error) {
	var r Rule
	errs := map[string][]string{}
	switch {
	case in.LQL == nil || strings.TrimSpace(*in.LQL) == "":
		errs["lql_string"] = []string{"can't be blank"}
	case len(*in.LQL) > MaxLQL:
		errs["lql_string"] = []string{fmt.Sprintf("should be at most %d character(s)", MaxLQL)}
	}
	bid, given, ok := intField(in.BackendID)
	switch {
	case !ok:
		errs["backend_id"] = []string{"is invalid"}
	case !given && in.BackendToken == "":
		errs["backend_id"] = []string{"can't be blank"}
	}
	sid, sgiven, sok := intField(in.SourceID)
	switch {
	case !sok:
		errs["source_id"] = []string{"is invalid"}
	case !sgiven && in.Source == "":
		errs["source_id"] = []string{"can't be blank"}
	}
	if len(errs) > 0 {
		return r, &Error{Status: 422, Fields: errs}
	}
	var b *Backend
	if given {
		b = c.backendByID(bid)
	} else {
		b = c.backend(in.BackendToken)
	}
	if b == nil {
		return r, &Error{Status: 404, Msg: "Not Found: no backend " + firstOf(string(in.BackendID), in.BackendToken)}
	}
	src := ""
	for _, name := range m.opts.Sources() {
		if sgiven && storage.SourceID(name) == sid || !sgiven && (name == in.Source || storage.SourceUUID(name) == strings.ToLower(in.Source)) {
			src = name
			break
		}
	}
	if src == "" && !sgiven && !isUUIDText(in.Source) && len(in.Source) <= 256 {
		src = in.Source // a source named but not made yet: its first event makes it
	}
	if src == "" {
		return r, &Error{Status: 404, Msg: "Not Found: no source " + firstOf(string(in.SourceID), in.Source)}
	}
	if _, err := lql.Parse(*in.LQL); err != nil {
		return r, &Error{Status: 400, Msg: "lql_string: " + err.Error(), Fields: map[string][]string{"lql_string": {err.Error()}}}
	}
	return Rule{BackendID: b.ID, SourceID: storage.SourceID(src), Source: src, LQL: *in.LQL}, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// DeleteRule removes a rule; a stream no rule asks for any more stops.
func (m *Manager) DeleteRule(token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.change(func(c *Config) error {
		for i, r := range c.Rules {
			if r.Token == token {
				c.Rules = append(c.Rules[:i], c.Rules[i+1:]...)
				return nil
			}
		}
		return ErrNotFound
	})
}

// Stats is one drain's delivery, summed over its sources.
type Stats struct {
	Token       string  `json:"token"`
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Sources     int     `json:"sources"`       // sources its rules read
	Delivered   int64   `json:"delivered"`     // events the destination took (2xx)
	Batches     int64   `json:"batches"`       // requests answered 2xx
	Failed      int64   `json:"failed"`        // requests that failed (retried or refused)
	Retried     int64   `json:"retried"`       // requests that failed and were sent again
	Refused     int64   `json:"refused"`       // events of batches the destination refused for good
	Lost        int64   `json:"lost"`          // events the feed dropped (retention, disk budget) before they were sent
	LagEvents   int64   `json:"lag_events"`    // events acknowledged and not yet delivered (read or not)
	LagSeconds  float64 `json:"lag_seconds"`   // age of the oldest event read and not yet delivered
	LastError   string  `json:"last_error"`    // the last failure's message
	LastErrorAt int64   `json:"last_error_at"` // µs since the epoch, 0 for none
}

// Stats reports every drain's delivery, by name.
func (m *Manager) Stats() []Stats {
	c := m.current()
	byToken := map[string]*Stats{}
	for _, b := range c.Backends {
		byToken[b.Token] = &Stats{Token: b.Token, Name: b.Name, Type: b.Type}
	}
	now := time.Now().UnixMicro()
	m.engine.mu.Lock()
	streams := make([]*stream, 0, len(m.engine.streams))
	for _, s := range m.engine.streams {
		streams = append(streams, s)
	}
	m.engine.mu.Unlock()
	for _, s := range streams {
		st := byToken[s.key.token]
		if st == nil {
			continue
		}
		st.Sources++
		st.Delivered += s.stats.delivered.Load()
		st.Batches += s.stats.batches.Load()
		st.Failed += s.stats.failed.Load()
		st.Retried += s.stats.retried.Load()
		st.Refused += s.stats.refused.Load()
		st.Lost += s.stats.lost.Load()
		if n, err := m.opts.Feed.FeedBacklog(s.key.source, *s.committed.Load()); err == nil {
			st.LagEvents += n
		}
		if old := s.oldest.Load(); old > 0 {
			st.LagSeconds = max(st.LagSeconds, float64(now-old)/1e6)
		}
		if e := s.stats.lastError.Load(); e != nil && s.stats.lastErrorAt.Load() > st.LastErrorAt {
			st.LastError, st.LastErrorAt = *e, s.stats.lastErrorAt.Load()
		}
	}
	out := make([]Stats, 0, len(byToken))
	for _, st := range byToken {
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Name < out[j].Name || out[i].Name == out[j].Name && out[i].Token < out[j].Token
	})
	return out
}

// canonicalJSON is a value's JSON with sorted keys (encoding/json sorts
// map keys), for comparing decoded documents.
func canonicalJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if m, ok := v.(map[string]any); v == nil || ok && m == nil {
		return "null"
	}
	_ = enc.Encode(v)
	return strings.TrimSpace(buf.String())
}

// isUUIDText reports whether s is written as a UUID.
func isUUIDText(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", c):
			return false
		}
	}
	return true
}
