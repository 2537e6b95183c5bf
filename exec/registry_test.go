package exec

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"logq/expr"
)

// syntax says how a golden query writes the functions that are operators or
// other syntax rather than calls by name.
var syntax = map[string]string{
	"=": `[^<>!]=`, "!=": `!=|<>`, "<": `<[^=>]`, "<=": `<=`, ">": `[^-]>[^=]`, ">=": `>=`,
	"+": `\+`, "-": `\s-\s`, "*": `\w\s*\*\s*\w`, "/": `\s/\s`, "neg": `[(,=]\s*-\s*\w`,
	"||": `\|\|`, "and": `(?i)\band\b`, "or": `(?i)\bor\b`, "not": `(?i)\bnot\b`,
	"is_null": `(?i)\bis\s+(not\s+)?null\b`, "is_true": `(?i)\bis\s+(not\s+)?true\b`,
	"is_false": `(?i)\bis\s+(not\s+)?false\b`, "like": `(?i)\blike\b`,
	"cast": `(?i)\b(safe_)?cast\s*\(|::`, "offset": `(?i)\[\s*offset\s*\(`,
	"safe_offset": `(?i)\[\s*safe_offset\s*\(`, "ordinal": `(?i)\[\s*ordinal\s*\(`,
	"safe_ordinal": `(?i)\[\s*safe_ordinal\s*\(`, "field": `\w\.\w`,
	"make_array": `\[\s*['\w]`, "make_struct": `(?i)\bstruct\s*\(`,
	"extract_dayofweek": `(?i)extract\s*\(\s*dayofweek\b`, "extract_dayofyear": `(?i)extract\s*\(\s*dayofyear\b`,
	"extract_isoweek": `(?i)extract\s*\(\s*isoweek\b`, "extract_isoyear": `(?i)extract\s*\(\s*isoyear\b`,
	"extract_date":     `(?i)extract\s*\(\s*date\b`,
	"extract_time":     `(?i)extract\s*\(\s*time\b`,
	"extract_datetime": `(?i)extract\s*\(\s*datetime\b`,
	"interval_part":    `(?i)\binterval\s+[a-z0-9_(]+\s*[*+-]`,
	"is_distinct_from": `(?i)\bis\s+(not\s+)?distinct\s+from\b`, "in_unnest": `(?i)\bin\s+unnest\s*\(`,
	"json_subscript":       `\)\s*\[\s*['"0-9]`,
	"cast_format":          `(?i)\bcast\s*\(.*\bformat\b`,
	"like_any":             `(?i)\blike\s+(any|some)\s+unnest\s*\(\s*[a-z(]`,
	"like_all":             `(?i)\blike\s+all\s+unnest\s*\(\s*[a-z(]`,
	"bitnot":               `~\s*[0-9b(]`,
	"collation_key":        `(?i)\bcollate\s+['"]`,
	"collation_keys":       `(?i)in\s+unnest\s*\(\s*\[\s*collate\(`,
	"like_collated":        `(?i)collate\([^)]*\)\s+(not\s+)?like\b`,
	"strpos_collated":      `(?i)strpos\(collate\(`,
	"instr_collated":       `(?i)instr\(collate\(`,
	"starts_with_collated": `(?i)starts_with\(collate\(`,
	"ends_with_collated":   `(?i)ends_with\(collate\(`,
	"replace_collated":     `(?i)replace\(collate\(`,
	"split_collated":       `(?i)split\(collate\(`,
	"&":                    `\d\s*&\s*\d`,
	"|":                    `\d\s*\|\s*\d`,
	"^":                    `\d\s*\^\s*\d`,
	"<<":                   `<<\s*\d`,
	">>":                   `>>\s*\d`,
	"unnest_zip":           `(?i)\bunnest\s*\([^()]*\bas\s+\w+\s*[,)]`,
	"bytes_to_latin1":      `(?i)\bregexp_\w+\(\s*b['"]`,
	"fit_type":             `(?i)\bas\s+(string|bytes|numeric|bignumeric)\s*\(\s*\d`,
	"latin1_to_bytes":      `(?i)\bregexp_(extract|replace)\w*\(\s*b['"]`,
	"path_field":           `(?i)\bflatten\s*\(`,
	"path_flatten":         `(?i)\bflatten\s*\(`,
	"path_json_field":      `(?i)\bflatten\s*\(.*json`,
	"path_offset":          `(?i)\bflatten\s*\([\w.]*\.\w+\s*\[\s*offset\s*\(`,
	"path_safe_offset":     `(?i)\bflatten\s*\([\w.]*\.\w+\s*\[\s*safe_offset\s*\(`,
	"path_ordinal":         `(?i)\bflatten\s*\([\w.]*\.\w+\s*\[\s*ordinal\s*\(`,
	"path_safe_ordinal":    `(?i)\bflatten\s*\([\w.]*\.\w+\s*\[\s*safe_ordinal\s*\(`,
}

