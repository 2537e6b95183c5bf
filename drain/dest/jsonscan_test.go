package dest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestDecodeString(t *testing.T) {
	for _, q := range []string{
		`""`, `"plain"`, `"\u00e9t\u00E9"`, `"\ud83d\ude00 smile"`, `"\n\r\t\b\f\"\\\/"`,
		`"\u0000nul"`, `"\u2028"`, `"é ✓ 😀"`, `"a\u0026b\u003cc\u003e"`,
		`"\ud800"`, `"\udc00x"`, `"\ud800\u0041"`, `"\ud83d\ud83d\ude00"`,
	} {
		var want string
		require.NoError(t, json.Unmarshal([]byte(q), &want), q)
		raw := []byte(q[1 : len(q)-1])
		require.Equal(t, want, decodeString(raw, strings.Contains(q, `\`)), q)
	}
	// bad escapes and bytes still give valid UTF-8
	for _, raw := range []string{`\x`, `\u12`, `\u12G4`, "a\xffb", `\`, "\xed\xa0\x80"} {
		require.True(t, utf8.ValidString(decodeString([]byte(raw), true)), raw)
		require.True(t, utf8.ValidString(decodeString([]byte(raw), false)), raw)
	}
}

func TestTopLevelString(t *testing.T) {
	for body, want := range map[string]string{
		`{"message":"m"}`:                          "m",
		`{"a":{"message":"no"},"message":"yes"}`:   "yes",
		`{"a":["message"],"message":"\u00e9"}`:     "é",
		`{"message":5}`:                            "-",
		`{"a":{"message":"nested only"}}`:          "-",
		`{"event_message":"x"}`:                    "-",
		`[{"message":"x"}]`:                        "-",
		`{"message":"first","message":"second"}`:   "first",
		` { "x" : [1, {"y": null}], "message":""}`: "",
	} {
		got, ok := topLevelString([]byte(body), "message")
		if !ok {
			got = "-"
		}
		require.Equal(t, want, got, body)
	}
}

// TestMalformedBodies: a body that is not a JSON object (logq never makes
// one) must not break an encoder or a request.
func TestMalformedBodies(t *testing.T) {
	full := sampleEvents(t)[0].Body
	var evs []Event
	for i := 0; i <= len(full); i += 7 {
		evs = append(evs, Event{Body: full[:i], Timestamp: 1})
	}
	for _, b := range []string{"", "null", "[1,2]", `"s"`, "{", `{"a"`, `{"a":`, `{"a":tru}`, `{"a":1,}`, `{"a" 1}`, "}", `{"a":"\`} {
		evs = append(evs, Event{Body: []byte(b), Timestamp: 1})
	}
	batch := Batch{Source: "s", Events: evs}
	require.NotPanics(t, func() {
		appendWebhook(nil, batch)
		appendDatadog(nil, batch)
		appendLoki(nil, batch)
		_, err := appendOTLP(nil, batch, false, time.Now())
		require.NoError(t, err)
		_, err = appendOTLP(nil, batch, true, time.Now())
		require.NoError(t, err)
	})
	// Loki and Datadog bodies stay valid JSON as long as each event body is
	var v any
	good := Batch{Source: "s", Events: []Event{{Body: []byte(`{"a":[1,{"b":"c"}]}`)}, {Body: nil}}}
	require.NoError(t, json.Unmarshal(appendLoki(nil, good), &v))
	require.NoError(t, json.Unmarshal(appendDatadog(nil, good), &v))
	require.NoError(t, json.Unmarshal(appendWebhook(nil, good), &v))
}
