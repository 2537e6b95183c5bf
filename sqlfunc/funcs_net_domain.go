package sqlfunc

import (
	"errors"
	"strings"
	"sync/atomic"

	"golang.org/x/net/idna"

	"logq/expr"
	"logq/types"
)

// NET.PUBLIC_SUFFIX and NET.REG_DOMAIN, as BigQuery has them: the ICANN
// public suffix of a URL's host (NET.HOST's), by the Public Suffix List
// (SetPublicSuffixList; package publicsuffixlist hands it over), and that suffix with the
// label before it. Private entries of the list (blogspot.com) are not
// suffixes: test.private.com's domain is private.com. NULL when the host
// is empty, an IPv6 literal, has two dots in a row between labels, has no
// ICANN suffix (a.b), or (REG_DOMAIN) is only a suffix. Labels are matched
// without regard to case (and internationalized ones by their punycode) and
// returned as written. The list is the one this build carries: a suffix
// added later is unknown until logq is rebuilt.
func registerNetDomainFuncs() {
	domain := func(extra int) func(c *expr.Call, a []types.Value) (types.Value, error) {
		return func(c *expr.Call, a []types.Value) (types.Value, error) {
			list := suffixList.Load()
			if list == nil {
				return types.Value{}, errNoSuffixList
			}
			labels, n := icannSuffix(*list, a[0].S)
			if n == 0 || n+extra > len(labels) {
				return types.NullOf(types.String), nil
			}
			return types.StringValue(strings.Join(labels[len(labels)-n-extra:], ".")), nil
		}
	}
	expr.Register("net.public_suffix", def(1, 1, sig(types.KindString, types.KindString), domain(0), false))
	expr.Register("net.reg_domain", def(1, 1, sig(types.KindString, types.KindString), domain(1), false))
}

// icannSuffix splits a URL's host into labels and says how many of the last
// ones are its ICANN public suffix (0: none).
func icannSuffix(list PublicSuffixList, url string) ([]string, int) {
	host, ok := netHost(url)
	if !ok || strings.HasPrefix(host, "[") {
		return nil, 0
	}
	host = strings.TrimLeft(host, ".")
	dot := strings.HasSuffix(host, ".") // kept on the answer, as BigQuery keeps it
	host = strings.TrimSuffix(host, ".")
	if host == "" || strings.Contains(host, "..") {
		return nil, 0
	}
	ascii := strings.ToLower(host)
	if !isASCII(ascii) {
		var err error
		if ascii, err = lookupIDNA.ToASCII(ascii); err != nil {
			return nil, 0
		}
	}
	labels := strings.Split(host, ".")
	if dot {
		labels[len(labels)-1] += "."
	}
	if strings.Count(ascii, ".") != len(labels)-1 {
		return nil, 0 // IDNA mapped a label into several: no telling which is which
	}
	for d := ascii; ; {
		s, icann := list(d)
		switch {
		case icann:
			return labels, strings.Count(s, ".") + 1
		case !strings.Contains(s, "."):
			return nil, 0 // only the list's default rule: not a known suffix
		}
		d = s[strings.IndexByte(s, '.')+1:] // a private entry: the ICANN one is below it
	}
}

// PublicSuffixList is a Public Suffix List lookup: the longest public
// suffix of a domain (lower case, punycode) and whether ICANN manages it
// (false for private entries and for the list's default rule).
type PublicSuffixList func(domain string) (suffix string, icann bool)

var suffixList atomic.Pointer[PublicSuffixList]

var errNoSuffixList = errors.New("NET.PUBLIC_SUFFIX and NET.REG_DOMAIN need the public suffix list, which this program was built without")

// SetPublicSuffixList gives the planner the list NET.PUBLIC_SUFFIX and
// NET.REG_DOMAIN look suffixes up in. The list's one implementation
// (golang.org/x/net/publicsuffix) links net/http, which the engine
// packages do not, so it is handed over from above (package
// publicsuffixlist).
func SetPublicSuffixList(l PublicSuffixList) { suffixList.Store(&l) }

// lookupIDNA maps internationalized labels to punycode for the lookup,
// without the STD3 rules (BigQuery takes _ and -- in labels).
var lookupIDNA = idna.New(idna.MapForLookup(), idna.StrictDomainName(false), idna.Transitional(false))

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
