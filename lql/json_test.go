package lql

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// skipValue finds the end of every valid value, strings of every length
// with quotes and backslashes anywhere (both sides of the switch from the
// eight-byte loop to IndexByte).
func TestSkipValue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", `"`, `\`, "é", " ", "\n", "}", "]", "{", "["}
	for n := 0; n < 300; n++ {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		enc, err := json.Marshal(b.String())
		require.NoError(t, err)
		for _, suffix := range []string{"", `,"x"`, `"`, `\"`} {
			v := append(append([]byte{}, enc...), suffix...)
			end, ok := skipValue(v, 0)
			require.True(t, ok, "%s", v)
			require.Equal(t, len(enc), end, "%s", v)
		}
		// The same string inside containers.
		for _, c := range []string{`[` + string(enc) + `]`, `{"k":` + string(enc) + `,"l":[1,{}]}`} {
			end, ok := skipValue([]byte(c+`,1`), 0)
			require.True(t, ok, c)
			require.Equal(t, len(c), end, c)
		}
	}
	for v, end := range map[string]int{
		`123,`: 3, `-1.5e3}`: 6, `true]`: 4, `null `: 4, `false`: 5, `"a\\"x`: 5, `"\\\""`: 6, `{"a":"}"}x`: 9, `[[],{}]`: 7,
	} {
		got, ok := skipValue([]byte(v), 0)
		require.True(t, ok, v)
		require.Equal(t, end, got, v)
	}
	for _, v := range []string{``, `"abc`, `"abc\"`, `[1,2`, `{"a":"}`, `,`, `}`, `]`, `:`, strings.Repeat(`"`+strings.Repeat(`\"`, 40), 1)} {
		_, ok := skipValue([]byte(v), 0)
		require.False(t, ok, v)
	}
}

func TestRestOfObject(t *testing.T) {
	for v, want := range map[string]bool{
		`}`: true, ` } `: true, `,"a":1}`: true, ` , "a" : [1,{"b":2}] , "c":"}" }`: true,
		``: false, `,`: false, `}}`: false, `} x`: false, `,"a"}`: false, `,"a":}`: false, `,a:1}`: false, `,"a`: false, `]`: false,
	} {
		require.Equal(t, want, restOfObject([]byte(v), 0), v)
	}
}

func TestObjectIter(t *testing.T) {
	ev := []byte(` { "a" : 1 , "b":[2,3],"c" :{"d":4}} `)
	it, ok := newObjectIter(ev)
	require.True(t, ok)
	var keys, vals []string
	for {
		k, v, ok := it.next()
		if !ok {
			break
		}
		end, _ := skipValue(ev, v)
		keys = append(keys, string(ev[k:v]))
		vals = append(vals, string(ev[v:end]))
	}
	require.Equal(t, []string{`"a" : `, `"b":`, `"c" :`}, keys)
	require.Equal(t, []string{`1`, `[2,3]`, `{"d":4}`}, vals)
	for _, bad := range []string{`[]`, ``, ` `} {
		_, ok := newObjectIter([]byte(bad))
		require.False(t, ok, bad)
	}
	for _, bad := range []string{`{"a":1 "b":2}`, `{"a" 1}`, `{1:2}`, `{"a":}`, `{"a`} {
		it, _ := newObjectIter([]byte(bad))
		n := 0
		for {
			if _, _, ok := it.next(); !ok {
				break
			}
			n++
		}
		require.LessOrEqual(t, n, 1, bad)
	}
}

func TestIndexRare(t *testing.T) {
	pat := []byte(`"event_message"`)
	r := rareByte(pat)
	require.Equal(t, byte('v'), pat[r])
	require.Equal(t, byte('m'), []byte(`"metadata"`)[rareByte([]byte(`"metadata"`))])
	require.Equal(t, byte('X'), []byte(`"aX"`)[rareByte([]byte(`"aX"`))])
	for hay, want := range map[string]int{
		`"event_message"`:                     0,
		`xx"event_message"`:                   2,
		`"event_messag" "event_message"`:      15,
		`"event_message`:                      -1,
		`vvvvvvvvvvvvvvvvvvvv"event_message"`: 20,
		`v`:                                   -1,
		``:                                    -1,
	} {
		require.Equal(t, want, indexRare([]byte(hay), 0, pat, r), hay)
	}
	require.Equal(t, 16, indexRare([]byte(`"event_message" "event_message"`), 1, pat, r))
}
