package endpoint

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/exec"
	"logq/fixtures"
	"logq/logstore"
)

// The optimised plans of the built-in endpoints (testdata/plans/*.plan, one
// per endpoint and parameter set, written by hand and reviewed): what each
// rewrite makes of the saved SQL, over a store holding every source the
// endpoints read. The first line of a file is its query string.
func TestBuiltinPlans(t *testing.T) {
	files, err := filepath.Glob("testdata/plans/*.plan")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	st := logstore.New(logstore.Options{})
	for _, src := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
		st.Append(src, fixtures.Generate(fixtures.DefaultSpec(2000, refNow), src))
	}
	eps := loadBuiltins(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			query, want, _ := strings.Cut(string(data), "\n")
			params, err := url.ParseQuery(query)
			require.NoError(t, err)
			name := strings.SplitN(filepath.Base(f), "~", 2)[0]
			e := eps[name]
			require.NotNil(t, e, "no built-in endpoint %s", name)
			p := map[string]string{}
			for k := range params {
				p[k] = params.Get(k)
			}
			plan, err := exec.Explain(exec.Local(st), e.Query, exec.Request{Params: p, Now: refNow})
			require.NoError(t, err)
			require.Equal(t, strings.TrimSpace(want), strings.TrimSpace(plan))
		})
	}
}
