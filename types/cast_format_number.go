package types

// CAST(x AS STRING FORMAT f) for INT64, FLOAT64, NUMERIC and BIGNUMERIC:
// GoogleSQL's numeric format elements (docs/format-elements.md, "Format
// numeric type as string"). The page leaves much unsaid (what rounds how,
// which combinations are errors, where the padding goes); ZetaSQL's
// reference implementation (zetasql/public/functions/
// convert_string_with_format.cc) and its tests decide those, and the test
// file names each case where the page and ZetaSQL disagree.
//
// A format is parsed once into its layout (the digit, decimal point, group
// separator and exponent elements in order) and its flags (sign, currency,
// B, FM), then one of three renderers writes the value: decimal, hexadecimal
// (X) or Roman numerals (RN).

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// numFormatMaxLen bounds a format string's length in bytes, ZetaSQL's
// default --zetasql_format_max_output_width. Every element writes at most
// a few bytes, so it bounds the output too (about the format's length plus
// 16: the sign's space, USD for C, a three-digit exponent, RN's padding).
const numFormatMaxLen = 1 << 20

// numTok is one numeric format element.
type numTok uint8

const (
	ntDollar numTok = iota + 1 // $
	ntCUpper                   // C: USD
	ntCLower                   // c: usd
	ntL                        // L: the locale's currency symbol, $
	nt0
	nt9
	ntXUpper
	ntXLower
	ntDot // .
	ntD   // D: the locale's decimal point, .
	ntV   // an invisible decimal point: the value times 10^(digits after it)
	ntComma
	ntG // the locale's group separator, ,
	ntS
	ntMI
	ntPR
	ntRNUpper
	ntRNLower
	ntEUpper // EEEE
	ntELower // eeee
	ntB
	ntFM
	ntTM // TM, TM9, TME (text minimal): tokenized, not supported
	ntTM9
	ntTME
)

// name is how error messages write an element: upper case whatever the
// format's case, as ZetaSQL's messages do.
func (t numTok) name() string {
	return [...]string{"?", "$", "C", "C", "L", "0", "9", "X", "X", ".", "D", "V", ",", "G",
		"S", "MI", "PR", "RN", "RN", "EEEE", "EEEE", "B", "FM", "TM", "TM9", "TME"}[t]
}

func (t numTok) isDigit() bool { return t == nt0 || t == nt9 || t == ntXUpper || t == ntXLower }
func (t numTok) isHex() bool   { return t == ntXUpper || t == ntXLower }
func (t numTok) isPoint() bool { return t == ntDot || t == ntD || t == ntV }
func (t numTok) isGroup() bool { return t == ntComma || t == ntG }
func (t numTok) isSign() bool  { return t == ntS || t == ntMI || t == ntPR }
func (t numTok) isExp() bool   { return t == ntEUpper || t == ntELower }
func (t numTok) isTM() bool    { return t == ntTM || t == ntTM9 || t == ntTME }
func (t numTok) isCurrency() bool {
	return t == ntDollar || t == ntCUpper || t == ntCLower || t == ntL
}

// nextNumTok reads the element at the start of s and its length in bytes
// (0 when none matches). Element names are matched without regard to case;
// where the output has letters (X, C, RN, EEEE), the case of the element's
// first letter is the case of the output.
func nextNumTok(s string) (numTok, int) {
	two := func(second byte, t numTok) (numTok, int) {
		if len(s) >= 2 && upperASCII(s[1]) == second {
			return t, 2
		}
		return 0, 0
	}
	lower := s[0] >= 'a' && s[0] <= 'z'
	switch upperASCII(s[0]) {
	case '$':
		return ntDollar, 1
	case '0':
		return nt0, 1
	case '9':
		return nt9, 1
	case 'X':
		return pick(lower, ntXLower, ntXUpper), 1
	case '.':
		return ntDot, 1
	case 'D':
		return ntD, 1
	case ',':
		return ntComma, 1
	case 'G':
		return ntG, 1
	case 'S':
		return ntS, 1
	case 'C':
		return pick(lower, ntCLower, ntCUpper), 1
	case 'L':
		return ntL, 1
	case 'B':
		return ntB, 1
	case 'V':
		return ntV, 1
	case 'M':
		return two('I', ntMI)
	case 'P':
		return two('R', ntPR)
	case 'F':
		return two('M', ntFM)
	case 'R':
		return two('N', pick(lower, ntRNLower, ntRNUpper))
	case 'E':
		if !hasPrefixFold(s, "EEEE") {
			return 0, 0
		}
		return pick(lower, ntELower, ntEUpper), 4
	case 'T':
		// Longest first, so TM9 and TME are not TM followed by 9 or E.
		switch {
		case hasPrefixFold(s, "TM9"):
			return ntTM9, 3
		case hasPrefixFold(s, "TME"):
			return ntTME, 3
		}
		return two('M', ntTM)
	}
	return 0, 0
}

