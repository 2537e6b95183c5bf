package drain

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// laggingStore answers every Load with the config saved before the last
// Save, as a shared store read by a slow reload (or a replica behind) can.
type laggingStore struct {
	mu         sync.Mutex
	prev, last *Config
}

func (s *laggingStore) Load() (*Config, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prev == nil {
		return &Config{NextBackendID: 1, NextRuleID: 1}, nil
	}
	return s.prev.clone(), nil
}

func (s *laggingStore) Save(c *Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prev, s.last = s.last, c.clone()
	return nil
}

func createHook(t *testing.T, m *Manager, name string) Backend {
	t.Helper()
	typ := "webhook"
	b, err := m.CreateBackend(BackendInput{Name: &name, Type: &typ, Config: json.RawMessage(`{"url":"http://127.0.0.1:1/"}`)})
	require.NoError(t, err)
	return b
}

func names(bs []Backend) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

// A reload that reads an older config than the one this instance just
// saved keeps the newer: a drain made is never unmade by a reload.
func TestReloadNeverGoesBack(t *testing.T) {
	st := logstore.New(logstore.Options{})
	m, err := New(Options{Store: &laggingStore{}, Feed: st, Sources: st.Names, Reload: time.Millisecond})
	require.NoError(t, err)
	defer m.Close()
	createHook(t, m, "one")
	createHook(t, m, "two")
	for range 50 { // many reloads, each reading the config before "two"
		time.Sleep(2 * time.Millisecond)
		require.Equal(t, []string{"one", "two"}, names(m.Backends(nil)))
	}
}

// Two instances over one store (no reload between their changes): the
// second builds on the first's change instead of overwriting it.
func TestChangeBuildsOnAnotherInstancesSave(t *testing.T) {
	st := logstore.New(logstore.Options{})
	store := &MemoryStore{}
	a, err := New(Options{Store: store, Feed: st, Sources: st.Names})
	require.NoError(t, err)
	defer a.Close()
	b, err := New(Options{Store: store, Feed: st, Sources: st.Names})
	require.NoError(t, err)
	defer b.Close()
	one := createHook(t, a, "one")
	two := createHook(t, b, "two")
	require.Equal(t, []int64{1, 2}, []int64{one.ID, two.ID}, "distinct ids")
	require.Equal(t, []string{"one", "two"}, names(b.Backends(nil)))
	saved, err := store.Load()
	require.NoError(t, err)
	require.Equal(t, []string{"one", "two"}, names(saved.Backends))
}
