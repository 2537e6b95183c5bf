package planner

import (
	"fmt"
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"logq/types"
)

// NORMALIZE(s[, mode]) and NORMALIZE_AND_CASEFOLD(s[, mode]): Unicode
// normalization in the form NFC (the default), NFKC, NFD or NFKD, then,
// for the second, full case folding — BigQuery's order. The mode is a
// bare name, read as a date part is (the binder turns it into a STRING).
func registerNormalizeFuncs() {
	check := func(c *Call) (types.Type, error) {
		s, err := coerceTo(c.Args[0], types.String)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument 1 of %s: %w", strings.ToUpper(c.Fn), err)
		}
		c.Args[0] = s
		if len(c.Args) == 2 {
			k, ok := c.Args[1].(*Const)
			if _, known := normForms[strings.ToUpper(k.V.S)]; !ok || k.V.T.Kind != types.KindString || !known {
				return types.Type{}, fmt.Errorf("%s takes the mode NFC, NFKC, NFD or NFKD", strings.ToUpper(c.Fn))
			}
		}
		return types.String, nil
	}
	normalize := func(fold bool) func(c *Call, a []types.Value) (types.Value, error) {
		return func(c *Call, a []types.Value) (types.Value, error) {
			form := norm.NFC
			if len(a) == 2 {
				form = normForms[strings.ToUpper(a[1].S)]
			}
			s := form.String(a[0].S)
			if fold {
				s = cases.Fold().String(s)
			}
			return types.StringValue(s), nil
		}
	}
	register("normalize", def(1, 2, check, normalize(false), false))
	register("normalize_and_casefold", def(1, 2, check, normalize(true), false))
}

var normForms = map[string]norm.Form{"NFC": norm.NFC, "NFKC": norm.NFKC, "NFD": norm.NFD, "NFKD": norm.NFKD}