// numOutput is what a format writes.
type numOutput uint8

const (
	outDecimal numOutput = iota
	outHex
	outRoman
	outTextMinimal
)

// numFormat is a parsed numeric format.
type numFormat struct {
	out numOutput
	// layout holds the elements that take a place in the number, in order:
	// digits, the decimal point or V, group separators and EEEE. With
	// EEEE only the last integer digit is kept (one digit before the
	// point); for hexadecimal every 0 has become the X or x after it.
	layout []numTok
	// pointAt is the index in layout where the fraction begins: that of
	// the decimal point or V, else of EEEE, else len(layout).
	pointAt int
	// intDigits is the number of digit elements before the point, counted
	// before EEEE drops the extra ones: a value whose integer part has more
	// digits does not fit. scale is the number after it.
	intDigits, scale int
	// firstZero is the index in layout of the first 0 (before the EEEE
	// trimming), -1 if none: from there on leading zeros are written.
	firstZero int
	exponent  bool
	fm, blank bool   // FM; B
	currency  numTok // 0 if none
	sign      numTok // 0 if none
	signFront bool   // S written before the digits
	roman     numTok // RN or rn
}

const tmAlone = "'TM', 'TM9' or 'TME' cannot be combined with other format elements"

// numFormatError is an invalid format; the reason is worded as ZetaSQL's.
func numFormatError(format, reason string, args ...any) error {
	return fmt.Errorf("%w: error in format string %q: %s", ErrBadCast, clip(format), fmt.Sprintf(reason, args...))
}

// The parser's states. A decimal format is
//
//	[S] integer-digits [point fraction-digits] [EEEE] [S|MI|PR]
//
// with group separators among the integer digits; a hexadecimal one is
// 0s and Xs with a sign before or after; RN and TM stand alone. $ C L, B
// and FM are flags allowed anywhere, checked at the end.
type numParseState uint8

const (
	psStart numParseState = iota
	psInteger
	psFraction
	psAfterExponent
	psHex
	psAfterSign
	psRoman
	psTextMinimal
)

