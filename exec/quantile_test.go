package exec

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// rankError is |rank(v)/N − q| where rank(v) counts values ≤ v.
func rankError(sorted []float64, v, q float64) float64 {
	r := sort.Search(len(sorted), func(i int) bool { return sorted[i] > v })
	return math.Abs(float64(r)/float64(len(sorted)) - q)
}

func TestTDigestRankErrorWithinHalfPercent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dists := map[string]func() float64{
		"uniform":   func() float64 { return r.Float64() * 1000 },
		"lognormal": func() float64 { return math.Exp(3 + 1.2*r.NormFloat64()) },
		"bimodal": func() float64 {
			if r.IntN(10) == 0 {
				return 5000 + r.NormFloat64()*50
			}
			return 20 + r.NormFloat64()*3
		},
	}
	qs := []float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999}
	for name, gen := range dists {
		const n = 2_000_000
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = gen()
		}
		// One state past the exact limit (so a digest), and the same values
		// split into two digests then merged, as parallel workers do.
		whole := &quantileState{}
		for _, v := range vals {
			whole.add(v)
		}
		a2, b2 := newTDigest(200), newTDigest(200)
		for i, v := range vals {
			if i%2 == 0 {
				a2.add(v)
			} else {
				b2.add(v)
			}
		}
		a2.mergeFrom(b2)
		require.NotNil(t, whole.digest, "2M values exceed the exact limit")
		sorted := append([]float64(nil), vals...)
		sort.Float64s(sorted)
		worst, worstMerged := 0.0, 0.0
		for _, q := range qs {
			worst = math.Max(worst, rankError(sorted, whole.digest.quantile(q), q))
			worstMerged = math.Max(worstMerged, rankError(sorted, a2.quantile(q), q))
		}
		t.Logf("%s: worst rank error %.4f%% (single), %.4f%% (merged)", name, 100*worst, 100*worstMerged)
		require.LessOrEqual(t, worst, 0.005, name)
		require.LessOrEqual(t, worstMerged, 0.005, name)
		require.Equal(t, sorted[0], whole.digest.quantile(0))
		require.Equal(t, sorted[n-1], whole.digest.quantile(1))
	}
}

// selectKth finds the k-th smallest and leaves nothing larger before it
// and nothing smaller after it, over sizes on both sides of the sampling
// threshold (600), with distinct values, many repeats and sorted input.
func TestSelectKth(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 3, 10, 601, 602, 2000, 50000} {
		for _, shape := range []string{"distinct", "repeats", "ascending", "descending"} {
			vals := make([]float64, n)
			for i := range vals {
				switch shape {
				case "distinct":
					vals[i] = r.Float64()
				case "repeats":
					vals[i] = float64(r.IntN(7))
				case "ascending":
					vals[i] = float64(i)
				case "descending":
					vals[i] = float64(n - i)
				}
			}
			sorted := append([]float64(nil), vals...)
			sort.Float64s(sorted)
			for _, k := range []int{0, n / 2, n * 95 / 100, n * 99 / 100, n - 1, r.IntN(n)} {
				v := append([]float64(nil), vals...)
				require.Equal(t, sorted[k], selectKth(v, k), "n=%d %s k=%d", n, shape, k)
				for i := range v {
					require.True(t, i <= k && v[i] <= v[k] || i >= k && v[i] >= v[k], "n=%d %s k=%d: v[%d]=%v around v[k]=%v", n, shape, k, i, v[i], v[k])
				}
			}
		}
	}
}

func TestExactQuantilesNearestRank(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 3, 7, 100, 1001} {
		q := &quantileState{}
		var vals []float64
		for i := 0; i < n; i++ {
			v := float64(r.IntN(50))
			vals = append(vals, v)
			q.add(v)
		}
		sort.Float64s(vals)
		ranks := []int{0, 1, 50, 95, 99, 100}
		got := q.quantiles(100, ranks, false)
		for k, i := range ranks {
			want := vals[max(int(math.Ceil(float64(i)*float64(n)/100)), 1)-1]
			require.Equal(t, want, got[k], "n=%d i=%d", n, i)
		}
	}
}

func TestCancellationAndTimeLimit(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 1000})
	var evs [][]byte
	for i := 0; i < 50000; i++ {
		evs = append(evs, []byte(`{"timestamp":"2024-05-01T10:00:00Z","n":1}`))
	}
	st.Append("s", evs)
	q, err := Prepare(`select count(*) from s where n = 1`)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Run(ctx, Local(st), q, Request{})
	var e *Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, KindCanceled, e.Kind)
	_, err = Run(context.Background(), Local(st), q, Request{Timeout: time.Nanosecond})
	require.True(t, errors.As(err, &e))
	require.Equal(t, KindDeadline, e.Kind)
	res, err := Run(context.Background(), Local(st), q, Request{Timeout: time.Minute})
	require.NoError(t, err)
	require.Equal(t, int64(50000), res.Rows[0][0].I)
}
