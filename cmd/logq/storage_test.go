package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// --storage and the ClickHouse settings: flags first, then the environment;
// several URLs by repeating the flag or listing them comma-separated; a
// missing setting named in the error.
func TestParseStorage(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		name    string
		args    []string
		env     map[string]string
		storage string
		urls    []string
		db, cl  string
		user    string
		pass    string
		err     string
	}{
		{name: "default local", storage: "local"},
		{name: "flags", args: []string{"--storage", "clickhouse", "--clickhouse-url", "http://a:8123", "--clickhouse-url", "http://b:8123", "--clickhouse-database", "logs", "--clickhouse-cluster", "c2"},
			storage: "clickhouse", urls: []string{"http://a:8123", "http://b:8123"}, db: "logs", cl: "c2"},
		{name: "a flag listing two", args: []string{"--storage", "clickhouse", "--clickhouse-url", "http://a:8123, http://b:8123", "--clickhouse-database", "logs"},
			storage: "clickhouse", urls: []string{"http://a:8123", "http://b:8123"}, db: "logs"},
		{name: "environment", env: map[string]string{"LOGQ_STORAGE": "clickhouse", "LOGQ_CLICKHOUSE_URL": "http://a:8123,http://b:8123", "LOGQ_CLICKHOUSE_DATABASE": "d",
			"LOGQ_CLICKHOUSE_CLUSTER": "c", "LOGQ_CLICKHOUSE_USER": "u", "LOGQ_CLICKHOUSE_PASSWORD": "p"},
			storage: "clickhouse", urls: []string{"http://a:8123", "http://b:8123"}, db: "d", cl: "c", user: "u", pass: "p"},
		{name: "flags win", args: []string{"--clickhouse-url", "http://f:8123", "--clickhouse-database", "fd"}, env: map[string]string{"LOGQ_STORAGE": "clickhouse", "LOGQ_CLICKHOUSE_URL": "http://e:8123", "LOGQ_CLICKHOUSE_DATABASE": "ed"},
			storage: "clickhouse", urls: []string{"http://f:8123"}, db: "fd"},
		{name: "no url", args: []string{"--storage", "clickhouse", "--clickhouse-database", "d"}, err: "--clickhouse-url"},
		{name: "no database", args: []string{"--storage", "clickhouse", "--clickhouse-url", "http://a:8123"}, err: "--clickhouse-database"},
		{name: "unknown storage", args: []string{"--storage", "s3"}, err: "--storage"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseServe(c.args, env(c.env), nil)
			if c.err != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.storage, cfg.storage)
			require.Equal(t, c.urls, cfg.ch.urls)
			require.Equal(t, c.db, cfg.ch.database)
			require.Equal(t, c.cl, cfg.ch.cluster)
			require.Equal(t, c.user, cfg.ch.user)
			require.Equal(t, c.pass, cfg.ch.password)
		})
	}
}