// parseNumFormat parses and validates a numeric format.
func parseNumFormat(format string) (*numFormat, error) {
	bad := func(reason string, args ...any) (*numFormat, error) {
		return nil, numFormatError(format, reason, args...)
	}
	if len(format) > numFormatMaxLen {
		return bad("format string too long; limit %d", numFormatMaxLen)
	}
	f := &numFormat{pointAt: -1, firstZero: -1}
	state := psStart
	digits := 0
	var has9, hasX, hasGroup bool
	var tm, point numTok
	for i := 0; i < len(format); {
		t, n := nextNumTok(format[i:])
		if n == 0 {
			r, _ := utf8.DecodeRuneInString(format[i:])
			return bad("invalid format element '%c'", r)
		}
		i += n
		switch {
		case t.isDigit(), t.isPoint(), t.isGroup(), t.isExp():
			if t == nt0 && f.firstZero < 0 {
				f.firstZero = len(f.layout)
			}
			f.layout = append(f.layout, t)
		}
		// The flags may stand anywhere, once each.
		switch {
		case t == ntFM:
			if f.fm {
				return bad("'FM' cannot be repeated")
			}
			f.fm = true
			continue
		case t.isCurrency():
			if f.currency != 0 {
				return bad("there can be at most one of '$', 'C' or 'L'")
			}
			f.currency = t
			continue
		case t == ntB:
			if f.blank {
				return bad("there can be at most one 'B'")
			}
			f.blank = true
			continue
		}
		if t.isDigit() {
			digits++
		}
		// After the first digit or point, S, MI or PR ends the number.
		switch state {
		case psInteger, psFraction, psAfterExponent, psHex:
			if t.isSign() {
				if f.sign != 0 {
					return bad("there can be at most one of 'S', 'MI', or 'PR'")
				}
				f.sign, state = t, psAfterSign
				continue
			}
		}
		switch state {
		case psTextMinimal:
			return bad(tmAlone)
		case psRoman:
			return bad("'RN' cannot appear together with '%s'", t.name())
		case psStart:
			switch {
			case t == ntS:
				f.sign, f.signFront, state = t, true, psInteger
			case t == ntMI || t == ntPR:
				return bad("'%s' can only appear after all digits and 'EEEE'", t.name())
			case t == nt9:
				has9, state = true, psInteger
			case t == nt0:
				state = psInteger
			case t.isHex():
				hasX, state = true, psHex
			case t == ntRNUpper || t == ntRNLower:
				f.roman, state = t, psRoman
			case t.isPoint():
				point, f.pointAt, state = t, len(f.layout)-1, psFraction
			case t.isTM():
				tm, state = t, psTextMinimal
			default:
				return bad("unexpected '%s'", t.name())
			}
		case psInteger:
			switch {
			case t.isExp():
				if hasGroup {
					return bad("',' or 'G' cannot appear together with 'EEEE'")
				}
				f.exponent, f.pointAt, state = true, len(f.layout)-1, psAfterExponent
			case t.isHex():
				if has9 {
					return bad("'X' cannot appear together with '9'")
				}
				if hasGroup {
					return bad("'X' cannot appear together with ',' or 'G'")
				}
				hasX, state = true, psHex // a format such as 00X
			case t == nt9:
				has9 = true
			case t == nt0:
			case t.isGroup():
				hasGroup = true
			case t.isPoint():
				point, f.pointAt, state = t, len(f.layout)-1, psFraction
			case t.isTM():
				return bad(tmAlone)
			default:
				return bad("unexpected '%s'", t.name())
			}
		case psFraction:
			switch {
			case t == nt0 || t == nt9:
				f.scale++
			case t.isHex():
				return bad("'X' cannot appear together with '%s'", point.name())
			case t.isExp():
				if hasGroup {
					return bad("',' or 'G' cannot appear together with 'EEEE'")
				}
				f.exponent, state = true, psAfterExponent
			case t.isPoint():
				return bad("there can be at most one of '.', 'D', or 'V'")
			case t.isGroup():
				return bad("',' or 'G' cannot appear after '.', 'D' or 'V'")
			default:
				return bad("unexpected '%s'", t.name())
			}
		case psAfterExponent:
			switch {
			case t.isGroup():
				return bad("',' or 'G' cannot appear together with 'EEEE'")
			default:
				return bad("'%s' cannot appear after 'EEEE'", t.name())
			}
		case psAfterSign:
			switch {
			case t.isDigit() || t.isExp():
				if f.sign == ntS {
					return bad("'S' can only appear before or after all digits and 'EEEE'")
				}
				return bad("'%s' can only appear after all digits and 'EEEE'", f.sign.name())
			default:
				return bad("unexpected format element '%s'", t.name())
			}
		case psHex:
			switch {
			case t == nt0 || t.isHex():
			default:
				return bad("'X' cannot appear together with '%s'", t.name())
			}
		}
	}

	// What the flags may not be combined with.
	if f.currency != 0 {
		switch {
		case tm != 0:
			return bad(tmAlone)
		case hasX:
			return bad("'X' cannot appear together with '%s'", f.currency.name())
		case f.roman != 0:
			return bad("'RN' cannot appear together with '%s'", f.currency.name())
		}
	}
	if f.blank {
		switch {
		case tm != 0:
			return bad(tmAlone)
		case hasX:
			return bad("'X' cannot appear together with 'B'")
		case f.roman != 0:
			return bad("'RN' cannot appear together with 'B'")
		}
	}
	if f.fm && tm != 0 {
		return bad(tmAlone)
	}
	switch {
	case tm != 0:
		f.out = outTextMinimal
		return f, nil
	case f.roman != 0:
		f.out = outRoman
		return f, nil
	case digits == 0:
		return bad("format string must contain at least one of 'X', '0' or '9'")
	case hasX && digits > 16:
		return bad("max number of 'X' is 16")
	case hasX:
		// A 0 writes its digit in the case of the next X or x, upper case
		// when none follows.
		f.out, f.pointAt = outHex, len(f.layout)
		next := ntXUpper
		for i := len(f.layout) - 1; i >= 0; i-- {
			if f.layout[i] == nt0 {
				f.layout[i] = next
			} else {
				next = f.layout[i]
			}
		}
		return f, nil
	}
	f.out = outDecimal
	f.intDigits = digits - f.scale
	if f.pointAt < 0 {
		f.pointAt = len(f.layout)
	}
	if f.exponent && f.pointAt >= 2 {
		// Scientific notation has one integer digit: 999.99EEEE is 9.99EEEE.
		// (No group separator can be among the integer elements here.)
		f.layout = f.layout[f.pointAt-1:]
		f.pointAt = 1
	}
	return f, nil
}

