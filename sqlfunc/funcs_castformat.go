package sqlfunc

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"logq/expr"
	"logq/types"
)

// CAST(x AS t FORMAT f [AT TIME ZONE tz]) is the internal function
// cast_format(x, f, tz, now): BYTES to and from STRING in the encodings of
// bytesFormats, the date and time types to and from STRING with
// BigQuery's format elements (types/cast_format_time.go), and INT64,
// FLOAT64, NUMERIC and BIGNUMERIC to STRING with the numeric format
// elements (types/cast_format_number.go). now is the query's
// CURRENT_TIMESTAMP, which supplies the parts a date format leaves out.
// Other pairs of types are refused at load.
func registerCastFormat() {
	expr.Register("cast_format", def(4, 4, func(c *expr.Call) (types.Type, error) {
		from, to := c.Args[0].Type(), c.T
		if !castFormatPair(from, to) {
			return types.Type{}, fmt.Errorf("CAST from %s to %s with FORMAT is not supported (FORMAT casts BYTES and the date and time types to and from STRING, and INT64, FLOAT64, NUMERIC and BIGNUMERIC to STRING)", from, to)
		}
		for i := 1; i <= 2; i++ {
			x, err := expr.CoerceTo(c.Args[i], types.String)
			if err != nil {
				return types.Type{}, fmt.Errorf("CAST's FORMAT and time zone are STRINGs: %w", err)
			}
			c.Args[i] = x
		}
		return to, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		x, f := a[0], a[1]
		if x.Null || f.Null || a[2].Null {
			return types.NullOf(c.T), nil
		}
		switch {
		case x.T.Kind == types.KindBytes:
			s, err := bytesToText(f.S, x.S)
			if err != nil {
				return types.Value{}, expr.EvalErr("CAST … FORMAT: %v", err)
			}
			return types.StringValue(s), nil
		case c.T.Kind == types.KindBytes:
			b, err := textToBytes(f.S, x.S)
			if err != nil {
				return types.Value{}, expr.EvalErr("CAST … FORMAT: %v", err)
			}
			return types.Value{T: types.Bytes, S: b}, nil
		case castFormatNumber(x.T):
			s, err := types.FormatNumber(x, f.S)
			if err != nil {
				return types.Value{}, expr.EvalErr("CAST … FORMAT: %v", err)
			}
			return types.StringValue(s), nil
		}
		return castFormatTime(c, a)
	}, true))
}

// castFormatPair reports whether CAST … FORMAT converts from to to.
func castFormatPair(from, to types.Type) bool {
	switch {
	case from.Kind == types.KindNull:
		return to.Kind == types.KindString || to.Kind == types.KindBytes || to.IsTime()
	case from.Kind == types.KindBytes:
		return to.Kind == types.KindString
	case to.Kind == types.KindBytes:
		return from.Kind == types.KindString
	case from.IsTime():
		return to.Kind == types.KindString
	case from.Kind == types.KindString:
		return to.IsTime()
	case castFormatNumber(from):
		return to.Kind == types.KindString
	}
	return false
}

// castFormatNumber reports whether CAST … FORMAT writes t with the numeric
// format elements.
func castFormatNumber(t types.Type) bool { return t.IsNumeric() || t.IsDecimal() }

// bytesFormats names the encodings of BYTES ↔ STRING casts, in lower case
// (the format is matched without regard to case).
var bytesFormats = map[string]bool{"base2": true, "base8": true, "base16": true, "hex": true, "base32": true,
	"base64": true, "base64m": true, "ascii": true, "utf8": true, "utf-8": true}

// base64mLine is the line length of BASE64M (MIME) text.
const base64mLine = 76

