package exec

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"logq/logstore"
)

var update = flag.Bool("update", false, "rewrite the want sections of golden files (review the diff)")

// goldenNow is CURRENT_TIMESTAMP in every golden case.
var goldenNow = time.Date(2024, 5, 1, 12, 30, 0, 0, time.UTC)

// A golden case is a txtar archive:
//
//	-- query.sql --     the query
//	-- params --        name=value per line (optional)
//	-- input/NAME --    NDJSON events of source NAME (any number)
//	-- want --          result rows, one per line, values joined by " | "
//	-- error --         a regexp the error must match (instead of want)
//
// Expected rows are written by hand; -update rewrites them for review.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			require.NoError(t, err)
			sections := map[string]string{}
			store := logstore.New(logstore.Options{SegmentRows: 3}) // tiny segments: pruning and merging run too
			for _, f := range ar.Files {
				if src, ok := strings.CutPrefix(f.Name, "input/"); ok {
					var evs [][]byte
					for _, line := range strings.Split(string(f.Data), "\n") {
						if strings.TrimSpace(line) != "" {
							evs = append(evs, []byte(line))
						}
					}
					_, rej := store.Append(src, evs)
					require.Empty(t, rej)
					continue
				}
				sections[f.Name] = string(f.Data)
			}
			params := map[string]string{}
			for _, line := range strings.Split(sections["params"], "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					params[k] = v
				}
			}
			got, runErr := runGolden(store, sections["query.sql"], params)
			if want, ok := sections["error"]; ok {
				require.Error(t, runErr, "want an error matching %q, got rows:\n%s", want, got)
				require.Regexp(t, regexp.MustCompile(strings.TrimSpace(want)), runErr.Error())
				return
			}
			require.NoError(t, runErr)
			if *update {
				for i := range ar.Files {
					if ar.Files[i].Name == "want" {
						ar.Files[i].Data = []byte(got)
					}
				}
				require.NoError(t, os.WriteFile(file, txtar.Format(ar), 0o644))
				return
			}
			require.Equal(t, sections["want"], got)
		})
	}
}

func runGolden(store *logstore.Store, sql string, params map[string]string) (string, error) {
	q, err := Prepare(sql)
	if err != nil {
		return "", err
	}
	res, err := Run(context.Background(), store, q, Request{Params: params, Now: goldenNow})
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Kind == KindInternal {
			return "", errors.New(e.Msg + "\n" + e.Stack)
		}
		return "", err
	}
	var b strings.Builder
	var names []string
	for _, c := range res.Columns {
		names = append(names, c.Name)
	}
	b.WriteString(strings.Join(names, " | ") + "\n")
	for _, row := range res.Rows {
		vals := make([]string, len(row))
		for i, v := range row {
			vals[i] = v.String()
		}
		b.WriteString(strings.Join(vals, " | ") + "\n")
	}
	return b.String(), nil
}