// FormatNumber writes an INT64, FLOAT64, NUMERIC or BIGNUMERIC value (not
// NULL) as CAST(v AS STRING FORMAT format) does. Errors wrap ErrBadCast.
func FormatNumber(v Value, format string) (string, error) {
	switch v.T.Kind {
	case KindInt64, KindFloat64, KindNumeric, KindBigNumeric:
	default:
		return "", castError("FORMAT writes INT64, FLOAT64, NUMERIC and BIGNUMERIC, not %s", v.T)
	}
	f, err := parseNumFormat(format)
	if err != nil {
		return "", err
	}
	switch f.out {
	case outHex:
		return f.writeHex(v), nil
	case outRoman:
		return f.writeRoman(v)
	case outTextMinimal:
		// ZetaSQL parses TM, TM9 and TME but does not implement them, and
		// BigQuery's docs do not list them.
		return "", castError("the text minimal format elements 'TM', 'TM9' and 'TME' are not supported")
	}
	return f.writeDecimal(numberText(v, f.scale, f.exponent, f.fm)), nil
}

// numText is a number rounded to the format's scale, as printf's "%.Nf" or
// "%.Ne" writes it, split into its parts.
type numText struct {
	neg      bool
	intPart  string // no leading zeros; "" when the integer part is 0
	frac     string // FM drops its trailing zeros
	exp      string // with EEEE: the exponent's sign and at least two digits
	inf, nan bool
}

// numberText rounds v to scale fraction digits, in scientific notation
// when exp is set. A FLOAT64 is rounded from its exact binary value, half
// to even (C's printf, which ZetaSQL uses); an INT64, NUMERIC or
// BIGNUMERIC is rounded half away from zero, as the decimal types round.
// The sign is the value's, even when it rounds to zero (-0.001 is "-.00"
// with 9.99), except that -0.0 is 0: ZetaSQL's CAST canonicalizes the
// zero.
func numberText(v Value, scale int, exp, fm bool) numText {
	var n numText
	switch v.T.Kind {
	case KindFloat64:
		x := v.F
		switch {
		case math.IsNaN(x):
			n.nan = true
			return n
		case math.IsInf(x, 0):
			n.inf, n.neg = true, x < 0
			return n
		}
		n.neg = x < 0
		x = math.Abs(x)
		if exp {
			s := strconv.FormatFloat(x, 'e', scale, 64)
			mant, e, _ := strings.Cut(s, "e")
			n.intPart, n.frac, _ = strings.Cut(mant, ".")
			n.exp = e
		} else {
			n.intPart, n.frac, _ = strings.Cut(strconv.FormatFloat(x, 'f', scale, 64), ".")
		}
	default:
		// Rounded half away from zero as FORMAT's %f and %e round them
		// (decimal_digits.go).
		text := strconv.FormatInt(v.I, 10)
		if v.T.Kind != KindInt64 {
			text = FormatDecimal(v)
		}
		d := SigDigitsOf(text)
		n.neg = d.Neg
		if exp {
			mant, e, _ := strings.Cut(d.sci(scale, false), "e")
			n.intPart, n.frac, _ = strings.Cut(mant, ".")
			n.exp = e
		} else {
			n.intPart, n.frac, _ = strings.Cut(d.fixed(scale, false), ".")
		}
	}
	if n.intPart == "0" {
		n.intPart = ""
	}
	if fm {
		n.frac = strings.TrimRight(n.frac, "0")
	}
	return n
}

