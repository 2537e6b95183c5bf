package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// A small key-value table, _logq_settings, shared by every instance over
// the database: the drains' config lives there (drain.KVStore), so every
// instance sees the same drains. It is on the first server only (a cluster
// has no table every shard reads but a Distributed one, which this need
// not be), and it has no timestamp column, so it is no source. Each Put adds
// a version; Get reads the newest.

const kvTable = "_logq_settings"

func (e *Engine) kvEnsure(ctx context.Context) error {
	return e.servers[0].exec(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (key String, version UInt64, value String) ENGINE = MergeTree() ORDER BY (key, version)",
		e.table(kvTable)), nil)
}

// Get implements drain.KV: the newest value of key, nil when none.
func (e *Engine) Get(key string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.kvEnsure(ctx); err != nil {
		return nil, err
	}
	out, err := e.servers[0].text(ctx, fmt.Sprintf("SELECT value FROM %s WHERE key = %s ORDER BY version DESC LIMIT 1 FORMAT JSONEachRow",
		e.table(kvTable), quote(key)), nil)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(out) == "" {
		return nil, nil
	}
	var row struct{ Value string }
	if err := json.Unmarshal([]byte(out), &row); err != nil {
		return nil, fmt.Errorf("clickhouse: reading %s: %w", kvTable, err)
	}
	return []byte(row.Value), nil
}

// Put implements drain.KV: a new version of key.
func (e *Engine) Put(key string, value []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.kvEnsure(ctx); err != nil {
		return err
	}
	row, err := json.Marshal(map[string]any{"key": key, "version": uint64(time.Now().UnixNano()), "value": string(value)})
	if err != nil {
		return err
	}
	return e.servers[0].insert(ctx, fmt.Sprintf("INSERT INTO %s FORMAT JSONEachRow", e.table(kvTable)), row, nil)
}
