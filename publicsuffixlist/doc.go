// Package publicsuffixlist hands the Public Suffix List of
// golang.org/x/net/publicsuffix to the function library (expr.SetPublicSuffixList)
// when it is imported, for NET.PUBLIC_SUFFIX and NET.REG_DOMAIN. It is a
// package of its own because that list links net/http (for its cookiejar
// interface), which nothing below api may: api and the command import it,
// and so do the tests that run those functions.
package publicsuffixlist

import (
	"golang.org/x/net/publicsuffix"

	"logq/sqlfunc"
)

func init() { sqlfunc.SetPublicSuffixList(publicsuffix.PublicSuffix) }