// signText is what the sign elements write around a number: without one,
// a leading "-" or space.
func (f *numFormat) signText(neg, blank bool) (prefix, suffix string) {
	mark := func(ifNeg, ifNot string) string {
		if blank {
			return " "
		}
		if neg {
			return ifNeg
		}
		return ifNot
	}
	switch f.sign {
	case ntS:
		if f.signFront {
			return mark("-", "+"), ""
		}
		return "", mark("-", "+")
	case ntMI:
		return "", mark("-", " ")
	case ntPR:
		return mark("<", " "), mark(">", " ")
	}
	return mark("-", " "), ""
}

// currencyText is what the currency element writes.
func (f *numFormat) currencyText(blank bool) string {
	var s string
	switch f.currency {
	case ntDollar, ntL:
		s = "$"
	case ntCUpper:
		s = "USD"
	case ntCLower:
		s = "usd"
	}
	if blank {
		return strings.Repeat(" ", len(s))
	}
	return s
}

// finish joins the parts of the output: the padding, the sign's prefix,
// the currency, the number and the sign's suffix. FM drops the spaces.
func (f *numFormat) finish(pad int, prefix, currency, number, suffix string) string {
	if f.fm {
		pad = 0
	}
	s := strings.Repeat(" ", pad) + prefix + currency + number + suffix
	if f.fm {
		s = strings.Trim(s, " ")
	}
	return s
}

// writeDecimal writes a number with a decimal format. The output is as
// wide as the format (plus the sign's place when it has no sign element)
// and aligned on the decimal point: what the number leaves of the integer
// digits is padding on the left. A number with more integer digits than
// the format has is all '#'.
func (f *numFormat) writeDecimal(n numText) string {
	if n.inf || n.nan {
		return f.writeNonFinite(n)
	}
	overflow := len(n.intPart) > f.intDigits
	// B: a number whose integer part is 0 (once rounded) is all blanks.
	blank := f.blank && n.intPart == ""
	var frac strings.Builder
	fi := 0
	for _, t := range f.layout[f.pointAt:] {
		switch {
		case t == ntDot || t == ntD:
			frac.WriteByte(pick(blank, byte(' '), '.'))
		case t == ntV:
		case t.isDigit():
			switch {
			case overflow:
				frac.WriteByte('#')
			case fi < len(n.frac):
				frac.WriteByte(pick(blank, ' ', n.frac[fi]))
			}
			// Past the end of n.frac FM has dropped a trailing zero.
			fi++
		case t.isExp():
			switch {
			case overflow:
				frac.WriteString("####")
			case blank:
				frac.WriteString("    ")
			case t == ntELower:
				frac.WriteString("e" + n.exp)
			default:
				frac.WriteString("E" + n.exp)
			}
		}
	}
	// The integer digits are written when there are any, and for a zero
	// integer part only when something asks for one: EEEE, a 0 element
	// before the point, or no fraction digits to write (0 with 999 is 0,
	// 0 with 999.99 is .00).
	pad, digits := f.pointAt, ""
	if f.intDigits > 0 && (n.intPart != "" || f.exponent || (f.firstZero >= 0 && f.firstZero < f.pointAt) || n.frac == "") {
		pad, digits = f.integerDigits(n.intPart, overflow, blank)
	}
	prefix, suffix := f.signText(n.neg, blank)
	return f.finish(pad, prefix, f.currencyText(blank), digits+frac.String(), suffix)
}

// pick is a if cond, else b.
func pick[T any](cond bool, a, b T) T {
	if cond {
		return a
	}
	return b
}

// integerDigits fills the integer elements from the right with ip's
// digits and the group separators between them, then with zeros while a 0
// element is at or before the place; the elements left over on the left
// are padding, whose count it returns.
func (f *numFormat) integerDigits(ip string, overflow, blank bool) (int, string) {
	if ip == "" {
		ip = "0"
	}
	out := make([]byte, f.pointAt)
	at := f.pointAt
	di := len(ip) - 1
	for at > 0 {
		pos := at - 1
		if !overflow && di < 0 && (f.firstZero < 0 || pos < f.firstZero) {
			break
		}
		var c byte
		if f.layout[pos].isGroup() {
			c = pick(blank, byte(' '), ',')
		} else {
			switch {
			case overflow:
				c = '#'
			case blank:
				c = ' '
			case di >= 0:
				c = ip[di]
			default:
				c = '0'
			}
			di--
		}
		at--
		out[at] = c
	}
	return at, string(out[at:])
}

