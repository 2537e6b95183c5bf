package drain

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"logq/storage"
)

// ConfigStore keeps the backends and rules.
//
// Who calls: the Manager, one call at a time.
type ConfigStore interface {
	// Load returns the saved config, or an empty one when none was saved.
	Load() (*Config, error)
	// Save replaces the saved config, durably.
	Save(c *Config) error
}

// FileStore keeps the config in DIR/drains/config.json, written whole to a
// temporary file, fsynced and renamed into place (a crash leaves the old
// file or the new one), readable by its owner only: it holds secrets.
type FileStore struct{ Dir string }

func (f FileStore) path() string { return filepath.Join(f.Dir, "config.json") }

// Load implements ConfigStore.
func (f FileStore) Load() (*Config, error) {
	b, err := os.ReadFile(f.path())
	if errors.Is(err, os.ErrNotExist) {
		return &Config{NextBackendID: 1, NextRuleID: 1}, nil
	}
	if err != nil {
		return nil, err
	}
	c := &Config{}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("%s: %w", f.path(), err)
	}
	return c, nil
}

// Save implements ConfigStore.
func (f FileStore) Save(c *Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(f.path(), b)
}

// writeFileAtomic replaces path's content with b durably: a temporary file
// beside it, fsynced, renamed over it, and the directory fsynced.
func writeFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(b); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// MemoryStore keeps the config in memory (a server without a data
// directory): a restart forgets every drain.
type MemoryStore struct {
	mu sync.Mutex
	c  *Config
}

// Load implements ConfigStore.
func (m *MemoryStore) Load() (*Config, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.c == nil {
		return &Config{NextBackendID: 1, NextRuleID: 1}, nil
	}
	return m.c.clone(), nil
}

// Save implements ConfigStore.
func (m *MemoryStore) Save(c *Config) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c = c.clone()
	return nil
}

// KV is a shared key-value store (the ClickHouse engine's), so that every
// instance over one database sees the same drains.
type KV interface {
	// Get returns the newest value of key, or nil when none was put.
	Get(key string) ([]byte, error)
	// Put stores a new value of key.
	Put(key string, value []byte) error
}

// KVStore keeps the config in a KV under the key "drains".
type KVStore struct{ KV KV }

// Load implements ConfigStore.
func (k KVStore) Load() (*Config, error) {
	b, err := k.KV.Get("drains")
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return &Config{NextBackendID: 1, NextRuleID: 1}, nil
	}
	c := &Config{}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("the drains' config in the database: %w", err)
	}
	return c, nil
}

// Save implements ConfigStore.
func (k KVStore) Save(c *Config) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return k.KV.Put("drains", b)
}

// Positions keeps each drain's position in each source's feed: where its
// delivery resumes after a restart. Only a durable feed has positions
// worth keeping (a Ring starts afresh).
type Positions struct {
	path string // "" keeps nothing
	mu   sync.Mutex
	m    map[string]map[string]storage.Pos // backend token → source → position
}

// LoadPositions reads DIR/drains/positions.json (dir "" keeps nothing).
func LoadPositions(dir string) (*Positions, error) {
	p := &Positions{m: map[string]map[string]storage.Pos{}}
	if dir == "" {
		return p, nil
	}
	p.path = filepath.Join(dir, "positions.json")
	b, err := os.ReadFile(p.path)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &p.m); err != nil {
		return nil, fmt.Errorf("%s: %w", p.path, err)
	}
	return p, nil
}

// Holds returns the positions as a storage.Holds (holder = backend token),
// for the store to open with: the WAL files a drain was still delivering
// when the server stopped are kept.
func (p *Positions) Holds() *storage.Holds {
	h := storage.NewHolds()
	p.mu.Lock()
	defer p.mu.Unlock()
	for token, m := range p.m {
		for src, pos := range m {
			h.Set(src, token, pos)
		}
	}
	return h
}

// get returns a drain's position in a source.
func (p *Positions) get(token, source string) (storage.Pos, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pos, ok := p.m[token][source]
	return pos, ok
}

// set records a drain's position in a source.
func (p *Positions) set(token, source string, pos storage.Pos) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.m[token]
	if m == nil {
		m = map[string]storage.Pos{}
		p.m[token] = m
	}
	m[source] = pos
}

// forget drops a drain's position in a source ("" for every source).
func (p *Positions) forget(token, source string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if source == "" {
		delete(p.m, token)
		return
	}
	delete(p.m[token], source)
	if len(p.m[token]) == 0 {
		delete(p.m, token)
	}
}

// save writes the positions durably.
func (p *Positions) save() error {
	if p.path == "" {
		return nil
	}
	p.mu.Lock()
	b, err := json.Marshal(p.m)
	p.mu.Unlock()
	if err != nil {
		return err
	}
	return writeFileAtomic(p.path, b)
}
