package api

import (
	"math"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/endpoint"
	"logq/exec"
	"logq/planner"
	"logq/types"
)

func TestValueEncoding(t *testing.T) {
	st := types.StructOf(types.Field{Name: "a", Type: types.Int64}, types.Field{Name: "b", Type: types.String})
	cols := []planner.Column{{Name: "ts"}, {Name: "dt"}, {Name: "dtf"}, {Name: "d"}, {Name: "i"}, {Name: "f"}, {Name: "nan"},
		{Name: "b"}, {Name: "s"}, {Name: "arr"}, {Name: "st"}, {Name: "null"}, {Name: "bytes"}}
	row := []types.Value{
		types.TimestampValue(1700000000123456),
		types.DatetimeValue(1700000000000000),
		types.DatetimeValue(1700000000123456),
		types.DateValue(19675),
		types.IntValue(-42),
		types.FloatValue(2.5),
		types.FloatValue(math.NaN()),
		types.BoolValue(true),
		types.StringValue("quote\" and \n newline <tag> \u2028"),
		types.ArrayValue(types.Int64, []types.Value{types.IntValue(1), types.IntValue(2)}),
		types.StructValue(st, []types.Value{types.IntValue(7), types.NullOf(types.String)}),
		types.NullOf(types.String),
		{T: types.Bytes, S: "\x00\xff"},
	}
	got := string(encodeResult(&exec.Result{Columns: cols, Rows: [][]types.Value{row}}, 0))
	want := `{"result":[{"ts":1700000000123456,"dt":"2023-11-14T22:13:20","dtf":"2023-11-14T22:13:20.123456","d":"2023-11-14",` +
		`"i":-42,"f":2.5,"nan":"NaN","b":true,"s":"quote\" and \n newline <tag> \u2028","arr":[1,2],"st":{"a":7,"b":null},"null":null,"bytes":"AP8="}]}` + "\n"
	require.Equal(t, want, got)
}

func TestRowCap(t *testing.T) {
	capped, err := endpoint.Parse("capped.yaml", []byte(
		"id: 5f0c4d1e-0000-4000-8000-000000000001\nname: test.capped\nmax_rows: 2\nquery: |\n  select event_message from src order by event_message\n"))
	require.NoError(t, err)
	h := newHarness(t, func(c *Config) { c.Endpoints = append(c.Endpoints, capped) })
	require.Equal(t, 200, h.ingest("src", []byte(`[{"event_message":"a"},{"event_message":"b"},{"event_message":"c"},{"event_message":"d"}]`), nil).code)
	r := h.get("/api/endpoints/query/test.capped")
	require.Equal(t, http.StatusOK, r.code)
	require.JSONEq(t, `{"result":[{"event_message":"a"},{"event_message":"b"}]}`, string(r.body))
}
