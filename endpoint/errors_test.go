package endpoint

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/exec"
	"logq/fixtures"
	"logq/logstore"
)

func TestBadParameterValuesNameTheParameter(t *testing.T) {
	eps := loadBuiltins(t)
	st := logstore.New(logstore.Options{})
	st.Append("cloudflare.logs.prod", fixtures.Generate(fixtures.DefaultSpec(200, refNow), "cloudflare.logs.prod"))
	cases := []struct {
		endpoint string
		params   map[string]string
		param    string
	}{
		{"logs.all", map[string]string{"project": "p", "project_tier": "PRO", "iso_timestamp_start": "yesterday"}, "iso_timestamp_start"},
		{"logs.all", map[string]string{"project": "p", "project_tier": "PRO", "iso_timestamp_end": "2024-13-99"}, "iso_timestamp_end"},
		{"usage.api-counts", map[string]string{"project": "(unclosed", "interval": "daily"}, "project"},
	}
	for _, c := range cases {
		_, err := exec.Run(context.Background(), exec.Local(st), eps[c.endpoint].Query, exec.Request{Params: c.params, Now: refNow})
		var e *exec.Error
		require.True(t, errors.As(err, &e), "%v", err)
		require.Equal(t, exec.KindInvalidArgument, e.Kind, e.Msg)
		require.Equal(t, c.param, e.Param)
		require.Contains(t, e.Msg, c.param)
	}
}

func TestBadDefinitionsArePositioned(t *testing.T) {
	base := "id: 3e9d4a2c-5f6b-4c7d-8e1a-9b0c1d2e3f04\nname: x.y\nquery: |\n  select (1\n  from t\n"
	_, err := Parse("bad.yaml", []byte(base))
	require.ErrorContains(t, err, `bad.yaml:5:3: expected ")", found "from"`)
	_, err = Parse("bad.yaml", []byte("id: 3e9d4a2c-5f6b-4c7d-8e1a-9b0c1d2e3f04\nname: x.y\nquery: |\n  select nosuch(1)\n"))
	require.ErrorContains(t, err, "bad.yaml:4:10: unknown function nosuch")
	_, err = Parse("bad.yaml", []byte("id: nope\nname: x.y\nquery: select 1\n"))
	require.ErrorContains(t, err, "bad.yaml:1:5: id must be a UUID")
}
