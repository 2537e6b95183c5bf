package exec

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
	"logq/types"
)

// newestEvent is one event of the newest-first window tests: key is the
// JSON of its k ("" for none: NULL).
type newestEvent struct {
	key, project string
	ts           time.Time
}

// The newest row per key, read newest first with segments skipped once no
// row of theirs can come first, is the one a plain-Go pass finds, serially
// and in parallel; read serially, some segments are skipped and not all.
func TestWindowNewestFirstSkipsSegmentsItCannotNeed(t *testing.T) {
	base := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Second) }
	cases := map[string]func(i int) newestEvent{
		// Keys that only the oldest segment has; NULL keys only in an older
		// segment than the empty string's newest row (the dictionary holds
		// "" for NULL rows too: the NULL partition must still be read);
		// a key whose newest row arrived late, in an older segment (read
		// first: its newest row is the newest of all), whose other keys'
		// rows are older than the next segment's; keys of rows the filter
		// drops.
		"mixed": func(i int) newestEvent {
			e := newestEvent{key: fmt.Sprintf(`"k%d"`, i%7), project: "p", ts: at(i)}
			switch {
			case i == 100:
				e.key = `"rare"`
			case i >= 2500 && i < 3000 && i%13 == 0:
				e.key = ""
			case (i >= 4500 || i >= 1500 && i < 2000) && i%11 == 0:
				e.key = `""` // also in segment 3, read first for its late row
			case i == 1700:
				e.ts = at(6000) // k6's newest row, in segment 3
			case i%5 == 0:
				e.project = "other"
				if i >= 3500 && i < 4000 {
					e.key = `"other-only"`
				}
			}
			return e
		},
		// A segment without the key's column at all holds the newest NULL
		// partition rows.
		"absent column": func(i int) newestEvent {
			e := newestEvent{key: fmt.Sprintf(`"k%d"`, i%3), project: "p", ts: at(i)}
			if i >= 3500 && i < 4000 {
				e.key = ""
			}
			return e
		},
		// An integer key (a status code): a code only the oldest segment
		// has, NULLs in one segment, and a segment whose values span too
		// wide a range to list (read).
		"integer key": func(i int) newestEvent {
			e := newestEvent{key: fmt.Sprint([]int{200, 404, 500}[i%3]), project: "p", ts: at(i)}
			switch {
			case i == 100:
				e.key = "418"
			case i >= 2000 && i < 2500 && i%7 == 0:
				e.key = ""
			case i >= 3000 && i < 3500 && i%50 == 0:
				e.key = fmt.Sprint(1 << 20) // one far value makes the segment's column wide
			}
			return e
		},
	}
	for name, evOf := range cases {
		t.Run(name, func(t *testing.T) {
			const n = 5000 // segments of 500 rows
			st := logstore.New(logstore.Options{SegmentRows: 500})
			var evs [][]byte
			for i := 0; i < n; i++ {
				e := evOf(i)
				key := ""
				if e.key != "" {
					key = `"k":` + e.key + ","
				}
				evs = append(evs, []byte(fmt.Sprintf(`{"timestamp":%q,%s"project":%q,"i":%d}`, e.ts.Format(time.RFC3339), key, e.project, i)))
			}
			got, rej := st.Append("src", evs)
			require.Empty(t, rej)
			require.Equal(t, n, got)
			require.NoError(t, st.Flush()) // every segment sealed (packed), none still sealing

			newest := map[string]int{}
			for i := 0; i < n; i++ {
				e := evOf(i)
				if e.project != "p" {
					continue
				}
				k := e.key
				if k == "" {
					k = "NULL"
				}
				if b, ok := newest[k]; !ok || e.ts.After(evOf(b).ts) {
					newest[k] = i
				}
			}
			sql := "select k, i from src where project = 'p' qualify row_number() over (partition by k order by timestamp desc) = 1"
			requireKeyRows(t, st, sql, newest, func(v types.Value) string {
				if name == "integer key" {
					return fmt.Sprint(v.I)
				}
				return fmt.Sprintf("%q", v.S)
			})

			q, err := Prepare(sql)
			require.NoError(t, err)
			plan, cat, err := prepare(Local(st), q, Request{Now: goldenNow})
			require.NoError(t, err)
			prev := runtime.GOMAXPROCS(1)
			defer runtime.GOMAXPROCS(prev)
			op, err := build(plan, &Env{view: cat, ev: newEvaluator()})
			require.NoError(t, err)
			defer op.Close()
			for {
				b, err := op.Next(context.Background())
				require.NoError(t, err)
				if b == nil {
					break
				}
			}
			scan := findScan(op)
			require.NotNil(t, scan)
			require.Positive(t, scan.skipped)
			require.Less(t, scan.skipped, len(st.Snapshot("src").Segments)-1)
		})
	}
}

// findScan returns the scan at the bottom of a chain of one-input operators.
func findScan(op Operator) *scanOp {
	for {
		switch x := op.(type) {
		case *scanOp:
			return x
		case *projectOp:
			op = x.in
		case *filterOp:
			op = x.in
		case *windowOp:
			op = x.in
		default:
			return nil
		}
	}
}
