package exec

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"logq/exec/golden"
	"logq/logstore"
	"logq/types"

	_ "logq/publicsuffixlist" // for NET.PUBLIC_SUFFIX and NET.REG_DOMAIN
)

var update = flag.Bool("update", false, "rewrite the want sections of golden files (review the diff)")

// goldenNow is CURRENT_TIMESTAMP in every golden case.
var goldenNow = time.Date(2024, 5, 1, 12, 30, 0, 0, time.UTC)

// TestGolden runs every golden case (package golden reads them; the
// answers are written by hand, and -update rewrites the rows for review).
func TestGolden(t *testing.T) {
	cases, err := golden.All()
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			// Every case runs over the store in memory, on a data directory,
			// and on that directory reopened (segments read from files).
			for _, mode := range []string{"memory", "data directory", "reopened"} {
				store := goldenStore(t, mode, c.Sources, c.Inputs)
				if c.Has["plan"] {
					q, err := Prepare(c.Query)
					require.NoError(t, err)
					plan, err := Explain(Local(store), q, Request{Params: c.Params, Now: goldenNow})
					require.NoError(t, err)
					require.Equal(t, strings.TrimSpace(c.Plan), strings.TrimSpace(plan), "%s: the optimised plan", mode)
				}
				got, runErr := runGolden(store, c.Query, c.Params)
				requireRecordsAsJSONAgree(t, store, c.Query, c.Params, mode)
				if c.Has["error"] {
					require.Error(t, runErr, "%s: want an error matching %q, got rows:\n%s", mode, c.Error, got)
					require.Regexp(t, regexp.MustCompile(strings.TrimSpace(c.Error)), runErr.Error(), mode)
					continue
				}
				require.NoError(t, runErr, mode)
				if *update && mode == "memory" {
					ar := c.Archive
					for i := range ar.Files {
						if ar.Files[i].Name == "want" {
							ar.Files[i].Data = []byte(got)
						}
					}
					require.NoError(t, os.WriteFile(c.File, txtar.Format(ar), 0o644))
					return
				}
				require.Equal(t, c.Want, got, mode)
			}
		})
	}
}

// requireRecordsAsJSONAgree runs sql with nested records assembled and
// with them written from their columns (Request.RecordsAsJSON), and
// requires the same error, or the same rows in the API's encoding.
func requireRecordsAsJSONAgree(t *testing.T, store *logstore.Store, sql string, params map[string]string, mode string) {
	t.Helper()
	q, err := Prepare(sql)
	if err != nil {
		return
	}
	var body [2]string
	var errs [2]error
	for i, asJSON := range []bool{false, true} {
		res, err := Run(context.Background(), Local(store), q, Request{Params: params, Now: goldenNow, RecordsAsJSON: asJSON})
		errs[i] = err
		if err == nil {
			body[i] = encodeRows(res)
		}
	}
	require.Equal(t, fmt.Sprint(errs[0]), fmt.Sprint(errs[1]), "%s: the error with records written as JSON", mode)
	require.Equal(t, body[0], body[1], "%s: the rows with records written as JSON", mode)
}

// encodeRows writes a result's rows in the API's encoding, a line each.
func encodeRows(res *Result) string {
	var enc types.ResponseEncoder
	var b []byte
	for _, row := range res.Rows {
		for i := range row {
			if i > 0 {
				b = append(b, ' ')
			}
			b = enc.Append(b, &row[i])
		}
		b = append(b, '\n')
	}
	return string(b)
}

// goldenStore loads a case's inputs with tiny segments (so pruning and
// merging run too) into a store of the given kind.
func goldenStore(t *testing.T, mode string, order []string, inputs map[string][][]byte) *logstore.Store {
	opts := logstore.Options{SegmentRows: 3}
	load := func(st *logstore.Store) {
		for _, src := range order {
			// In requests of a segment each, so that a case's rows span
			// segments (a request goes whole into one).
			for evs := inputs[src]; len(evs) > 0; {
				k := min(opts.SegmentRows, len(evs))
				_, rej := st.Append(src, evs[:k])
				require.Empty(t, rej)
				evs = evs[k:]
			}
		}
	}
	if mode == "memory" {
		st := logstore.New(opts)
		load(st)
		return st
	}
	dir := t.TempDir()
	st, err := logstore.Open(dir, opts)
	require.NoError(t, err)
	load(st)
	if mode == "reopened" {
		require.NoError(t, st.Close())
		st, err = logstore.Open(dir, opts)
		require.NoError(t, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func runGolden(store *logstore.Store, sql string, params map[string]string) (string, error) {
	q, err := Prepare(sql)
	if err != nil {
		return "", err
	}
	return runQuery(store, q, params, goldenNow)
}

// renderResult writes a result as the want sections hold it: the column
// names, then one line per row.
func renderResult(res *Result) string {
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
	return b.String()
}
