package exec

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/expr"
	"logq/logstore"
	"logq/types"
)

func strBatch(vals ...string) *Batch {
	v := newVector(types.String, len(vals))
	copy(v.S, vals)
	return &Batch{N: len(vals), Cols: []*Vector{v}}
}

func boolsOf(v *Vector, n int) []string {
	out := make([]string, n)
	for i := range out {
		switch {
		case v.isNull(i):
			out[i] = "NULL"
		case v.I[i] != 0:
			out[i] = "true"
		default:
			out[i] = "false"
		}
	}
	return out
}

// LIKE with a constant pattern runs as a kernel whose compiled pattern is
// reused across batches (it was compiled for every row).
func TestLikeKernelCompilesOnce(t *testing.T) {
	ev := newEvaluator()
	c := &expr.Call{Fn: "like", T: types.Bool, Args: []expr.Expr{
		&expr.ColRef{Idx: 0, T: types.String}, &expr.Const{V: types.StringValue("%send-email%")}}}
	for range 3 {
		v, err := ev.eval(c, strBatch("POST /send-email", "GET /", "send-email", "send_email"))
		require.NoError(t, err)
		require.Equal(t, []string{"true", "false", "true", "false"}, boolsOf(v, 4))
	}
	require.Len(t, ev.likes, 1, "the pattern was compiled by the kernel, once")
}

// SAFE. calls use kernels too; a call that fails is NULL in the rows where
// it fails, as the row path makes it.
func TestSafeCallsUseKernels(t *testing.T) {
	ev := newEvaluator()
	call := func(pattern string) *expr.Call {
		return &expr.Call{Fn: "regexp_contains", Safe: true, T: types.Bool, Args: []expr.Expr{
			&expr.ColRef{Idx: 0, T: types.String}, &expr.Const{V: types.StringValue(pattern)}}}
	}
	v, err := ev.eval(call("^a+b"), strBatch("aab", "ba", "ab"))
	require.NoError(t, err)
	require.Equal(t, []string{"true", "false", "true"}, boolsOf(v, 3))
	require.Contains(t, ev.regexps, "^a+b", "the kernel ran (the row path compiles elsewhere)")
	v, err = ev.eval(call("("), strBatch("aab", "("))
	require.NoError(t, err)
	require.Equal(t, []string{"NULL", "NULL"}, boolsOf(v, 2))
}

// The LIKE kernel against STRPOS for the same count over events whose
// messages are all distinct (no dictionary to help either).
func BenchmarkLikeVsStrpos(b *testing.B) {
	st := logstore.New(logstore.Options{})
	const n = 60000
	evs := make([][]byte, n)
	for i := range evs {
		path := "/functions/v1/hello"
		if i%7 == 0 {
			path = "/functions/v1/send-email"
		}
		evs[i] = fmt.Appendf(nil, `{"timestamp":%d,"event_message":"POST | 200 | %s | req-%08d | %d ms"}`, 1767225600000000+int64(i), path, i, i%977)
	}
	st.Append("relay", evs)
	require.NoError(b, st.Flush())
	for _, c := range []struct{ name, where string }{
		{"like", "event_message like '%send-email%'"},
		{"strpos", "strpos(event_message, 'send-email') > 0"},
		{"regexp", "regexp_contains(event_message, 'send-email')"},
		{"safe_regexp", "safe.regexp_contains(event_message, 'send-email')"},
	} {
		q, err := Prepare("select count(*) from relay where " + c.where)
		require.NoError(b, err)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := Run(context.Background(), Local(st), q, Request{})
				if err != nil || res.Rows[0][0].I != (n+6)/7 {
					b.Fatalf("%v %v", err, res.Rows)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
