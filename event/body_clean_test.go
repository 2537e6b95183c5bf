package event

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/fixtures"
)

// bodyBothWays is an event's body with the fast check (cleanEnd) and
// written token by token only.
func bodyBothWays(ev string) (fast, slow string, fastErr, slowErr error) {
	f, _, _, fastErr := appendBody(nil, []byte(ev), bodyOrigin, -1)
	s, _, _, slowErr := appendBody(nil, []byte(ev), bodyOrigin, math.MaxInt)
	return string(f), string(s), fastErr, slowErr
}

// The fast path copies a value only when writing it token by token gives
// the same bytes; everything else is left to the writer.
func TestBodyFastPath(t *testing.T) {
	deep := strings.Repeat(`{"a":`, MaxDepth-1) + "1" + strings.Repeat("}", MaxDepth-1)
	for _, c := range []struct {
		name, ev, want string // want: the members after the fixed fields; "" for an error
	}{
		{"clean, copied", `{"m":{"a":[1,-2.5e3,"x\"y\u00e9",true,false,null,{},[]],"b_1":{"c":"d"}}}`,
			`"m":{"a":[1,-2.5e3,"x\"y\u00e9",true,false,null,{},[]],"b_1":{"c":"d"}}`},
		{"whitespace is dropped", `{"m":{ "a" : [ 1 , 2 ] }}`, `"m":{"a":[1,2]}`},
		{"an unsafe key is made safe", `{"m":{"a-b":1,"c":{"d e":2}}}`, `"m":{"a_b":1,"c":{"d_e":2}}`},
		{"a key starting with a digit", `{"m":{"1a":1}}`, `"m":{"_1a":1}`},
		{"an escaped key is read unescaped", `{"m":{"a\u0062":1}}`, `"m":{"ab":1}`},
		{"a repeated key keeps the first", `{"m":{"a":1,"b":{"x":1,"x":2},"a":3}}`, `"m":{"a":1,"b":{"x":1}}`},
		{"the same key in two objects is no repeat", `{"m":[{"a":1},{"a":2}],"n":{"a":{"a":3}}}`, `"m":[{"a":1},{"a":2}],"n":{"a":{"a":3}}`},
		{"a raw control character is escaped", "{\"m\":[\"a\tb\"]}", `"m":["a\tb"]`},
		{"a sloppy number is text", `{"m":[1-2,01,1.,.5]}`, `"m":["1-2","01","1.",".5"]`},
		{"a bad escape is refused", `{"m":["a\x"]}`, ``},
		{"a short unicode escape is refused", `{"m":["\u12"]}`, ``},
		{"a bad literal is refused", `{"m":[tru]}`, ``},
		{"a literal run on is refused", `{"m":[truex]}`, ``},
		{"a cut object is refused", `{"m":{"a":1`, ``},
		{"a missing colon is refused", `{"m":{"a" 1}}`, ``},
		{"long strings: escapes and UTF-8 across eight-byte words", `{"m":["abcdefg\"hijklmno\\pqrstu\u00e9vwxyz é€ 0123456789abcdef","12345678"]}`,
			`"m":["abcdefg\"hijklmno\\pqrstu\u00e9vwxyz é€ 0123456789abcdef","12345678"]`},
		{"a control character deep in a long string", "{\"m\":[\"abcdefghijklmnopq\x1fr\"]}", `"m":["abcdefghijklmnopq\u001fr"]`},
		{"a quote as the eighth byte", `{"m":["abcdefg","abcdefgh"]}`, `"m":["abcdefg","abcdefgh"]`},
		{"a repeat among more keys than the seen bits", `{"m":{` + manyKeys + `,"k37":"again"}}`, `"m":{` + manyKeys + `}`},
		{"nesting to the limit", `{"d":` + deep + `}`, `"d":` + deep},
		{"nesting past the limit", `{"d":{"x":` + deep + `}}`, ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			fast, slow, fastErr, slowErr := bodyBothWays(c.ev)
			if c.want == "" {
				require.Error(t, fastErr)
				require.Error(t, slowErr)
				require.Equal(t, slowErr.Error(), fastErr.Error())
				return
			}
			require.NoError(t, fastErr)
			require.NoError(t, slowErr)
			require.Equal(t, slow, fast)
			require.True(t, strings.HasSuffix(fast, ","+c.want+"}"), fast)
		})
	}
}

// manyKeys is 100 distinct members: more than cleanObjectEnd's 64 bits of
// seen keys, so that some share a bit.
var manyKeys = func() string {
	var parts []string
	for i := range 100 {
		parts = append(parts, fmt.Sprintf(`"k%d":%d`, i, i))
	}
	return strings.Join(parts, ",")
}()

// Generated records of every source are clean, so their nested values are
// copied whole, and the body is the same either way.
func TestBodyFastPathOnGeneratedRecords(t *testing.T) {
	for _, source := range fixtures.Sources {
		for _, ev := range fixtures.Generate(fixtures.DefaultSpec(200, time.Now()), source) {
			fast, slow, fastErr, slowErr := bodyBothWays(string(ev))
			require.NoError(t, fastErr)
			require.NoError(t, slowErr)
			require.Equal(t, slow, fast)
			if i := strings.Index(string(ev), `"metadata":`); i >= 0 {
				start := i + len(`"metadata":`)
				var keys []keySpan
				end, ok := cleanEnd(ev, start, 1, &keys)
				require.True(t, ok, "%s: metadata not clean at %d: %q", source, end, ev[end:min(end+20, len(ev))])
				require.Empty(t, keys)
			}
		}
	}
}

// The fast path never changes a body, or whether an event is refused.
func FuzzBodyFastPathAgrees(f *testing.F) {
	for _, s := range []string{`{"m":{"a":[1,{"b":"c"}]}}`, `{"m":{"a":1,"a":2}}`, `{"m":[1e5,-0,"\u00e9\n"]}`,
		`{"m":{"a-b":{"c":[true,null]}}}`, "{\"m\":[\"\x01\"]}", `{"m":{ "a":1}}`, `{"m":[01]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ev string) {
		fast, slow, fastErr, slowErr := bodyBothWays(ev)
		if slowErr != nil {
			require.Error(t, fastErr, "%q", ev)
			require.Equal(t, slowErr.Error(), fastErr.Error(), "%q", ev)
			return
		}
		require.NoError(t, fastErr, "%q", ev)
		require.Equal(t, slow, fast, "%q", ev)
	})
}

// BenchmarkAppendBodyGenerated builds the bodies of generated records of
// one source, as a drain does, with and without the fast path.
func BenchmarkAppendBodyGenerated(b *testing.B) {
	for _, source := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
		evs := fixtures.Generate(fixtures.DefaultSpec(1000, time.Now()), source)
		size := 0
		for _, ev := range evs {
			size += len(ev)
		}
		for _, mode := range []struct {
			name    string
			noCheck int
		}{{"fast", -1}, {"tokens", math.MaxInt}} {
			b.Run(source+"/"+mode.name, func(b *testing.B) {
				b.SetBytes(int64(size / len(evs)))
				b.ReportAllocs()
				var dst []byte
				n := 0
				for b.Loop() {
					var err error
					if dst, _, _, err = appendBody(dst[:0], evs[n%len(evs)], bodyOrigin, mode.noCheck); err != nil {
						b.Fatal(err)
					}
					n++
				}
			})
		}
	}
}
