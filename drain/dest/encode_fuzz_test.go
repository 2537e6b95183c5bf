package dest

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzEncoders: any body (logq writes only JSON objects, but a reader must
// not trust that) leaves every encoder whole; the OTLP encoder writes the
// bytes its reference (the proto library) writes; and for a body that is a
// JSON object, the Loki, Datadog and webhook bodies are JSON.
func FuzzEncoders(f *testing.F) {
	for _, body := range []string{
		`{}`, `{"id":"x","timestamp":1,"event_message":"m","message":"top"}`,
		`{"esc":"\u00e9\ud83d\ude00\n\t\"\\\/\b\f","lone":"\ud800x","k\u00e9y":1}`,
		`{"arr":[[],[[1,2],[]],{},{"a":{}},null,"s",-1,2.5],"obj":{"x":{"y":{"z":[{"w":1}]}}}}`,
		`{"attributes":{"a":{"b":1}},"metadata":{"level":"error"},"severity_number":3}`,
		`{"bad":"\x"}`, `{"trunc":[1,2`, `[1]`, `"s"`, ``, "{\"a\":\"\xff\"}",
	} {
		f.Add([]byte(body))
	}
	now := time.Unix(1700000000, 0)
	f.Fuzz(func(t *testing.T, body []byte) {
		b := Batch{Source: "src", Events: []Event{{Body: body, Timestamp: 1700000000000000, Message: "m"}}}
		for _, flatten := range []bool{false, true} {
			fast, err := appendOTLP(nil, b, flatten, now)
			require.NoError(t, err)
			ref, err := refOTLP(nil, b, flatten, now)
			require.NoError(t, err)
			require.Equal(t, ref, fast, "%q", body)
		}
		loki, dd, hook := appendLoki(nil, b), appendDatadog(nil, b), appendWebhook(nil, b)
		if !json.Valid(body) || !utf8.Valid(body) || !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
			return
		}
		require.True(t, json.Valid(loki), "loki of %q: %s", body, loki)
		require.True(t, json.Valid(dd), "datadog of %q: %s", body, dd)
		require.True(t, json.Valid(hook), "webhook of %q: %s", body, hook)
	})
}
