package exec

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/fixtures"
	"logq/logstore"
	"logq/types"
)

// Nested records written from their columns (Request.RecordsAsJSON) read,
// in the API's encoding, exactly as the records assembled as values do:
// generated edge and relay records and hand-made ones (escapes, empty and
// absent objects, a field that appears in later segments only, arrays),
// over segments in memory, in files and reopened, in and out of storage
// order.
func TestRecordsAsJSONAgree(t *testing.T) {
	spec := fixtures.DefaultSpec(400, goldenNow)
	odd := [][]byte{
		[]byte(`{"event_message":"a","m":{"x":1,"s":"q\"\\\u2028<>&","f":1.5,"b":true,"arr":[1,2],"deep":{"k":"v","n":null}}}`),
		[]byte(`{"event_message":"b"}`),
		[]byte(`{"event_message":"c","m":{}}`),
		[]byte(`{"event_message":"d","m":{"x":2,"later":"a field the first segments lack"}}`),
		[]byte(`{"event_message":"e","m":{"deep":{"list":[{"z":1},{"z":2}],"k":"w"}}}`),
		[]byte(`{"event_message":"f","m":{"x":3,"deep":null}}`),
		[]byte(`{"event_message":"g","m":{"arr":[],"s":""}}`),
	}
	inputs := map[string][][]byte{
		"cloudflare.logs.prod": fixtures.Generate(spec, "cloudflare.logs.prod"),
		"deno-relay-logs":      fixtures.Generate(spec, "deno-relay-logs"),
		"odd":                  odd,
	}
	order := []string{"cloudflare.logs.prod", "deno-relay-logs", "odd"}
	queries := []string{
		"select id, timestamp, event_message, metadata from `cloudflare.logs.prod` order by timestamp desc limit 100",
		"select metadata, id from `cloudflare.logs.prod` order by id",
		"select metadata from `deno-relay-logs` where event_message like '%a%' order by timestamp, id",
		"select * from odd order by event_message",
		"select m, event_message from odd where event_message != 'a' order by event_message desc",
	}
	for _, mode := range []string{"memory", "data directory", "reopened"} {
		store := goldenStore(t, mode, order, inputs)
		for _, sql := range queries {
			q, err := Prepare(sql)
			require.NoError(t, err)
			var body [2]string
			jsonValues := 0
			for i, asJSON := range []bool{false, true} {
				res, err := Run(context.Background(), Local(store), q, Request{Now: goldenNow, RecordsAsJSON: asJSON})
				require.NoError(t, err, sql)
				require.NotEmpty(t, res.Rows, sql)
				body[i] = encodeRows(res)
				for _, row := range res.Rows {
					for _, v := range row {
						if v.T.Kind == types.KindJSON {
							jsonValues++
						}
					}
				}
			}
			require.Positive(t, jsonValues, "%s: %s: no record was written as JSON", mode, sql)
			require.Equal(t, body[0], body[1], "%s: %s", mode, sql)
		}
	}
}

// Record texts kept across queries are those the store holds now: of an
// open segment that took more rows (some older than those before), of
// records whose schema gained a field (every record then has it, as
// NULL where absent), and of the same segment once sealed in memory (its
// rows ordered by time). Each answer is the one assembled as values,
// which keeps nothing.
func TestKeptRecordTextsFollowTheStore(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 1000})
	add := func(evs ...string) {
		var raw [][]byte
		for _, e := range evs {
			raw = append(raw, []byte(e))
		}
		_, rej := st.Append("s", raw)
		require.Empty(t, rej)
	}
	ev := func(minute int, m string) string {
		ts := goldenNow.Add(time.Duration(minute-100) * time.Minute).UnixMicro()
		return fmt.Sprintf(`{"timestamp":%d,"event_message":"e%d","m":%s}`, ts, minute, m)
	}
	for i := 0; i < 10; i++ {
		add(ev(i*2, fmt.Sprintf(`{"x":%d,"s":"row %d"}`, i, i)))
	}
	q, err := Prepare("select event_message, m from s order by timestamp desc limit 6")
	require.NoError(t, err)
	agree := func(step string) {
		t.Helper()
		var body [2]string
		for i, asJSON := range []bool{false, true} {
			res, err := Run(context.Background(), Local(st), q, Request{Now: goldenNow, RecordsAsJSON: asJSON})
			require.NoError(t, err, step)
			body[i] = encodeRows(res)
		}
		require.Equal(t, body[0], body[1], step)
	}
	hits := keptRecords.hits.Load()
	agree("open")
	agree("open, again")
	require.Greater(t, keptRecords.hits.Load(), hits, "the second call finds the texts the first wrote")
	add(ev(5, `{"x":100,"s":"late"}`), ev(19, `{"x":101,"s":"newest"}`))
	agree("more rows, one older than most")
	add(ev(1, `{"x":102,"later":"a new field"}`))
	agree("a new field")
	agree("a new field, again")
	require.NoError(t, st.Flush())
	agree("sealed")
	agree("sealed, again")
}

// A stored record never holds an ARRAY with a NULL element (ingest drops
// them), which is why records written as JSON are not checked for one as
// assembled values are.
func TestStoredArraysHoldNoNull(t *testing.T) {
	inputs := map[string][][]byte{"s": {
		[]byte(`{"event_message":"b","m":{"deep":{"arr":[1,null,3]}},"top":[null,2]}`),
	}}
	for _, mode := range []string{"memory", "reopened"} {
		store := goldenStore(t, mode, []string{"s"}, inputs)
		q, err := Prepare("select m, top from s")
		require.NoError(t, err)
		for _, asJSON := range []bool{false, true} {
			res, err := Run(context.Background(), Local(store), q, Request{Now: goldenNow, RecordsAsJSON: asJSON})
			require.NoError(t, err)
			require.Equal(t, `[{"deep":[{"arr":[1,3]}]}] [2]`+"\n", encodeRows(res), mode)
		}
	}
}