// writeNonFinite writes ±inf or NaN: INF or NAN (upper case whatever the
// format's case) in the last three integer places, blanks for the fraction,
// or, when fewer than three places precede the point, '#' in every digit
// place. With EEEE the word stands where the number would. NaN has no
// sign: the sign's places are blank.
func (f *numFormat) writeNonFinite(n numText) string {
	word := "INF"
	if n.nan {
		word = "NAN"
	}
	var pad int
	var number string
	if f.exponent {
		pad, number = len(f.layout), word
	} else {
		short := f.pointAt < len(word)
		var frac strings.Builder
		for _, t := range f.layout[f.pointAt:] {
			switch {
			case t == ntDot || t == ntD:
				frac.WriteByte(pick(short, byte('.'), ' '))
			case t.isDigit():
				frac.WriteByte(pick(short, byte('#'), ' '))
			}
		}
		fs := frac.String()
		if f.fm {
			fs = strings.Trim(fs, " ")
		}
		out := make([]byte, f.pointAt)
		at, wi := f.pointAt, len(word)-1
		for ; wi >= 0 && at > 0; wi-- {
			at--
			switch {
			case !short:
				out[at] = word[wi]
			case f.layout[at].isGroup():
				out[at] = ','
			default:
				out[at] = '#'
			}
		}
		pad, number = at, string(out[at:])+fs
	}
	prefix, suffix := f.signText(n.neg, false)
	if n.nan {
		prefix, suffix = strings.Repeat(" ", len(prefix)), strings.Repeat(" ", len(suffix))
	}
	return f.finish(pad, prefix, f.currencyText(false), number, suffix)
}

// writeHex writes a number with a hexadecimal format: its absolute value
// rounded half away from zero to an integer, in as many X places as it
// needs (more with 0s), the sign as for decimals. A value that does not fit
// the places, or not in 64 bits (NaN and ±inf included), is all '#'.
func (f *numFormat) writeHex(v Value) string {
	var neg, ok bool
	var u uint64
	switch v.T.Kind {
	case KindInt64:
		neg, ok = v.I < 0, true
		u = uint64(v.I)
		if neg {
			u = -u // two's complement: MinInt64 becomes 2^63
		}
	case KindFloat64:
		neg = v.F < 0
		r := math.Round(math.Abs(v.F))
		if ok = r < 1<<64; ok { // false for NaN too
			u = uint64(r)
		}
	default:
		x := v.Scaled()
		neg = x.Sign() < 0
		q := DivRound(x.Abs(x), specOf(v.T.Kind).unit)
		if ok = q.IsUint64(); ok {
			u = q.Uint64()
		}
	}
	hex := strconv.FormatUint(u, 16)
	pad, digits := f.integerDigits(hex, !ok || len(hex) > len(f.layout), false)
	b := []byte(digits)
	for i := range b {
		if f.layout[pad+i] == ntXUpper {
			b[i] = upperASCII(b[i])
		}
	}
	prefix, suffix := f.signText(neg, false)
	return f.finish(pad, prefix, "", string(b), suffix)
}

// romanWidth is the width of RN's output without FM: MMMDCCCLXXXVIII
// (3888) is the longest numeral.
const romanWidth = 15

// writeRoman writes a number in Roman numerals: rounded half away from
// zero to an integer, which must be 1 to 3999; right-aligned in 15 places
// unless FM; in lower case for rn.
func (f *numFormat) writeRoman(v Value) (string, error) {
	var x int64
	ok := true
	switch v.T.Kind {
	case KindInt64:
		x = v.I
	case KindFloat64:
		r := math.Round(v.F)
		ok = r >= 1 && r <= 3999 // false for NaN
		x = int64(r)
	default:
		x, ok = DecimalToInt(v)
	}
	if !ok || x < 1 || x > 3999 {
		return "", castError("%s is out of range for 'RN', which writes 1 to 3999", v)
	}
	var b strings.Builder
	for _, r := range []struct {
		n int64
		s string
	}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"},
		{50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for ; x >= r.n; x -= r.n {
			b.WriteString(r.s)
		}
	}
	s := b.String()
	if f.roman == ntRNLower {
		s = strings.ToLower(s)
	}
	if !f.fm {
		s = strings.Repeat(" ", romanWidth-len(s)) + s
	}
	return s, nil
}