// bytesToText encodes b as CAST(b AS STRING FORMAT format).
func bytesToText(format, b string) (string, error) {
	switch f := strings.ToLower(format); f {
	case "base2":
		var sb strings.Builder
		for i := 0; i < len(b); i++ {
			fmt.Fprintf(&sb, "%08b", b[i])
		}
		return sb.String(), nil
	case "base8":
		// The bytes as one big-endian number in octal, ⌈8n/3⌉ digits
		// (none for no bytes: big.Int writes zero as "0").
		if b == "" {
			return "", nil
		}
		digits := (8*len(b) + 2) / 3
		s := new(big.Int).SetBytes([]byte(b)).Text(8)
		return strings.Repeat("0", digits-len(s)) + s, nil
	case "base16", "hex":
		return hex.EncodeToString([]byte(b)), nil
	case "base32":
		return base32.StdEncoding.EncodeToString([]byte(b)), nil
	case "base64":
		return base64.StdEncoding.EncodeToString([]byte(b)), nil
	case "base64m":
		s := base64.StdEncoding.EncodeToString([]byte(b))
		var lines []string
		for len(s) > base64mLine {
			lines, s = append(lines, s[:base64mLine]), s[base64mLine:]
		}
		return strings.Join(append(lines, s), "\n"), nil
	case "ascii":
		for i := 0; i < len(b); i++ {
			if b[i] >= utf8.RuneSelf {
				return "", fmt.Errorf("the bytes are not ASCII")
			}
		}
		return b, nil
	case "utf8", "utf-8":
		if !utf8.ValidString(b) {
			return "", fmt.Errorf("the bytes are not valid UTF-8")
		}
		return b, nil
	}
	return "", badBytesFormat(format)
}

// textToBytes decodes s as CAST(s AS BYTES FORMAT format).
func textToBytes(format, s string) (string, error) {
	bad := func() (string, error) { return "", fmt.Errorf("%q is not %s text", s, strings.ToUpper(format)) }
	switch f := strings.ToLower(format); f {
	case "base2":
		// Eight digits a byte, from the right; a shorter first group is
		// a byte of its own.
		out := make([]byte, (len(s)+7)/8)
		for i := 0; i < len(s); i++ {
			if s[i] != '0' && s[i] != '1' {
				return bad()
			}
			bit := len(s) - 1 - i
			out[len(out)-1-bit/8] |= (s[i] - '0') << (bit % 8)
		}
		return string(out), nil
	case "base8":
		// n digits are ⌊n/8⌋·3 bytes plus 0, 1, 1, 1, 2, 2, 2, 3 for the
		// n mod 8 leading digits; a value too big for them keeps its low
		// bytes.
		n, ok := new(big.Int).SetString("0"+s, 8)
		if !ok || strings.ContainsAny(s, "+-_") {
			return bad()
		}
		size := len(s)/8*3 + [8]int{0, 1, 1, 1, 2, 2, 2, 3}[len(s)%8]
		b := n.Bytes()
		if len(b) > size {
			b = b[len(b)-size:]
		}
		return strings.Repeat("\x00", size-len(b)) + string(b), nil
	case "base16", "hex":
		if len(s)%2 == 1 {
			s = "0" + s
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return bad()
		}
		return string(b), nil
	case "base32":
		b, err := base32.StdEncoding.DecodeString(s)
		if err != nil {
			return bad()
		}
		return string(b), nil
	case "base64", "base64m":
		if f == "base64m" {
			s = strings.NewReplacer("\r", "", "\n", "").Replace(s)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return bad()
		}
		return string(b), nil
	case "ascii":
		for i := 0; i < len(s); i++ {
			if s[i] >= utf8.RuneSelf {
				return "", fmt.Errorf("%q is not ASCII", s)
			}
		}
		return s, nil
	case "utf8", "utf-8":
		return s, nil
	}
	return "", badBytesFormat(format)
}

func badBytesFormat(format string) error {
	return fmt.Errorf("invalid format %q: BYTES and STRING convert with BASE2, BASE8, BASE16, HEX, BASE32, BASE64, BASE64M, ASCII or UTF-8", format)
}

// castFormatTime formats or parses a date or time type.
func castFormatTime(c *expr.Call, a []types.Value) (types.Value, error) {
	x, f, tz, now := a[0], a[1], a[2], a[3]
	loc, err := types.LoadLocation(tz.S)
	if err != nil {
		return types.Value{}, expr.EvalErr("CAST … AT TIME ZONE: %v", err)
	}
	if c.T.Kind == types.KindString {
		s, err := types.FormatTimeCast(f.S, x.T.Kind, x.I, loc)
		if err != nil {
			return types.Value{}, expr.EvalErr("CAST … FORMAT: %v", err)
		}
		return types.StringValue(s), nil
	}
	us, err := types.ParseTimeCast(f.S, c.T.Kind, x.S, loc, now.I)
	if err != nil {
		return types.Value{}, expr.EvalErr("CAST … FORMAT: %v", err)
	}
	return types.Value{T: c.T, I: us}, nil
}
