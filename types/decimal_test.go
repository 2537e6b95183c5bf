package types

import (
	"math/big"
	oldrand "math/rand"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Expected texts were computed with Python's decimal module (ROUND_HALF_UP
// is half away from zero), not with this package.
func TestParseFormatDecimal(t *testing.T) {
	for _, c := range []struct {
		t    Type
		in   string
		want string // "" for an error
	}{
		{Numeric, "0", "0"},
		{Numeric, "-0.0", "0"},
		{Numeric, "1.50", "1.5"},
		{Numeric, " +12.3456789015 ", "12.345678902"},
		{Numeric, "-12.3456789015", "-12.345678902"},
		{Numeric, "0.0000000004", "0"},
		{Numeric, "0.0000000005", "0.000000001"},
		{Numeric, "1.5e3", "1500"},
		{Numeric, "15E-1", "1.5"},
		{Numeric, ".5", "0.5"},
		{Numeric, "5.", "5"},
		{Numeric, "99999999999999999999999999999.999999999", "99999999999999999999999999999.999999999"},
		{Numeric, "99999999999999999999999999999.9999999995", ""}, // rounds past the range
		{Numeric, "-99999999999999999999999999999.999999999", "-99999999999999999999999999999.999999999"},
		{Numeric, "1e29", ""},
		{Numeric, "1e-100", "0"},
		{BigNumeric, "578960446186580977117854925043439539266.34992332820282019728792003956564819967", "578960446186580977117854925043439539266.34992332820282019728792003956564819967"},
		{BigNumeric, "578960446186580977117854925043439539266.34992332820282019728792003956564819968", ""},
		{BigNumeric, "-578960446186580977117854925043439539266.34992332820282019728792003956564819968", "-578960446186580977117854925043439539266.34992332820282019728792003956564819968"},
		{BigNumeric, "0.000000000000000000000000000000000000015", "0.00000000000000000000000000000000000002"},
		{Numeric, "", ""},
		{Numeric, ".", ""},
		{Numeric, "1e", ""},
		{Numeric, "1.2.3", ""},
		{Numeric, "--1", ""},
		{Numeric, "0x10", ""},
		{Numeric, "1_000", ""},
		{Numeric, "nan", ""},
		{Numeric, "1e9999999", ""},
	} {
		v, err := ParseDecimal(c.t, c.in)
		if c.want == "" {
			require.Error(t, err, "%s %q", c.t, c.in)
			continue
		}
		require.NoError(t, err, "%s %q", c.t, c.in)
		require.Equal(t, c.want, FormatDecimal(v), "%s %q", c.t, c.in)
	}
}

func TestDecimalConversions(t *testing.T) {
	f, err := DecimalFromFloat(BigNumeric, 0.1) // 0.1's binary value, rounded at 38 digits
	require.NoError(t, err)
	require.Equal(t, "0.10000000000000000555111512312578270212", FormatDecimal(f))
	f, err = DecimalFromFloat(Numeric, -2.5)
	require.NoError(t, err)
	require.Equal(t, "-2.5", FormatDecimal(f))
	_, err = DecimalFromFloat(Numeric, 1e38)
	require.ErrorIs(t, err, ErrDecimalOverflow)
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{{"2.5", 3, true}, {"-2.5", -3, true}, {"2.4999", 2, true}, {"9223372036854775807.4", 9223372036854775807, true}, {"9223372036854775807.5", 0, false}, {"-9223372036854775808.5", 0, false}} {
		v, err := ParseDecimal(Numeric, c.in)
		require.NoError(t, err)
		got, ok := DecimalToInt(v)
		require.Equal(t, c.ok, ok, c.in)
		if ok {
			require.Equal(t, c.want, got, c.in)
		}
	}
	require.Equal(t, "-9223372036854775808", FormatDecimal(DecimalFromInt(Numeric, -9223372036854775808)))
}

// The encoding's byte order is numeric order (what Compare, sorting and
// grouping rely on): random scaled integers, sorted both ways.
func TestDecimalEncodingOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	wide := oldrand.New(oldrand.NewSource(3)) // big.Int.Rand takes math/rand's
	for _, typ := range []Type{Numeric, BigNumeric} {
		s := specOf(typ.Kind)
		span := new(big.Int).Sub(s.max, s.min)
		var ints []*big.Int
		for i := 0; i < 500; i++ {
			var x *big.Int
			switch i % 4 {
			case 0: // anywhere in the range
				x = new(big.Int).Rand(wide, span)
				x.Add(x, s.min)
			case 1: // small, either sign
				x = big.NewInt(r.Int64N(2001) - 1000)
			default: // near the ends
				x = new(big.Int).Sub(s.max, big.NewInt(r.Int64N(3)))
				if i%4 == 3 {
					x = new(big.Int).Add(s.min, big.NewInt(r.Int64N(3)))
				}
			}
			ints = append(ints, x)
		}
		vals := make([]Value, len(ints))
		for i, x := range ints {
			v, err := DecimalValue(typ, x)
			require.NoError(t, err)
			require.Zero(t, v.Scaled().Cmp(x), "round trip of %s", x)
			vals[i] = v
		}
		slices.SortFunc(ints, func(a, b *big.Int) int { return a.Cmp(b) })
		slices.SortFunc(vals, func(a, b Value) int { c, _ := Compare(a, b); return c })
		for i := range ints {
			require.Zero(t, vals[i].Scaled().Cmp(ints[i]), "position %d of %s", i, typ)
		}
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "1.5", "-1e-3", " 12.3456789015 ", "99999999999999999999999999999.999999999", ".5e2", "1e38"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range []Type{Numeric, BigNumeric} {
			v, err := ParseDecimal(typ, s)
			if err != nil {
				continue
			}
			// The canonical text reads back as the same value.
			w, err := ParseDecimal(typ, FormatDecimal(v))
			if err != nil || w.S != v.S {
				t.Fatalf("%s %q: %q does not read back (%v)", typ, s, FormatDecimal(v), err)
			}
		}
	})
}