// TestEveryFunctionIsDefinedAndTested lists every registered function: each
// has a row evaluation (its kernel of last resort), every vectorised kernel
// belongs to a registered function, and a golden case calls it.
func TestEveryFunctionIsDefinedAndTested(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txtar")
	require.NoError(t, err)
	var queries strings.Builder
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		require.NoError(t, err)
		for _, s := range ar.Files {
			if s.Name == "query.sql" {
				queries.Write(s.Data)
				queries.WriteString("\n")
			}
		}
	}
	all := queries.String()
	names := map[string]string{}
	for name := range expr.Funcs() {
		names[name] = name
	}
	for a, target := range expr.Aliases() {
		names[a] = target
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var vec, missing []string
	for _, name := range sorted {
		f := expr.LookupFunc(name)
		require.NotNil(t, f, name)
		require.NotNil(t, f.Eval, "%s has no evaluation", name)
		if kernels[f.Name] != nil && f.Name == name {
			vec = append(vec, name)
		}
		pat := syntax[name]
		if pat == "" {
			require.False(t, f.Internal, "internal function %s needs a syntax pattern here", name)
			pat = `(?i)(^|[^\w.])` + regexp.QuoteMeta(name) + `\s*\(`
		}
		if !regexp.MustCompile(pat).MatchString(all) {
			missing = append(missing, name)
		}
	}
	for _, name := range append(expr.AggregateNames(), expr.AnalyticNames()...) {
		if !regexp.MustCompile(`(?i)(^|[^\w.])` + name + `\s*\(`).MatchString(all) {
			missing = append(missing, name)
		}
	}
	require.Empty(t, missing, "functions no golden case calls")
	for name := range kernels {
		f := expr.LookupFunc(name)
		require.True(t, f != nil && f.Name == name, "kernel for unregistered %s", name)
	}
	// Every aggregate has its state, and every state an aggregate.
	aggs := map[string]bool{}
	for _, name := range expr.AggregateNames() {
		aggs[name] = true
		require.NotNil(t, aggStates[name], "aggregate %s has no state", name)
	}
	for name := range aggStates {
		require.True(t, aggs[name], "state for %s, which is not an aggregate", name)
	}
	// Every analytic function has its computation, and every computation
	// a function.
	analytic := map[string]bool{}
	for _, name := range expr.AnalyticNames() {
		analytic[name] = true
		require.NotNil(t, windowFuncs[name], "analytic function %s has no computation", name)
	}
	for name := range windowFuncs {
		require.True(t, analytic[name], "computation for %s, which is not an analytic function", name)
	}
	t.Logf("%d functions, vectorised: %s", len(sorted), strings.Join(vec, " "))

}

// A kernel for a name that is not registered (a misspelling, or an alias)
// fails at start-up instead of never being used.
func TestKernelForUnknownNamePanics(t *testing.T) {
	k := func(*evaluator, *expr.Call, *Batch) (*Vector, bool, error) { return nil, false, nil }
	require.Panics(t, func() { vectorised(k, "regexp_contain") })
	require.Panics(t, func() { vectorised(k, "ifnull") })
	require.Panics(t, func() { vectorised(k, "coalesce") }) // already has one
}
