package main

import (
	"logq/api"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// The compose override replaces Supabase's analytics service as the README
// says: same service name and port, the data directory on a volume, the
// LOGFLARE_* tokens passed in as keys (every name serve reads), Studio's
// sql= switched on, and logq's own healthcheck.
func TestComposeOverrideReplacesAnalytics(t *testing.T) {
	b, err := os.ReadFile("../../deploy/docker-compose.logq.yml")
	require.NoError(t, err)
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(b, &doc))
	svc := yamlKey(t, yamlKey(t, doc.Content[0], "services"), "analytics")
	require.Equal(t, []string{"127.0.0.1:4000:4000"}, scalars(yamlKey(t, svc, "ports")), "published on loopback only")
	env := yamlKey(t, svc, "environment")
	require.Equal(t, "/var/lib/logq", yamlKey(t, env, "LOGQ_DATA_DIR").Value)
	require.Equal(t, ":4000", yamlKey(t, env, "LOGQ_ADDR").Value)
	require.Equal(t, "true", yamlKey(t, env, "LOGQ_SANDBOX_LOGS_ALL").Value)
	for _, k := range []string{"LOGFLARE_PRIVATE_ACCESS_TOKEN", "LOGFLARE_PUBLIC_ACCESS_TOKEN", "LOGFLARE_API_KEY"} {
		require.Contains(t, yamlKey(t, env, k).Value, "${"+k, "%s is passed through from .env", k)
		c, err := parseServe([]string{"--in-memory"}, env1(k, "tok"), nil)
		require.NoError(t, err)
		require.Len(t, c.keys, 1, "serve takes %s as a key", k)
		require.Equal(t, "tok", c.keys[0].Value)
		want := api.ScopeIngest | api.ScopeQuery // the public token, and its older name
		if k == "LOGFLARE_PRIVATE_ACCESS_TOKEN" {
			want = api.ScopeAll // the private one also manages
		}
		require.Equal(t, want, c.keys[0].Scopes, k)
	}
	require.Equal(t, []string{"logq-data:/var/lib/logq"}, scalars(yamlKey(t, svc, "volumes")))
	require.Equal(t, []string{"CMD", "/logq", "healthcheck"}, scalars(yamlKey(t, yamlKey(t, svc, "healthcheck"), "test")))

	df, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	for _, want := range []string{"CGO_ENABLED=0", "FROM scratch", "USER 65532", `VOLUME ["/var/lib/logq"]`, `HEALTHCHECK`, `CMD ["/logq", "healthcheck"]`} {
		require.Contains(t, string(df), want)
	}
}

func env1(k, v string) func(string) string {
	return func(name string) string {
		if name == k {
			return v
		}
		return ""
	}
}

func yamlKey(t *testing.T, m *yaml.Node, key string) *yaml.Node {
	t.Helper()
	require.Equal(t, yaml.MappingNode, m.Kind, "looking up %s", key)
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	require.FailNow(t, "missing key", key)
	return nil
}

func scalars(n *yaml.Node) []string {
	var out []string
	for _, c := range n.Content {
		out = append(out, strings.TrimSpace(c.Value))
	}
	return out
}

// The ClickHouse compose file runs logq over the ClickHouse service beside
// it: serve, given the file's environment, opens that server's database as
// that service's user, and the service makes that database and user.
func TestComposeClickHouseWiresLogqToItsServer(t *testing.T) {
	b, err := os.ReadFile("../../deploy/docker-compose.clickhouse.yml")
	require.NoError(t, err)
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(b, &doc))
	services := yamlKey(t, doc.Content[0], "services")
	logq, ch := yamlKey(t, services, "analytics"), yamlKey(t, services, "clickhouse")
	env, chEnv := yamlKey(t, logq, "environment"), yamlKey(t, ch, "environment")
	vars := map[string]string{}
	for i := 0; i+1 < len(env.Content); i += 2 {
		vars[env.Content[i].Value] = env.Content[i+1].Value
	}
	c, err := parseServe(nil, func(k string) string { return vars[k] }, nil)
	require.NoError(t, err)
	require.Equal(t, "clickhouse", c.storage)
	require.Equal(t, []string{"http://clickhouse:8123"}, c.ch.urls, "the URL names the clickhouse service")
	require.Equal(t, yamlKey(t, chEnv, "CLICKHOUSE_DB").Value, c.ch.database)
	require.Equal(t, yamlKey(t, chEnv, "CLICKHOUSE_USER").Value, c.ch.user)
	require.Equal(t, yamlKey(t, chEnv, "CLICKHOUSE_PASSWORD").Value, vars["LOGQ_CLICKHOUSE_PASSWORD"])
	require.Equal(t, "service_healthy", yamlKey(t, yamlKey(t, yamlKey(t, logq, "depends_on"), "clickhouse"), "condition").Value)
}
