package types

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Tests for CAST … FORMAT on dates and times (cast_format_time.go).
//
// Every expectation below is transcribed, never computed by the code under
// test. The sources:
//
//   - docs: GoogleSQL's docs/format-elements.md, "Format date and time as
//     string" and "Format string as date and time";
//   - compliance: zetasql/compliance/testdata/cast_function.test;
//   - testlib: the CAST FORMAT tables of zetasql/compliance/
//     functions_testlib_timestamp.cc (GetCastStringToDateTimestampCommonTests
//     and the functions around it, GetCastFormat*Tests), which ZetaSQL runs
//     against its reference implementation and engines; the tables are
//     copied entry for entry and expanded to the four types as the C++ does;
//   - unit: zetasql/public/functions/cast_date_time_test.cc.
//
// Where the docs disagree with the tests (or with themselves), the docs case
// carries a note and expects what the tests expect: the tests are what the
// engine does.

// expectError is how ZetaSQL's parsing tables write an expected error.
const expectError = ""

// testParts says which types a shared parsing case applies to, as in
// ZetaSQL's TestFormatDateTimeParts.
type testParts uint8

const (
	pDate        testParts = iota // DATE, DATETIME, TIMESTAMP
	pTime                         // TIME, DATETIME, TIMESTAMP (on 1970-01-01)
	pDateAndTime                  // DATETIME, TIMESTAMP
	pZone                         // TIMESTAMP
	pAny                          // all four; only literals, so the value is the default
)

type parseCommon struct {
	format  string
	parts   testParts
	input   string
	current string // the current date ("" = 1970-01-01), whose year and month are defaults
	want    string // expectError, or the value in the form of a DATE/TIME/… literal
}

// parseCommonCases is GetCastStringToDateTimestampCommonTests (testlib),
// micro-second results (where a case has a nanosecond variant, the first
// expectation is the microsecond one, which is the one copied).
var parseCommonCases = []parseCommon{
	// Any unspecified field is initialized from
	// current_year(from <current_date>)-current_month(from <current_date>)-01
	// 00:00:00 in the default time zone. Value of <current_date> is set to
	// 1970-1-1 when it is not present.
	{"", pAny, "", "", "1970-01-01"},
	{"", pDate, "", "2002-02-02", "2002-02-01"},
	// Elements of "kLiteral" type.
	{"-", pAny, "-", "", "1970-01-01"},
	{"-", pAny, "--", "", expectError},
	{"-", pAny, "?", "", expectError},
	{".", pAny, ".", "", "1970-01-01"},
	{".", pAny, "..", "", expectError},
	{".", pAny, "?", "", expectError},
	{"/", pAny, "/", "", "1970-01-01"},
	{"/", pAny, "//", "", expectError},
	{"/", pAny, "?", "", expectError},
	{",", pAny, ",", "", "1970-01-01"},
	{",", pAny, ",,", "", expectError},
	{",", pAny, "?", "", expectError},
	{"'", pAny, "'", "", "1970-01-01"},
	{"'", pAny, "''", "", expectError},
	{"'", pAny, "?", "", expectError},
	{";", pAny, ";", "", "1970-01-01"},
	{";", pAny, ";;", "", expectError},
	{";", pAny, "?", "", expectError},
	{":", pAny, ":", "", "1970-01-01"},
	{":", pAny, "::", "", expectError},
	{":", pAny, "?", "", expectError},
	// Elements of "kWhitespace" type match one or more consecutive Unicode
	// whitespace characters. "\u1680" refers to a Unicode space "U+1680".
	{"- -", pAny, "- \n\t\u1680-", "", "1970-01-01"},
	{"- -", pAny, "- ?\t\u1680-", "", expectError},
	{"- -", pAny, "- \n\t\u1680\u1680\n\t -", "", "1970-01-01"},
	{"-  -", pAny, "- \n\t\u1680-", "", "1970-01-01"},
	{"-                -", pAny, "- \n\t\u1680-", "", "1970-01-01"},
	{"- -", pAny, "--", "", expectError},
	// A Sequence of whitespace characters other than ' ' (ASCII 32) will not
	// be parsed as an elemenet of "kWhitespace" type, therefore cannot match
	// any Unicode whitespace characters.
	{"-\n\r\t\u1680-", pAny, "-\n\r\t\u1680-", "", expectError},
	// Elements of "kDoubleQuotedLiteral" type.
	{`"abc"`, pAny, "abc", "", "1970-01-01"},
	{`""`, pAny, "", "", "1970-01-01"},
	// Escape sequences inside the format element of "kDoubleQuotedLiteral"
	// type.
	{`"abc\\"`, pAny, `abc\`, "", "1970-01-01"},
	{`"abc\""`, pAny, `abc"`, "", "1970-01-01"},
	// Only "\\" and "\"" escape sequences are supported inside format
	// elements of "kDoubleQuotedLiteral" type.
	{`"abc\t"`, pAny, "abc\t", "", expectError},
	// Missing the ending '"' to close the format element of
	// "kDoubleQuotedLiteral" type.
	{`"abc`, pAny, "abc", "", expectError},
	{`"abc\"`, pAny, "abc\"", "", expectError},
	{`"%ыфщыфщ"`, pAny, "%ыфщыфщ", "", "1970-01-01"},
	// Consecutive space characters (ASCII 32) inside format element of
	// "kDoubleQuotedLiteral" type can only match the same number of space
	// characters.
	{`-"  "-`, pAny, "-  -", "", "1970-01-01"},
	{`-"  "-`, pAny, "- -", "", expectError},
	{`-"  "-`, pAny, "- \n-", "", expectError},
	{`-"  "-`, pAny, "- \u1680-", "", expectError},
	{`-./,';: "abc"`, pAny, "-./,';:\n\t\u1680abc", "", "1970-01-01"},
	// Leading and trailing whitespaces in timestamp string.
	{"-,", pAny, "\u1680  -,   \u1680", "", "1970-01-01"},
	// Trailing empty format elements in the format string.
	{"--.\"\"\"\"", pAny, "--.", "", "1970-01-01"},
	// Elements in "kYear" category.
	// "YYYY" - year value.
	// TODO: "YYYY"/"RRRR" can successfully match integer strings
	// whose values are 0 ("0", "00", etc.) or 10000 with other format
	// elements. Change related cases when elements of "TIMEZONE" type are
	// added.
	{"YYYY", pDate, "", "", expectError},
	{"YYYY", pDate, "non_digit", "", expectError},
	{"YYYY", pDate, "-1", "", expectError},
	{"YYYY", pDate, "0", "", expectError},
	{"YYYY", pDate, "1", "", "0001-01-01"},
	{"YYYY", pDate, "12", "", "0012-01-01"},
	{"YYYY", pDate, "123", "", "0123-01-01"},
	{"YYYY", pDate, "1234", "", "1234-01-01"},
	{"YYYY", pDate, "01234", "", "1234-01-01"},
	{"YYYY", pDate, "001234", "", expectError},
	{"YYYY", pDate, "9999", "", "9999-01-01"},
	{"YYYY", pDate, "10000", "", expectError},
	{"YYYY", pDate, "10001", "", expectError},
	{"YYYY", pDate, "123456", "", expectError},
	{"YYYY", pDate, "1234", "2002-02-02", "1234-02-01"},
	// "YYY" - the last 3 digits of the year value.
	{"YYY", pDate, "", "", expectError},
	{"YYY", pDate, "non_digit", "", expectError},
	{"YYY", pDate, "-1", "", expectError},
	{"YYY", pDate, "0", "", "1000-01-01"},
	{"YYY", pDate, "1", "", "1001-01-01"},
	{"YYY", pDate, "12", "", "1012-01-01"},
	{"YYY", pDate, "123", "", "1123-01-01"},
	{"YYY", pDate, "0123", "", expectError},
	{"YYY", pDate, "00123", "", expectError},
	{"YYY", pDate, "999", "", "1999-01-01"},
	{"YYY", pDate, "123", "2002-02-02", "2123-02-01"},
	// "YY" - the last 2 digits of the year value.
	{"YY", pDate, "", "", expectError},
	{"YY", pDate, "non_digit", "", expectError},
	{"YY", pDate, "-1", "", expectError},
	{"YY", pDate, "0", "", "1900-01-01"},
	{"YY", pDate, "1", "", "1901-01-01"},
	{"YY", pDate, "12", "", "1912-01-01"},
	{"YY", pDate, "012", "", expectError},
	{"YY", pDate, "0012", "", expectError},
	{"YY", pDate, "99", "", "1999-01-01"},
	{"YY", pDate, "12", "2002-02-02", "2012-02-01"},
	// "Y" - the last digit of the year value.
	{"Y", pDate, "", "", expectError},
	{"Y", pDate, "non_digit", "", expectError},
	{"Y", pDate, "-1", "", expectError},
	{"Y", pDate, "0", "", "1970-01-01"},
	{"Y", pDate, "1", "", "1971-01-01"},
	{"Y", pDate, "01", "", expectError},
	{"Y", pDate, "001", "", expectError},
	{"Y", pDate, "9", "", "1979-01-01"},
	{"Y", pDate, "1", "2002-02-02", "2001-02-01"},
	// "RRRR" - year value. It has the same behavior as format element "YYYY".
	{"RRRR", pDate, "", "", expectError},
	{"RRRR", pDate, "non_digit", "", expectError},
	{"RRRR", pDate, "-1", "", expectError},
	{"RRRR", pDate, "0", "", expectError},
	{"RRRR", pDate, "1", "", "0001-01-01"},
	{"RRRR", pDate, "12", "", "0012-01-01"},
	{"RRRR", pDate, "123", "", "0123-01-01"},
	{"RRRR", pDate, "1234", "", "1234-01-01"},
	{"RRRR", pDate, "01234", "", "1234-01-01"},
	{"RRRR", pDate, "001234", "", expectError},
	{"RRRR", pDate, "9999", "", "9999-01-01"},
	{"RRRR", pDate, "10000", "", expectError},
	{"RRRR", pDate, "10001", "", expectError},
	{"RRRR", pDate, "123456", "", expectError},
	{"RRRR", pDate, "1234", "2002-02-02", "1234-02-01"},
	// "RR" - the last 2 digits of the year value. The first 2 digits of the
	// output year value can be different from that of the current year from
	// <current_date> (more details at (broken link))
	{"RR", pDate, "", "", expectError},
	{"RR", pDate, "non_digit", "", expectError},
	{"RR", pDate, "-1", "", expectError},
	{"RR", pDate, "0", "2002-01-01", "2000-01-01"},
	{"RR", pDate, "12", "2002-01-01", "2012-01-01"},
	{"RR", pDate, "51", "2002-01-01", "1951-01-01"},
	{"RR", pDate, "12", "2299-02-01", "2312-02-01"},
	{"RR", pDate, "51", "2299-02-01", "2251-02-01"},
	{"RR", pDate, "051", "2299-02-01", expectError},
	{"RR", pDate, "0051", "2299-02-01", expectError},
	// "Y,YYY" - year value in the pattern of "X,XXX" or "XX,XXX".
	{"Y,YYY", pDate, "", "", expectError},
	{"Y,YYY", pDate, "non_digit", "", expectError},
	{"Y,YYY", pDate, "-0,001", "", expectError},
	{"Y,YYY", pDate, "0,000", "", expectError},
	{"Y,YYY", pDate, ",111", "", expectError},
	{"Y,YYY", pDate, "0,111", "", "0111-01-01"},
	{"Y,YYY", pDate, "1,000", "", "1000-01-01"},
	{"Y,YYY", pDate, "01,000", "", "1000-01-01"},
	{"Y,YYY", pDate, "001,000", "", expectError},
	{"Y,YYY", pDate, "0001,000", "", expectError},
	{"Y,YYY", pDate, "9,222", "", "9222-01-01"},
	{"Y,YYY", pDate, "9,", "", expectError},
	{"Y,YYY", pDate, "9,2", "", expectError},
	{"Y,YYY", pDate, "9,22", "", expectError},
	{"Y,YYY", pDate, "9,2222", "", expectError},
	{"Y,YYY", pDate, "9,22222", "", expectError},
	{"Y,YYY", pDate, "1,012", "", "1012-01-01"},
	{"Y,YYY", pDate, "9,999", "", "9999-01-01"},
	{"Y,YYY", pDate, "10,000", "", expectError},
	{"Y,YYY", pDate, "10,001", "", expectError},
	{"Y,YYY", pDate, "9,999", "2002-02-02", "9999-02-01"},
	// Elements in "kMonth" category.
	// "MM" - month 1-12.
	{"MM", pDate, "", "", expectError},
	{"MM", pDate, "non_digit", "", expectError},
	{"MM", pDate, "0", "", expectError},
	{"MM", pDate, "1", "", "1970-01-01"},
	{"MM", pDate, "01", "", "1970-01-01"},
	{"MM", pDate, "001", "", expectError},
	{"MM", pDate, "0001", "", expectError},
	{"MM", pDate, "2", "", "1970-02-01"},
	{"MM", pDate, "12", "", "1970-12-01"},
	{"MM", pDate, "13", "", expectError},
	{"MM", pDate, "03", "2002-02-02", "2002-03-01"},
	// "MON" - abbreviated month name. The matching is case insensitive.
	{"MON", pDate, "", "", expectError},
	{"MON", pDate, "11", "", expectError},
	{"MON", pDate, "JAN", "", "1970-01-01"},
	{"MON", pDate, "Jan", "", "1970-01-01"},
	{"MON", pDate, "jan", "", "1970-01-01"},
	{"MON", pDate, "Feb", "", "1970-02-01"},
	{"MON", pDate, "Mar", "", "1970-03-01"},
	{"MON", pDate, "Apr", "", "1970-04-01"},
	{"MON", pDate, "May", "", "1970-05-01"},
	{"MON", pDate, "Jun", "", "1970-06-01"},
	{"MON", pDate, "Jul", "", "1970-07-01"},
	{"MON", pDate, "Aug", "", "1970-08-01"},
	{"MON", pDate, "Sep", "", "1970-09-01"},
	{"MON", pDate, "Sept", "", expectError},
	{"MON", pDate, "Oct", "", "1970-10-01"},
	{"MON", pDate, "Nov", "", "1970-11-01"},
	{"MON", pDate, "Dec", "", "1970-12-01"},
	{"MON", pDate, "NAM", "", expectError},
	{"MON", pDate, "Oct", "2002-02-02", "2002-10-01"},
	// "MONTH" - full month name. The matching is case insensitive.
	{"MONTH", pDate, "", "", expectError},
	{"MONTH", pDate, "11", "", expectError},
	{"MONTH", pDate, "January", "", "1970-01-01"},
	{"MONTH", pDate, "JANUARY", "", "1970-01-01"},
	{"MONTH", pDate, "january", "", "1970-01-01"},
	{"MONTH", pDate, "jAnUaRY", "", "1970-01-01"},
	{"MONTH", pDate, "February", "", "1970-02-01"},
	{"MONTH", pDate, "March", "", "1970-03-01"},
	{"MONTH", pDate, "April", "", "1970-04-01"},
	{"MONTH", pDate, "May", "", "1970-05-01"},
	{"MONTH", pDate, "June", "", "1970-06-01"},
	{"MONTH", pDate, "July", "", "1970-07-01"},
	{"MONTH", pDate, "August", "", "1970-08-01"},
	{"MONTH", pDate, "September", "", "1970-09-01"},
	{"MONTH", pDate, "October", "", "1970-10-01"},
	{"MONTH", pDate, "November", "", "1970-11-01"},
	{"MONTH", pDate, "December", "", "1970-12-01"},
	{"MONTH", pDate, "NotAMonth", "", expectError},
	{"MONTH", pDate, "July", "2002-02-02", "2002-07-01"},
	// Elements in "kDay" category.
	// "DD" - day of month 1-31.
	{"DD", pDate, "", "", expectError},
	{"DD", pDate, "non_digit", "", expectError},
	{"DD", pDate, "0", "", expectError},
	{"DD", pDate, "1", "", "1970-01-01"},
	{"DD", pDate, "01", "", "1970-01-01"},
	{"DD", pDate, "001", "", expectError},
	{"DD", pDate, "9", "", "1970-01-09"},
	{"DD", pDate, "09", "", "1970-01-09"},
	{"DD", pDate, "31", "", "1970-01-31"},
	{"DD", pDate, "32", "", expectError},
	{"DD", pDate, "15", "2002-02-02", "2002-02-15"},
	// Test different ordering and cases of "YYYY", "MM", "DD" format
	// elements, and they should all give the same result.
	{"YYYY MM DD", pDate, "2001 02 03", "", "2001-02-03"},
	{"YyYY dd Mm", pDate, "2001 03 02", "", "2001-02-03"},
	{"mM YyyY Dd", pDate, "02 2001 03", "", "2001-02-03"},
	{"mm dD YyYy", pDate, "02 03 2001", "", "2001-02-03"},
	{"DD YYYy mM", pDate, "03 2001 02", "", "2001-02-03"},
	{"dd Mm yyyy", pDate, "03 02 2001", "", "2001-02-03"},
	// Dates that do not exist.
	{"YYYY MM DD", pDate, "1234 4 31", "", expectError},
	{"YYYY MM DD", pDate, "2001 09 31", "", expectError},
	{"YYYY MM DD", pDate, "7777 02 29", "", expectError},
	{"YYYY MM DD", pDate, "1900 02 29", "", expectError},
	{"YYYY MM DD", pDate, "2004 02 29", "", "2004-02-29"},
	{"YYYY MM DD", pDate, "1600 02 29", "", "1600-02-29"},
	// Date boundaries and out-of-range cases.
	{"YYYY-MM-DD", pDate, "0001-01-01", "", "0001-01-01"},
	{"YYYY-MM-DD", pDate, "9999-12-31", "", "9999-12-31"},
	{"YYYY-MM-DD", pDate, "0000-12-31", "", expectError},
	{"YYYY-MM-DD", pDate, "10000-01-01", "", expectError},
	// Elements in "kHour" category.
	// "HH24" - hour value of a 24-hour clock.
	{"HH24", pTime, "", "", expectError},
	{"HH24", pTime, "non_digit", "", expectError},
	{"HH24", pTime, "-1", "", expectError},
	{"HH24", pTime, "0", "", "00:00:00"},
	{"HH24", pTime, "1", "", "01:00:00"},
	{"HH24", pTime, "01", "", "01:00:00"},
	{"HH24", pTime, "001", "", expectError},
	{"HH24", pTime, "0001", "", expectError},
	{"HH24", pTime, "2", "", "02:00:00"},
	{"HH24", pTime, "12", "", "12:00:00"},
	{"HH24", pTime, "13", "", "13:00:00"},
	{"HH24", pTime, "23", "", "23:00:00"},
	{"HH24", pTime, "24", "", expectError},
	{"HH24", pDateAndTime, "15", "2002-02-02", "2002-02-01 15:00:00"},
	// Elements in "kMinute" category.
	// "MI" - minutes 00-59.
	{"MI", pTime, "", "", expectError},
	{"MI", pTime, "non_digit", "", expectError},
	{"MI", pTime, "-1", "", expectError},
	{"MI", pTime, "0", "", "00:00:00"},
	{"MI", pTime, "1", "", "00:01:00"},
	{"MI", pTime, "01", "", "00:01:00"},
	{"MI", pTime, "001", "", expectError},
	{"MI", pTime, "0001", "", expectError},
	{"MI", pTime, "30", "", "00:30:00"},
	{"MI", pTime, "59", "", "00:59:00"},
	{"MI", pTime, "60", "", expectError},
	{"MI", pDateAndTime, "15", "2002-02-02", "2002-02-01 00:15:00"},
	// Elements in "kSecond" category.
	// "SS" - seconds 00-59.
	{"SS", pTime, "", "", expectError},
	{"SS", pTime, "non_digit", "", expectError},
	{"SS", pTime, "-1", "", expectError},
	{"SS", pTime, "0", "", "00:00:00"},
	{"SS", pTime, "1", "", "00:00:01"},
	{"SS", pTime, "01", "", "00:00:01"},
	{"SS", pTime, "001", "", expectError},
	{"SS", pTime, "0001", "", expectError},
	{"SS", pTime, "30", "", "00:00:30"},
	{"SS", pTime, "59", "", "00:00:59"},
	{"SS", pTime, "60", "", expectError},
	{"SS", pDateAndTime, "15", "2002-02-02", "2002-02-01 00:00:15"},
	// "SSSSS" - number of seconds past midnight.
	{"SSSSS", pTime, "", "", expectError},
	{"SSSSS", pTime, "non_digit", "", expectError},
	{"SSSSS", pTime, "-1", "", expectError},
	{"SSSSS", pTime, "0", "", "00:00:00"},
	{"SSSSS", pTime, "1", "", "00:00:01"},
	{"SSSSS", pTime, "01", "", "00:00:01"},
	{"SSSSS", pTime, "001", "", "00:00:01"},
	{"SSSSS", pTime, "0001", "", "00:00:01"},
	{"SSSSS", pTime, "00001", "", "00:00:01"},
	{"SSSSS", pTime, "000001", "", expectError},
	{"SSSSS", pTime, "0000001", "", expectError},
	{"SSSSS", pTime, "60", "", "00:01:00"},
	{"SSSSS", pTime, "3661", "", "01:01:01"},
	{"SSSSS", pTime, "36061", "", "10:01:01"},
	{"SSSSS", pTime, "86399", "", "23:59:59"},
	{"SSSSS", pTime, "86400", "", expectError},
	{"SSSSS", pDateAndTime, "3661", "2002-02-02", "2002-02-01 01:01:01"},
	// "FFN" - subsecond value. The value of "N" indicates the maximal number
	// of digits to parse.
	{"FF1", pTime, "", "", expectError},
	{"FF1", pTime, "non_digit", "", expectError},
	{"FF1", pTime, "-1", "", expectError},
	{"FF1", pTime, "0", "", "00:00:00.0"},
	{"FF1", pTime, "1", "", "00:00:00.1"},
	{"FF1", pTime, "12", "", expectError},
	{"FF1", pTime, "123", "", expectError},
	{"FF1", pDateAndTime, "1", "2002-02-02", "2002-02-01 00:00:00.1"},
	{"FF2", pTime, "", "", expectError},
	{"FF2", pTime, "non_digit", "", expectError},
	{"FF2", pTime, "-1", "", expectError},
	{"FF2", pTime, "0", "", "00:00:00.0"},
	{"FF2", pTime, "1", "", "00:00:00.1"},
	{"FF2", pTime, "01", "", "00:00:00.01"},
	{"FF2", pTime, "10", "", "00:00:00.1"},
	{"FF2", pTime, "12", "", "00:00:00.12"},
	{"FF2", pTime, "123", "", expectError},
	{"FF2", pTime, "1234", "", expectError},
	{"FF2", pDateAndTime, "12", "2002-02-02", "2002-02-01 00:00:00.12"},
	{"FF3", pTime, "", "", expectError},
	{"FF3", pTime, "non_digit", "", expectError},
	{"FF3", pTime, "-1", "", expectError},
	{"FF3", pTime, "0", "", "00:00:00.0"},
	{"FF3", pTime, "1", "", "00:00:00.1"},
	{"FF3", pTime, "01", "", "00:00:00.01"},
	{"FF3", pTime, "10", "", "00:00:00.1"},
	{"FF3", pTime, "010", "", "00:00:00.01"},
	{"FF3", pTime, "12", "", "00:00:00.12"},
	{"FF3", pTime, "123", "", "00:00:00.123"},
	{"FF3", pTime, "1234", "", expectError},
	{"FF3", pTime, "12345", "", expectError},
	{"FF3", pDateAndTime, "123", "2002-02-02", "2002-02-01 00:00:00.123"},
	{"FF4", pTime, "", "", expectError},
	{"FF4", pTime, "non_digit", "", expectError},
	{"FF4", pTime, "-1", "", expectError},
	{"FF4", pTime, "0", "", "00:00:00.0"},
	{"FF4", pTime, "1", "", "00:00:00.1"},
	{"FF4", pTime, "01", "", "00:00:00.01"},
	{"FF4", pTime, "10", "", "00:00:00.1"},
	{"FF4", pTime, "010", "", "00:00:00.01"},
	{"FF4", pTime, "12", "", "00:00:00.12"},
	{"FF4", pTime, "123", "", "00:00:00.123"},
	{"FF4", pTime, "1234", "", "00:00:00.1234"},
	{"FF4", pTime, "12345", "", expectError},
	{"FF4", pTime, "123456", "", expectError},
	{"FF4", pDateAndTime, "1234", "2002-02-02", "2002-02-01 00:00:00.1234"},
	{"FF5", pTime, "", "", expectError},
	{"FF5", pTime, "non_digit", "", expectError},
	{"FF5", pTime, "-1", "", expectError},
	{"FF5", pTime, "0", "", "00:00:00.0"},
	{"FF5", pTime, "1", "", "00:00:00.1"},
	{"FF5", pTime, "01", "", "00:00:00.01"},
	{"FF5", pTime, "10", "", "00:00:00.1"},
	{"FF5", pTime, "010", "", "00:00:00.01"},
	{"FF5", pTime, "12", "", "00:00:00.12"},
	{"FF5", pTime, "123", "", "00:00:00.123"},
	{"FF5", pTime, "1234", "", "00:00:00.1234"},
	{"FF5", pTime, "12345", "", "00:00:00.12345"},
	{"FF5", pTime, "123456", "", expectError},
	{"FF5", pTime, "1234567", "", expectError},
	{"FF5", pDateAndTime, "12345", "2002-02-02", "2002-02-01 00:00:00.12345"},
	{"FF6", pTime, "", "", expectError},
	{"FF6", pTime, "non_digit", "", expectError},
	{"FF6", pTime, "-1", "", expectError},
	{"FF6", pTime, "0", "", "00:00:00.0"},
	{"FF6", pTime, "1", "", "00:00:00.1"},
	{"FF6", pTime, "01", "", "00:00:00.01"},
	{"FF6", pTime, "10", "", "00:00:00.1"},
	{"FF6", pTime, "010", "", "00:00:00.01"},
	{"FF6", pTime, "12", "", "00:00:00.12"},
	{"FF6", pTime, "123", "", "00:00:00.123"},
	{"FF6", pTime, "1234", "", "00:00:00.1234"},
	{"FF6", pTime, "12345", "", "00:00:00.12345"},
	{"FF6", pTime, "123456", "", "00:00:00.123456"},
	{"FF6", pTime, "1234567", "", expectError},
	{"FF6", pTime, "12345678", "", expectError},
	{"FF6", pTime, "123456789", "", expectError},
	{"FF6", pDateAndTime, "123456", "2002-02-02", "2002-02-01 00:00:00.123456"},
	{"FF7", pTime, "", "", expectError},
	{"FF7", pTime, "non_digit", "", expectError},
	{"FF7", pTime, "-1", "", expectError},
	{"FF7", pTime, "0", "", "00:00:00.0"},
	{"FF7", pTime, "1", "", "00:00:00.1"},
	{"FF7", pTime, "01", "", "00:00:00.01"},
	{"FF7", pTime, "10", "", "00:00:00.1"},
	{"FF7", pTime, "010", "", "00:00:00.01"},
	{"FF7", pTime, "12", "", "00:00:00.12"},
	{"FF7", pTime, "123", "", "00:00:00.123"},
	{"FF7", pTime, "1234", "", "00:00:00.1234"},
	{"FF7", pTime, "12345", "", "00:00:00.12345"},
	{"FF7", pTime, "123456", "", "00:00:00.123456"},
	{"FF7", pTime, "1234567", "", "00:00:00.123456"},
	{"FF7", pTime, "12345678", "", expectError},
	{"FF7", pTime, "123456789", "", expectError},
	{"FF7", pDateAndTime, "1234567", "2002-02-02", "2002-02-01 00:00:00.123456"},
	{"FF8", pTime, "", "", expectError},
	{"FF8", pTime, "non_digit", "", expectError},
	{"FF8", pTime, "-1", "", expectError},
	{"FF8", pTime, "0", "", "00:00:00.0"},
	{"FF8", pTime, "1", "", "00:00:00.1"},
	{"FF8", pTime, "01", "", "00:00:00.01"},
	{"FF8", pTime, "10", "", "00:00:00.1"},
	{"FF8", pTime, "010", "", "00:00:00.01"},
	{"FF8", pTime, "12", "", "00:00:00.12"},
	{"FF8", pTime, "123", "", "00:00:00.123"},
	{"FF8", pTime, "1234", "", "00:00:00.1234"},
	{"FF8", pTime, "12345", "", "00:00:00.12345"},
	{"FF8", pTime, "123456", "", "00:00:00.123456"},
	{"FF8", pTime, "1234567", "", "00:00:00.123456"},
	{"FF8", pTime, "12345678", "", "00:00:00.123456"},
	{"FF8", pTime, "123456789", "", expectError},
	{"FF8", pTime, "1234567890", "", expectError},
	{"FF8", pDateAndTime, "12345678", "2002-02-02", "2002-02-01 00:00:00.123456"},
	{"FF9", pTime, "", "", expectError},
	{"FF9", pTime, "non_digit", "", expectError},
	{"FF9", pTime, "-1", "", expectError},
	{"FF9", pTime, "0", "", "00:00:00.0"},
	{"FF9", pTime, "1", "", "00:00:00.1"},
	{"FF9", pTime, "01", "", "00:00:00.01"},
	{"FF9", pTime, "10", "", "00:00:00.1"},
	{"FF9", pTime, "010", "", "00:00:00.01"},
	{"FF9", pTime, "12", "", "00:00:00.12"},
	{"FF9", pTime, "123", "", "00:00:00.123"},
	{"FF9", pTime, "1234", "", "00:00:00.1234"},
	{"FF9", pTime, "12345", "", "00:00:00.12345"},
	{"FF9", pTime, "123456", "", "00:00:00.123456"},
	{"FF9", pTime, "1234567", "", "00:00:00.123456"},
	{"FF9", pTime, "12345678", "", "00:00:00.123456"},
	{"FF9", pTime, "123456789", "", "00:00:00.123456"},
	{"FF9", pTime, "1234567890", "", expectError},
	{"FF9", pTime, "12345678901", "", expectError},
	{"FF9", pDateAndTime, "123456789", "2002-02-02", "2002-02-01 00:00:00.123456"},
	{"FF12", pTime, "", "", expectError},
	{"FF12", pTime, "1", "", expectError},
	{"FF12", pTime, "123456789321", "", expectError},
	{"FF12", pTime, "1234567893210", "", expectError},
	{"FF13", pTime, "1", "", expectError},
	{"FF14", pTime, "1", "", expectError},
	// Combined Time format elements.
	{"HH24:MI:SS.FF6", pTime, "01:02:03.040000", "", "01:02:03.040000"},
	{"HH:MI:SS.FF6 P.M.", pTime, "01:02:04.110000 A.M.", "", "01:02:04.110000"},
	{"HH12:MI:SS.FF6 A.M.", pTime, "01:12:05.123456 P.M.", "", "13:12:05.123456"},
	{"HH:MI:SS.FF9 A.M.", pTime, "01:12:05.123456789 P.M.", "", "13:12:05.123456"},
	// Time edge cases.
	{"HH24:MI:SS.FF6", pTime, "00:00:00.000000", "", "00:00:00.000000"},
	{"HH12:MI:SS.FF6 A.M.", pTime, "12:00:00.000000 A.M.", "", "00:00:00.000000"},
	{"HH24:MI:SS.FF6", pTime, "23:59:59.999999", "", "23:59:59.999999"},
	{"HH:MI:SS.FF6 A.M.", pTime, "11:59:59.999999 P.M.", "", "23:59:59.999999"},
	{"HH24:MI:SS.FF6", pTime, "-1:59:59.999999", "", expectError},
	{"HH24:MI:SS.FF6", pTime, "24:00:00.000000", "", expectError},
	{"HH24:MI:SS.FF9", pTime, "00:00:00.000000000", "", "00:00:00.000000"},
	{"HH24:MI:SS.FF9", pTime, "23:59:59.999999999", "", "23:59:59.999999"},
	{"HH24:MI:SS.FF9", pTime, "-1:59:59.999999999", "", expectError},
	{"HH24:MI:SS.FF9", pTime, "24:00:00.000000000", "", expectError},
	// Elements in "kTimeZone" category.
	// "TZH" - hour value of time zone offset with a leading sign from
	// {'+', '-', ' ' (same as '+')}.
	{"TZH", pZone, "", "", expectError},
	{"TZH", pZone, "UTC", "", expectError},
	{"TZH", pZone, "11", "", expectError},
	{"TZH", pZone, "+non_digit", "", expectError},
	{"TZH", pZone, "-15", "", expectError},
	{"TZH", pZone, "-14", "", "1970-01-01 00:00:00-14"},
	{"TZH", pZone, "-8", "", "1970-01-01 00:00:00-08"},
	{"TZH", pZone, "-08", "", "1970-01-01 00:00:00-08"},
	{"TZH", pZone, "-008", "", expectError},
	{"TZH", pZone, "-0008", "", expectError},
	{"TZH", pZone, "-1", "", "1970-01-01 00:00:00-01"},
	{"TZH", pZone, "-0", "", "1970-01-01 00:00:00+00"},
	// We use a preceding "." format element so that the space character in
	// the <input_string> will not be trimmed in parsing.
	{"TZH", pZone, "+0", "", "1970-01-01 00:00:00+00"},
	{".TZH", pZone, ". 0", "", "1970-01-01 00:00:00+00"},
	{"TZH", pZone, "+1", "", "1970-01-01 00:00:00+01"},
	{".TZH", pZone, ". 1", "", "1970-01-01 00:00:00+01"},
	{"TZH", pZone, "+12", "", "1970-01-01 00:00:00+12"},
	{".TZH", pZone, ". 12", "", "1970-01-01 00:00:00+12"},
	{"TZH", pZone, "+14", "", "1970-01-01 00:00:00+14"},
	{".TZH", pZone, ". 14", "", "1970-01-01 00:00:00+14"},
	{"TZH", pZone, "+15", "", expectError},
	{".TZH", pZone, ". 15", "", expectError},
	{"TZH", pZone, "+1", "2002-02-02", "2002-02-01 00:00:00+01"},
	// "TZM" - minute value of time zone offset.
	{"TZM", pZone, "", "", expectError},
	{"TZM", pZone, "non_digit", "", expectError},
	{"TZM", pZone, "-1", "", expectError},
	{"TZM", pZone, "0", "", "1970-01-01 00:00:00+00:00"},
	{"TZM", pZone, "1", "", "1970-01-01 00:00:00+00:01"},
	{"TZM", pZone, "01", "", "1970-01-01 00:00:00+00:01"},
	{"TZM", pZone, "001", "", expectError},
	{"TZM", pZone, "0001", "", expectError},
	{"TZM", pZone, "30", "", "1970-01-01 00:00:00+00:30"},
	{"TZM", pZone, "59", "", "1970-01-01 00:00:00+00:59"},
	{"TZM", pZone, "60", "", expectError},
	{"TZM", pZone, "15", "2002-02-02", "2002-02-01 00:00:00+00:15"},
	// Combiend Timezone format elements.
	{"TZHTZM", pZone, "UTC", "", expectError},
	{"TZHTZM", pZone, "-1401", "", expectError},
	{"TZHTZM", pZone, "-1400", "", "1970-01-01 00:00:00-14:00"},
	{"TZHTZM", pZone, "-0100", "", "1970-01-01 00:00:00-01:00"},
	{"TZHTZM", pZone, "-0050", "", "1970-01-01 00:00:00-00:50"},
	{"TZHTZM", pZone, "+0050", "", "1970-01-01 00:00:00+00:50"},
	{".TZHTZM", pZone, ". 0050", "", "1970-01-01 00:00:00+00:50"},
	{"TZHTZM", pZone, "+0159", "", "1970-01-01 00:00:00+01:59"},
	{".TZHTZM", pZone, ". 0159", "", "1970-01-01 00:00:00+01:59"},
	{"TZHTZM", pZone, "+1400", "", "1970-01-01 00:00:00+14:00"},
	{".TZHTZM", pZone, ". 1400", "", "1970-01-01 00:00:00+14:00"},
	{"TZHTZM", pZone, "+1401", "", expectError},
	{".TZHTZM", pZone, ". 1401", "", expectError},
	// Datetime/timestamp edge cases.
	{"YYYY-MM-DD HH24:MI:SS.FF6", pDateAndTime, "0001-01-01 00:00:00.000000", "", "0001-01-01 00:00:00.000000"},
	{"YYYY-MM-DD HH24:MI:SS.FF6TZH:TZM", pZone, "0000-12-31 16:08:00.000000-07:52", "", "0001-01-01 00:00:00.000000 UTC"},
	{"YYYY-MM-DD HH24:MI:SS.FF6", pDateAndTime, "9999-12-31 23:59:59.999999", "", "9999-12-31 23:59:59.999999"},
	{"YYYY-MM-DD HH24:MI:SS.FF6TZH:TZM", pZone, "10000-01-01 06:29:59.999999+06:30", "", "9999-12-31 23:59:59.999999 UTC"},
	{"YYYY-MM-DD HH24:MI:SS.FF6", pDateAndTime, "0000-12-31 23:59:59.999999", "", expectError},
	{"YYYY-MM-DD HH24:MI:SS.FF6TZH:TZM", pZone, "0000-12-31 16:07:59.999999-07:52", "", expectError},
	{"YYYY-MM-DD HH24:MI:SS.FF6", pDateAndTime, "10000-01-01 00:00:00.000000", "", expectError},
	{"YYYY-MM-DD HH24:MI:SS.FF6TZH:TZM", pZone, "10000-01-01 07:30:00.000000+06:30", "", expectError},
	{"YYYY-MM-DD HH24:MI:SS.FF9", pDateAndTime, "0001-01-01 00:00:00.000000000", "", "0001-01-01 00:00:00.000000"},
	{"YYYY-MM-DD HH24:MI:SS.FF9TZH:TZM", pZone, "0000-12-31 16:08:00.000000000-07:52", "", "0001-01-01 00:00:00.000000 UTC"},
	{"YYYY-MM-DD HH24:MI:SS.FF9", pDateAndTime, "9999-12-31 23:59:59.999999999", "", "9999-12-31 23:59:59.999999"},
	{"YYYY-MM-DD HH24:MI:SS.FF9TZH:TZM", pZone, "10000-01-01 06:29:59.999999999+06:30", "", "9999-12-31 23:59:59.999999 UTC"},
	{"YYYY-MM-DD HH24:MI:SS.FF9", pDateAndTime, "0000-12-31 23:59:59.999999999", "", expectError},
	{"YYYY-MM-DD HH24:MI:SS.FF9TZH:TZM", pZone, "0000-12-31 16:07:59.999999999-07:52", "", expectError},
	{"YYYY-MM-DD HH24:MI:SS.FF9", pDateAndTime, "10000-01-01 00:00:00.000000000", "", expectError},
	{"YYYY-MM-DD HH24:MI:SS.FF9TZH:TZM", pZone, "10000-01-01 07:30:00.000000000+06:30", "", expectError},
	// Test different cases of format elements, and they should all give the
	// same result.
	{"YYYY-MM-DD HH24:MI:SS.FF5", pDateAndTime, "1234-02-03 11:22:33.12345", "", "1234-02-03 11:22:33.12345"},
	{"YyYY-Mm-dD hh24:mI:sS.fF5", pDateAndTime, "1234-02-03 11:22:33.12345", "", "1234-02-03 11:22:33.12345"},
	{"YyyY-mm-Dd hH24:mi:Ss.ff5", pDateAndTime, "1234-02-03 11:22:33.12345", "", "1234-02-03 11:22:33.12345"},
	{"yyYY-mM-dd hH24:Mi:Ss.Ff5", pDateAndTime, "1234-02-03 11:22:33.12345", "", "1234-02-03 11:22:33.12345"},
	{"yyYY-mM-dd hH24:Mi:Ss.Ff5Tzh:tzM", pZone, "1234-02-03 11:22:33.12345 07:52", "", "1234-02-03 11:22:33.12345+07:52"},
	{"yyYY-mM-dd hH24:Mi:Ss.Ff5tzH:Tzm", pZone, "1234-02-03 11:22:33.12345 07:52", "", "1234-02-03 11:22:33.12345+07:52"},
	// Test cases about DigitCountRange of element. Please see details at
	// ComputeDigitCountRanges function in cast_date_time.cc.
	// There is no element that parses characters after "YYYY", so it can
	// consume up to 5 digits (note that element R"("")" consumes no
	// characters).
	{"YYYY", pDate, "01212", "", "1212-01-01"},
	{`YYYY""`, pDate, "1", "", "0001-01-01"},
	{`YYYY""""`, pDate, "12", "", "0012-01-01"},
	{`YYYY""""`, pDate, "123", "", "0123-01-01"},
	{`YYYY""""""`, pDate, "1234", "", "1234-01-01"},
	{`YYYY""`, pDate, "01234", "", "1234-01-01"},
	// The first character parsed by the elements after "YYYY" is not a digit,
	// so "YYYY" can parse up to 5 digits.
	{"YYYY-MM", pDate, "1-12", "", "0001-12-01"},
	{"YYYY,-MM", pDate, "12,-2", "", "0012-02-01"},
	{"YYYY   MM", pDate, "123\n12", "", "0123-12-01"},
	{`YYYY"":""MM`, pDate, "1234:2", "", "1234-02-01"},
	{`YYYY"""""";;MM`, pDate, "01234;;12", "", "1234-12-01"},
	{`YYYY""MON`, pDate, "00123apr", "", "0123-04-01"},
	{`YYYY""""MONTH`, pDate, "1octoBer", "", "0001-10-01"},
	{`YYYY""A.M.HH`, pDateAndTime, "00123A.M.11", "", "0123-01-01 11:00:00"},
	{`YYYY""""P.M.HH`, pDateAndTime, "1a.m.11", "", "0001-01-01 11:00:00"},
	{`YYYY""""TZH`, pZone, "123+1", "", "0123-01-01 00:00:00+01"},
	// The first character parsed by the elements after "YYYY" is a digit, so
	// "YYYY" parses exactly 4 digits from the input.
	{"YYYYMM", pDate, "01212", "", "0121-02-01"},
	{`YYYY""MM`, pDate, "01212", "", "0121-02-01"},
	{`YYYY""""""MM`, pDate, "01212", "", "0121-02-01"},
	{`YYYY""""""MM`, pDate, "0121", "", expectError},
	// Similarly, "RR" parses exactly 2 digits with the first element that
	// consumes characters after it being "MM".
	{"RRMM", pDate, "111", "2002-02-02", "2011-01-01"},
	{`RR""MM`, pDate, "111", "2002-02-02", "2011-01-01"},
	{`RR""MM`, pDate, "11", "2002-02-02", expectError},
	{"MMYYYY", pDate, "02212", "", "0212-02-01"},
	{"MMYYYY", pDate, "02", "", expectError},
	{"DDMM", pDate, "0212", "", "1970-12-02"},
	{"DDMM", pDate, "02", "", expectError},
	{"A.M.HH12DD", pDateAndTime, "a.m.1102", "", "1970-01-02 11:00:00"},
	{"A.M.HH12DD", pDateAndTime, "a.m.11", "", expectError},
	{"A.M.HHDD", pDateAndTime, "a.m.1102", "", "1970-01-02 11:00:00"},
	{"A.M.HHDD", pDateAndTime, "a.m.11", "", expectError},
	{`MI""HHA.M.`, pTime, "111A.M.", "", "01:11:00"},
	{`MI""""""HHA.M.`, pTime, "11A.M.", "", expectError},
	{`MI""HH12A.M.`, pTime, "111A.M.", "", "01:11:00"},
	{`MI""""""HH12A.M.`, pTime, "11A.M.", "", expectError},
	{`HH24""MI`, pTime, "231", "", "23:01:00"},
	{"HH24MI", pTime, "23", "", expectError},
	{`SS""HH24`, pTime, "231", "", "01:00:23"},
	{"SSHH24", pTime, "23", "", expectError},
	{`SSSSS""MM`, pDateAndTime, "036612", "", "1970-02-01 01:01:01"},
	{`SSSSS""""""MM`, pDateAndTime, "03661", "", expectError},
	{`FF4""SS`, pDateAndTime, "01212", "", "1970-01-01 00:00:02.0121"},
	{`FF4""""""SS`, pDateAndTime, "0121", "", expectError},
	{`FF4""SSSSS`, pDateAndTime, "01212", "", "1970-01-01 00:00:02.0121"},
	{`FF4""""""SSSSS`, pDateAndTime, "0121", "", expectError},
	{`TZM""FF4`, pZone, "121", "", "1970-01-01 00:00:00.1+00:12"},
	{`TZM""""""FF4`, pZone, "12", "", expectError},
	{`TZH""TZM`, pZone, "+121", "", "1970-01-01 00:00:00+12:01"},
	{`TZH""""""TZM`, pZone, "+12", "", expectError},
	// Whether the first character parsed by a "kDoubleQuotedLiteral" element
	// depends on the first characters inside quote.
	// The first character parsed by element R"("abc")" is not a digit since
	// the first character inside its quote ('a') is not a digit. Therefore,
	// the preceding element "YYYY" can parse up to 5 digits.
	{`YYYY"abc"`, pDate, "1abc", "", "0001-01-01"},
	{`YYYY"abc"`, pDate, "12abc", "", "0012-01-01"},
	{`YYYY"abc"`, pDate, "012abc", "", "0012-01-01"},
	{`YYYY"abc"`, pDate, "0012abc", "", "0012-01-01"},
	{`YYYY"abc"`, pDate, "00012abc", "", "0012-01-01"},
	// The first character parsed by element R"("9abc")" is a digit since the
	// first character inside its quote ('9') is a digit. Therefore, the
	// preceding element "YYYY" parses exactly 4 digits.
	{`YYYY"9abc"`, pDate, "00129abc", "", "0012-01-01"},
	{`YYYY"9abc"`, pDate, "0129abc", "", expectError},
	{`YYYY"9abc"`, pDate, "129abc", "", expectError},
	{`YYYY"9abc"`, pDate, "000129abc", "", expectError},
	// More complicated cases.
	{`YYYY"9abc"MM"""""def"`, pDate, "00129abc3def", "", "0012-03-01"},
	{`YYYY"""abc"MM"""2def"`, pDate, "12abc012def", "", "0012-01-01"},
	{`MM"""abc"YYYY"""2def"`, pDate, "2abc20122def", "", "2012-02-01"},
	{"HH24MISSFF9", pTime, "123456789", "", "12:34:56.789"},
	// Error cases.
	// Returns error if input strings are not valid UTF-8.
	{"£\xff£", pAny, "£\xff£", "", expectError},
	// Unrecognized format element.
	{"invalid_element", pAny, "1", "", expectError},
	// Format elements not supported for parsing yet.
	{"IYYY", pAny, "1", "", expectError},
	{"IYY", pAny, "1", "", expectError},
	{"IY", pAny, "1", "", expectError},
	{"I", pAny, "1", "", expectError},
	{"SYYYY", pAny, "1", "", expectError},
	{"YEAR", pAny, "1", "", expectError},
	{"SYEAR", pAny, "1", "", expectError},
	{"RM", pAny, "1", "", expectError},
	{"D", pAny, "1", "", expectError},
	{"DAY", pAny, "1", "", expectError},
	{"DY", pAny, "1", "", expectError},
	{"J", pAny, "1", "", expectError},
	{"CC", pAny, "1", "", expectError},
	{"SCC", pAny, "1", "", expectError},
	{"Q", pAny, "1", "", expectError},
	{"IW", pAny, "1", "", expectError},
	{"WW", pAny, "1", "", expectError},
	{"W", pAny, "1", "", expectError},
	{"AD", pAny, "1", "", expectError},
	{"BC", pAny, "1", "", expectError},
	{"A.D.", pAny, "1", "", expectError},
	{"B.C.", pAny, "1", "", expectError},
	{"SP", pAny, "1", "", expectError},
	{"TH", pAny, "1", "", expectError},
	{"SPTH", pAny, "1", "", expectError},
	{"THSP", pAny, "1", "", expectError},
	{"FM", pAny, "1", "", expectError},
	// Format strings are missing specific format elements or contain
	// format elements that cannot be present simultaneously.
	{"Mi MI", pAny, "50 50", "", expectError},
	{"fF2 Ff2", pAny, "50 50", "", expectError},
	{"YYYY RR", pAny, "1950 50", "", expectError},
	{"Month MM", pAny, "FEBRUARY 11", "", expectError},
	{"HH24 HHA.M.", pAny, "13 11A.M.", "", expectError},
	{"HH24 hh12A.M.", pAny, "13 11A.M.", "", expectError},
	{"hh", pAny, "11", "", expectError},
	{"Hh12", pAny, "11", "", expectError},
	{"A.M.", pAny, "A.M.", "", expectError},
	{"P.M.", pAny, "A.M.", "", expectError},
	{"SSSSS HH12A.M.", pAny, "3601 11A.M.", "", expectError},
	{"SSSSS Mi", pAny, "3601 50", "", expectError},
	{"Ss SSSSS", pAny, "50 3601", "", expectError},
}

// hour12Cases is the loop at the end of GetCastStringToDateTimestampCommonTests
// (testlib): HH and HH12, each with A.M. and P.M., on either side.
func hour12Cases() []parseCommon {
	var out []parseCommon
	for _, hour12 := range []string{"HH", "HH12"} {
		for _, meridian := range []string{"A.M.", "P.M."} {
			hm, mh := hour12+meridian, meridian+hour12
			add := func(format string, parts testParts, input, current, want string) {
				out = append(out, parseCommon{format, parts, input, current, want})
			}
			add(hm, pTime, "", "", expectError)
			add(mh, pTime, "", "", expectError)
			add(hm, pTime, "01", "", expectError)
			add(mh, pTime, "A.M.", "", expectError)
			add(hm, pTime, "0A.M.", "", expectError)
			add(hm, pTime, "1A.M.", "", "01:00:00")
			add(hm, pTime, "01a.M.", "", "01:00:00")
			add(hm, pTime, "001a.m.", "", expectError)
			add(hm, pTime, "0001a.m.", "", expectError)
			add(hm, pTime, "1AM", "", expectError)
			add(hm, pTime, "1pm", "", expectError)
			add(hm, pTime, "1Zm", "", expectError)
			add(mh, pTime, "A.m.1", "", "01:00:00")
			add(hm, pTime, "2A.M.", "", "02:00:00")
			add(mh, pTime, "a.M.2", "", "02:00:00")
			add(hm, pTime, "12A.m.", "", "00:00:00")
			add(mh, pTime, "a.m.12", "", "00:00:00")
			add(hm, pTime, "13A.M.", "", expectError)
			add(mh, pTime, "a.M.13", "", expectError)
			add(hm, pTime, "0P.M.", "", expectError)
			add(hm, pTime, "1p.M.", "", "13:00:00")
			add(mh, pTime, "P.m.1", "", "13:00:00")
			add(hm, pTime, "2p.M.", "", "14:00:00")
			add(mh, pTime, "P.M.2", "", "14:00:00")
			add(hm, pTime, "12P.M.", "", "12:00:00")
			add(mh, pTime, "P.m.12", "", "12:00:00")
			add(hm, pTime, "13P.M.", "", expectError)
			add(mh, pTime, "P.M.13", "", expectError)
			add(hm, pDateAndTime, "11a.m.", "2002-02-02", "2002-02-01 11:00:00")
			add(mh, pDateAndTime, "P.M.2", "2002-02-02", "2002-02-01 14:00:00")
		}
	}
	return out
}

// parseInvalidElementCases is GetCastStringToDateTimestampInvalidElementTests
// (testlib): each format is an error for the types its parts exclude.
var parseInvalidElementCases = []struct {
	format string
	parts  testParts
	input  string
}{
	{"YYYY", pDate, "1111"},
	{"YYY", pDate, "111"},
	{"YY", pDate, "11"},
	{"Y", pDate, "1"},
	{"RRRR", pDate, "1111"},
	{"RR", pDate, "11"},
	{"Y,YYY", pDate, "1,111"},
	{"MM", pDate, "11"},
	{"MON", pDate, "JAN"},
	{"MONTH", pDate, "JANUARY"},
	{"DD", pDate, "11"},
	{"HHA.M.", pTime, "11A.M."},
	{"HHP.M.", pTime, "11A.M."},
	{"HH12A.M.", pTime, "11A.M."},
	{"HH12P.M.", pTime, "11A.M."},
	{"HH24", pTime, "11"},
	{"MI", pTime, "11"},
	{"SS", pTime, "11"},
	{"SSSSS", pTime, "11111"},
	{"FF1", pTime, "1"},
	{"FF2", pTime, "11"},
	{"FF3", pTime, "111"},
	{"FF4", pTime, "1111"},
	{"FF5", pTime, "11111"},
	{"FF6", pTime, "111111"},
	{"FF7", pTime, "1111111"},
	{"FF8", pTime, "11111111"},
	{"FF9", pTime, "111111111"},
	{"TZH", pZone, "+11"},
	{"TZM", pZone, "11"},
}

// parseTimestampZoneCases is GetCastStringToTimestampTests (testlib): a
// TIMESTAMP cast with AT TIME ZONE zone, now = 1970-01-01 00:00 UTC. (Its
// three cases with an invalid zone name are LoadLocation's business, not
// this cast's, and are left out; "0001-1-1" is written "0001-01-01".)
var parseTimestampZoneCases = []struct {
	format, input, zone, now, want string
}{
	// Test cases under <default_time_zone> different from "UTC". The current
	// timestamp "1970-1-1 UTC" is "1969-12-31 -01:00" under timezone
	// "-01:00", so the default year and default month become 1969 and 12 for
	// the test cases with "-01:00" as <default_time_zone> string (note
	// default day value is always 1).
	{"YYYY", "1234", "-01:00", "1970-01-01", "1234-12-01 00:00:00-01:00"},
	{"YYY", "123", "-01:00", "1970-01-01", "1123-12-01 00:00:00-01:00"},
	{"YY", "12", "-01:00", "1970-01-01", "1912-12-01 00:00:00-01:00"},
	{"Y", "1", "-01:00", "1970-01-01", "1961-12-01 00:00:00-01:00"},
	{"RRRR", "1234", "-01:00", "1970-01-01", "1234-12-01 00:00:00-01:00"},
	{"RR", "12", "-01:00", "1970-01-01", "2012-12-01 00:00:00-01:00"},
	{"Y,YYY", "1,234", "-01:00", "1970-01-01", "1234-12-01 00:00:00-01:00"},
	{"MM", "03", "-01:00", "1970-01-01", "1969-03-01 00:00:00-01:00"},
	{"MON", "MAR", "-01:00", "1970-01-01", "1969-03-01 00:00:00-01:00"},
	{"MONTH", "June", "-01:00", "1970-01-01", "1969-06-01 00:00:00-01:00"},
	{"YYMM", "1202", "-01:00", "1970-01-01", "1912-02-01 00:00:00-01:00"},
	{"DD", "02", "-01:00", "1970-01-01", "1969-12-02 00:00:00-01:00"},
	{"HHA.M.", "02a.m.", "-01:00", "1970-01-01", "1969-12-01 02:00:00-01:00"},
	{"HHP.M.", "02a.m.", "-01:00", "1970-01-01", "1969-12-01 02:00:00-01:00"},
	{"HH12A.M.", "02a.m.", "-01:00", "1970-01-01", "1969-12-01 02:00:00-01:00"},
	{"HH12P.M.", "02a.m.", "-01:00", "1970-01-01", "1969-12-01 02:00:00-01:00"},
	{"HH24", "6", "-01:00", "1970-01-01", "1969-12-01 06:00:00-01:00"},
	{"MI", "24", "-01:00", "1970-01-01", "1969-12-01 00:24:00-01:00"},
	{"SS", "24", "-01:00", "1970-01-01", "1969-12-01 00:00:24-01:00"},
	{"SSSSS", "24", "-01:00", "1970-01-01", "1969-12-01 00:00:24-01:00"},
	{"FF3", "234", "-01:00", "1970-01-01", "1969-12-01 00:00:00.234-01:00"},
	{"FF7", "2345678", "-01:00", "1970-01-01", "1969-12-01 00:00:00.234567-01:00"},
	{"HH24MISS", "062411", "-01:00", "1970-01-01", "1969-12-01 06:24:11-01:00"},
	{"TZH", "+01", "-01:59", "1970-01-01", "1969-12-01 00:00:00+01:00"},
	{"TZM", "13", "-01:59", "1970-01-01", "1969-12-01 00:00:00+00:13"},
	// The offset of "Pacific/Honolulu" time zone is always -10:00 and not
	// affected by Daylight Saving Time.
	{"TZH", "+02", "Pacific/Honolulu", "1970-01-01", "1969-12-01 00:00:00+02:00"},
	{"", "", "Pacific/Honolulu", "1970-01-01", "1969-12-01 00:00:00-10:00"},
	// Boundary cases with non-UTC <default_time_zone>.
	{"YYYY-MM-DD HH24:MI:SS.FF6", "0000-12-31 16:08:00.000000", "-07:52", "1970-01-01", "0001-01-01 00:00:00.000000 UTC"},
	{"YYYY-MM-DD HH24:MI:SS.FF6", "0000-12-31 16:07:59.999999", "-07:52", "1970-01-01", expectError},
	{"YYYY-MM-DD HH24:MI:SS.FF6", "10000-01-01 06:29:59.999999", "+06:30", "1970-01-01", "9999-12-31 23:59:59.999999 UTC"},
	{"YYYY-MM-DD HH24:MI:SS.FF6", "10000-01-01 06:30:00.000000", "+06:30", "1970-01-01", expectError},
	{"YYYY-MM-DD HH24:MI:SS.FF9", "0000-12-31 16:08:00.000000000", "-07:52", "1970-01-01", "0001-01-01 00:00:00.000000 UTC"},
	{"YYYY-MM-DD HH24:MI:SS.FF9", "0000-12-31 16:07:59.999999999", "-07:52", "1970-01-01", expectError},
	{"YYYY-MM-DD HH24:MI:SS.FF9", "10000-01-01 06:29:59.999999999", "+06:30", "1970-01-01", "9999-12-31 23:59:59.999999 UTC"},
	{"YYYY-MM-DD HH24:MI:SS.FF9", "10000-01-01 06:30:00.000000000", "+06:30", "1970-01-01", expectError},
	// 'YYYY'/'RRRR'/'Y,YYY' format elements can match integer values of 0 and
	// 10000 by changing <default_time_zone> values.
	{"YYYY-MM-DD", "10000-1-1", "+1:00", "1970-01-01", "9999-12-31 23:00:00 UTC"},
	{"RRRR-MM-DD", "10000-1-1", "+1:00", "1970-01-01", "9999-12-31 23:00:00 UTC"},
	{"Y,YYY-MM-DD", "10,000-1-1", "+1:00", "1970-01-01", "9999-12-31 23:00:00 UTC"},
	{"YYYY-MM-DD HH24", "0000-12-31 23", "-1:00", "1970-01-01", "0001-01-01 00:00:00 UTC"},
	{"RRRR-MM-DD HH24", "0000-12-31 23", "-1:00", "1970-01-01", "0001-01-01 00:00:00 UTC"},
	{"Y,YYY-MM-DD HH24", "0,000-12-31 23", "-1:00", "1970-01-01", "0001-01-01 00:00:00 UTC"},
	// The time zone offset yields timestamps outside the valid range.
	{"YYYY-MM-DD HH24:MI:SS", "9999-12-31 23:00:00", "-1:00", "1970-01-01", expectError},
	{"YYYY-MM-DD HH24:MI:SS", "0001-01-01 00:00:00", "+1:00", "1970-01-01", expectError},
}

// parseCase is one CAST(input AS kind FORMAT format [AT TIME ZONE zone]).
type parseCase struct {
	src    string
	format string
	kind   Kind
	input  string
	zone   string // "" = UTC
	now    string // the current date, "" = 1970-01-01
	want   string // expectError, or a literal of kind
}

// parseCases expands the shared tables to the four types as ZetaSQL's
// GetFunctionTestsCastStringTo* do, and adds the other sources.
func parseCases() []parseCase {
	var out []parseCase
	common := append(append([]parseCommon{}, parseCommonCases...), hour12Cases()...)
	for _, c := range common {
		src := "testlib common"
		if c.parts == pDate || c.parts == pAny {
			out = append(out, parseCase{src, c.format, KindDate, c.input, "", c.current, c.want})
		}
		if c.parts == pTime || c.parts == pAny {
			want := c.want
			if c.parts == pAny && want != expectError {
				want = "00:00:00"
			}
			out = append(out, parseCase{src, c.format, KindTime, c.input, "", c.current, want})
		}
		if c.parts != pZone {
			want := c.want
			if c.parts == pTime && want != expectError {
				want = "1970-01-01 " + want
			}
			out = append(out, parseCase{src, c.format, KindDatetime, c.input, "", c.current, want})
		}
		want := c.want
		if c.parts == pTime && want != expectError {
			want = "1970-01-01 " + want + "+00"
		}
		out = append(out, parseCase{src, c.format, KindTimestamp, c.input, "", c.current, want})
	}
	for _, c := range parseInvalidElementCases {
		src := "testlib invalid element"
		if c.parts == pTime || c.parts == pZone {
			out = append(out, parseCase{src, c.format, KindDate, c.input, "", "", expectError})
		}
		if c.parts == pDate || c.parts == pZone {
			out = append(out, parseCase{src, c.format, KindTime, c.input, "", "", expectError})
		}
		if c.parts == pZone {
			out = append(out, parseCase{src, c.format, KindDatetime, c.input, "", "", expectError})
		}
	}
	for _, c := range parseTimestampZoneCases {
		out = append(out, parseCase{"testlib timestamp", c.format, KindTimestamp, c.input, c.zone, c.now, c.want})
	}
	return append(out, parseExtraCases...)
}

// parseExtraCases come from the unit tests, the compliance file and the docs.
var parseExtraCases = []parseCase{
	// unit: TestValidateFormatStringForParsing. Model errors, whatever the input.
	{"unit", "£\xff£", KindDate, "", "", "", expectError},
	{"unit", "invalid_element", KindDate, "", "", "", expectError},
	{"unit", "DAY", KindDate, "", "", "", expectError},
	{"unit", "DAY", KindTimestamp, "", "", "", expectError},
	{"unit", "MONmoN", KindDate, "", "", "", expectError},
	{"unit", "YYYYRR", KindDatetime, "", "", "", expectError},
	{"unit", "MonthMM", KindTimestamp, "", "", "", expectError},
	{"unit", "MiMI", KindTime, "", "", "", expectError},
	{"unit", "fF2Ff2", KindTime, "", "", "", expectError},
	{"unit", "HH24HH", KindTime, "", "", "", expectError},
	{"unit", "HH24hh12", KindDatetime, "", "", "", expectError},
	{"unit", "HH24A.M.", KindTimestamp, "", "", "", expectError},
	{"unit", "hh", KindTime, "", "", "", expectError},
	{"unit", "Hh12", KindTime, "", "", "", expectError},
	{"unit", "A.M.", KindTime, "", "", "", expectError},
	{"unit", "SSSSSHH12A.M.", KindTime, "", "", "", expectError},
	{"unit", "SSSSSMi", KindTime, "", "", "", expectError},
	{"unit", "SsFF2SSSSS", KindTime, "", "", "", expectError},
	{"unit", "HH24", KindDate, "", "", "", expectError},
	{"unit", "HH A.M.", KindDate, "", "", "", expectError},
	{"unit", "MI", KindDate, "", "", "", expectError},
	{"unit", "SS", KindDate, "", "", "", expectError},
	{"unit", "TZM", KindDate, "", "", "", expectError},
	{"unit", "YYYY", KindTime, "", "", "", expectError},
	{"unit", "MM", KindTime, "", "", "", expectError},
	{"unit", "DD", KindTime, "", "", "", expectError},
	{"unit", "TZH", KindTime, "", "", "", expectError},
	{"unit", "TZM", KindDatetime, "", "", "", expectError},
	// unit: the String*Caster tests.
	{"unit", "YYYY-MM-DD", KindDate, "\xc3\x28", "", "", expectError},
	{"unit", "YYYY-MM-DD", KindDate, "9999-12-31", "", "", "9999-12-31"},
	{"unit", "YYYY MM DD HH24:MI:SS", KindDatetime, "\xc3\x28", "", "", expectError},
	{"unit", "YYYY MM DD HH24:MI:SS", KindDatetime, "1234 01 02 03:04:05", "", "", "1234-01-02 03:04:05"},
	{"unit", "HH24.MI.SS", KindTime, "\xc3\x28", "", "", expectError},
	{"unit", "HH24.MI.SS", KindTime, "01.02.03", "", "", "01:02:03"},
	{"unit", "YYYY MM DD HH24:MI:SS", KindTimestamp, "\xc3\x28", "", "", expectError},
	{"unit", "YYYY MM DD HH24:MI:SS", KindTimestamp, "1973 11 29 21:33:09", "", "", "1973-11-29 21:33:09+00"},

	// compliance: cast_string_to_date_and_time_simple.
	{"compliance", "yyyy-mm-dd", KindDate, "1234-05-06", "", "", "1234-05-06"},
	{"compliance", "yyyy-mm-dd hh24:mi:ss", KindDatetime, "1234-05-06 07:08:09", "", "", "1234-05-06 07:08:09"},
	{"compliance", "hh24:mi:ss", KindTime, "07:08:09", "", "", "07:08:09"},
	{"compliance", "yyyy-mm-dd hh24:mi:ss", KindTimestamp, "1234-05-06 07:08:09", "+7:00", "", "1234-05-06 00:08:09+00"},
	// compliance: cast_string_to_default_value_* (CURRENT_DATE's year and
	// month, day 01, midnight), here with today = 2024-06-17.
	{"compliance", "", KindDate, "", "", "2024-06-17", "2024-06-01"},
	{"compliance", "", KindDatetime, "", "", "2024-06-17", "2024-06-01 00:00:00"},
	{"compliance", "", KindTime, "", "", "2024-06-17", "00:00:00"},
	{"compliance", "", KindTimestamp, "", "", "2024-06-17", "2024-06-01 00:00:00+00"},
	// compliance: cast_string_to_timestamp_dst.
	{"compliance", "YYYY-MM-DD", KindTimestamp, "2021-11-01", "America/Los_Angeles", "", "2021-11-01 07:00:00+00"},
	{"compliance", "YYYY-MM-DD", KindTimestamp, "2021-11-21", "America/Los_Angeles", "", "2021-11-21 08:00:00+00"},
	// compliance: cast_string_to_*_invalid_format.
	{"compliance", "yyyymi", KindDate, "1234-05-06", "", "", expectError},
	{"compliance", "yyyymitzh", KindDatetime, "1234-05-06", "", "", expectError},
	{"compliance", "yyyymi", KindTime, "1234-05-06", "", "", expectError},
	{"compliance", "yyyyyyyy", KindTimestamp, "1234-05-06", "", "", expectError},

	// docs: "Format string as year part", current date March 23, 2021.
	{"docs", "MM-DD-YYYY", KindDate, "03-12-2018", "", "2021-03-23", "2018-03-12"},
	// The docs print "2018-12-03" for the line above, swapping month and
	// day against the format; and they read YYYY '18' as 2018-03-01, but a
	// lone YYYY reads 1 to 5 digits as the whole year (testlib: YYYY '12'
	// is 0012-01-01).
	{"docs", "YYYY", KindDate, "18", "", "2021-03-23", "0018-03-01"},
	// The docs give 10000-12-03, beyond DATE's range (testlib: YYYY-MM-DD
	// '10000-01-01' is an error).
	{"docs", "YYYY-MMDD", KindDate, "10000-1203", "", "2021-03-23", expectError},
	{"docs", "YYY-MM-DD", KindDate, "018-12-03", "", "2021-03-23", "2018-12-03"},
	{"docs", "YYY-MM-DD", KindDate, "038-12-03", "", "2021-03-23", "2038-12-03"},
	{"docs", "YY-MM-DD", KindDate, "18-12-03", "", "2021-03-23", "2018-12-03"},
	{"docs", "YY-MM-DD", KindDate, "38-12-03", "", "2021-03-23", "2038-12-03"},
	// Y keeps the current year's other digits: the docs' 2008 needs a
	// current year in 2000–2009.
	{"docs", "Y-MM-DD", KindDate, "8-12-03", "", "2005-06-01", "2008-12-03"},
	// Y,YYY: the docs print 2008-12-03, a typo (testlib: Y,YYY '1,012' is
	// year 1012).
	{"docs", "Y,YYY-MM-DD", KindDate, "2,018-12-03", "", "2021-03-23", "2018-12-03"},
	{"docs", "RR-MM-DD", KindDate, "18-12-03", "", "2021-03-23", "2018-12-03"},
	{"docs", "RR-MM-DD", KindDate, "18-12-03", "", "2050-03-23", "2118-12-03"},
	// The docs' RR rule gives 1950 in 2021 (50–99 in a first-half year is
	// the previous century); their example says 2050. testlib agrees with
	// the rule: RR '51' in 2002 is 1951.
	{"docs", "RR-MM-DD", KindDate, "50-12-03", "", "2021-03-23", "1950-12-03"},
	{"docs", "RR-MM-DD", KindDate, "50-12-03", "", "2050-03-23", "2050-12-03"},
	{"docs", "YY-MM-DD", KindDate, "18-12-03", "", "2021-03-23", "2018-12-03"},
	// docs: month and day parts.
	{"docs", "MON DD, YYYY", KindDate, "DEC 03, 2018", "", "", "2018-12-03"},
	{"docs", "MONTH DD, YYYY", KindDate, "DECEMBER 03, 2018", "", "", "2018-12-03"},
	// docs: hour, minute, second and meridian parts.
	{"docs", "HH:MI P.M.", KindTime, "03:30 P.M.", "", "", "15:30:00"},
	{"docs", "HH24:MI", KindTime, "15:30", "", "", "15:30:00"},
	{"docs", "HH:MI:SS P.M.", KindTime, "03:30:02 P.M.", "", "", "15:30:02"},
	{"docs", "SSSSS", KindTime, "03723", "", "", "01:02:03"},
	// FFn reads at most n digits: the docs' FF1 example ('.16' → .2)
	// contradicts testlib (FF1 '12' is an error).
	{"docs", "HH24:MI:SS.FF1", KindTime, "01:05:07.16", "", "", expectError},
	{"docs", "HH24:MI:SS.FF2", KindTime, "01:05:07.16", "", "", "01:05:07.16"},
	// The docs' input for FF3 reads 'FF3: 01:05:07.16', which the format
	// doesn't match; without the stray prefix it is 01:05:07.160.
	{"docs", "HH24:MI:SS.FF3", KindTime, "FF3: 01:05:07.16", "", "", expectError},
	{"docs", "HH24:MI:SS.FF3", KindTime, "01:05:07.16", "", "", "01:05:07.16"},
	{"docs", "HH:MI A.M.", KindTime, "03:30 A.M.", "", "", "03:30:00"},
	{"docs", "HH:MI P.M.", KindTime, "03:30 A.M.", "", "", "03:30:00"},
	{"docs", "HH:MI A.M.", KindTime, "03:30 P.M.", "", "", "15:30:00"},
	{"docs", "HH:MI a.m.", KindTime, "03:30 a.m.", "", "", "03:30:00"},
	// docs: time zone part. The docs' formats use HH without A.M./P.M.,
	// which their own model rules (and testlib: 'hh' alone) make an error;
	// the same casts with HH24 give the docs' results.
	{"docs", "YYYY-MM-DD HH:MI:SSTZH", KindTimestamp, "2008-12-25 05:30:00-08", "", "", expectError},
	{"docs", "YYYY-MM-DD HH24:MI:SSTZH", KindTimestamp, "2008-12-25 05:30:00-08", "", "", "2008-12-25 05:30:00-08"},
	{"docs", "YYYY-MM-DD HH:MI:SSTZH", KindTimestamp, "2008-12-25 05:30:00+05.30", "", "", expectError},
	{"docs", "YYYY-MM-DD HH24:MI:SSTZH.TZM", KindTimestamp, "2008-12-25 05:30:00+05.30", "", "", "2008-12-25 05:30:00+05:30"},
	{"docs", "YYYY.MM.DD HH:MI:SSTZH", KindTimestamp, "2020.06.03 00:00:53+00", "", "", expectError},
	// (The docs print this result as 00:00:53.110+00; nothing in the
	// input gives the .110.)
	{"docs", "YYYY.MM.DD HH24:MI:SSTZH", KindTimestamp, "2020.06.03 00:00:53+00", "", "", "2020-06-03 00:00:53+00"},
	// docs: literals, "text" with escapes.
	{"docs", `"abc"`, KindDate, "abc", "", "2021-03-23", "2021-03-01"},
	{"docs", `"a\"b\\c"`, KindDate, `a"b\c`, "", "2021-03-23", "2021-03-01"},
	{"docs", "YY-MM-DD", KindDate, "18-12-03", "", "2021-03-23", "2018-12-03"},
}

type formatCase struct {
	src    string
	format string
	kind   Kind
	value  string // a literal of kind
	zone   string // TIMESTAMP's AT TIME ZONE, "" = UTC
	want   string
	fails  bool
}

// GetCastFormatLiteralTests, GetCommonCastFormatDateTests and
// GetCommonCastFormatTimeTests (testlib): expected against 2015-07-08
// 01:02:03.456789 (a DATE, DATETIME, TIME, or TIMESTAMP in
// America/Los_Angeles).
var (
	formatLiteralCommon = [][2]string{
		{`"abcd"`, "abcd"},
		{`"abcd"YYYY"efgh"`, "abcd2015efgh"},
		{`"%ыфщ"YYYY"ыфщ"`, "%ыфщ2015ыфщ"},
	}
	formatDateCommon = [][2]string{
		{"YYYY", "2015"}, {"RRRR", "2015"},
		{"YYY", "015"}, {"YY", "15"},
		{"RR", "15"}, {"Y", "5"},
		{"D", "4"}, {"DD", "08"},
		{"DDD", "189"}, {"Day", "Wednesday"},
		{"Dy", "Wed"}, {"DAy", "WEDNESDAY"},
		{"Month", "July"}, {"Mon", "Jul"},
		{"MM", "07"}, {"YYYY-MM-DD", "2015-07-08"},
	}
	formatTimeCommon = [][2]string{
		{"HH", "01"}, {"HH12", "01"},
		{"HH24", "01"}, {"MI", "02"},
		{"SS", "03"}, {"SSSSS", "03723"},
		{"FF1", "4"}, {"FF2", "45"},
		{"FF3", "456"}, {"FF4", "4567"},
		{"FF5", "45678"}, {"FF6", "456789"},
		{"FF7", "4567890"}, {"FF8", "45678900"},
		{"FF9", "456789000"}, {"A.M.", "A.M."},
		{"P.M.", "A.M."}, {"AM", "AM"},
		{"P.m.", "A.M."}, {"A.m.", "A.M."},
		{"a.m.", "a.m."}, {"a.M.", "a.m."},
		{"PM", "AM"}, {"HH:MI:SS.FF9 PM", "01:02:03.456789000 AM"},
	}
	formatInvalidForDate = []string{
		"HH", "HH12", "HH24", "MI", "SS", "SSSSS", "FF1", "FF2", "FF3", "FF4",
		"FF5", "FF6", "FF7", "FF8", "FF9", "A.M.", "P.M.", "TZH", "TZM"}
	formatInvalidForTime = []string{
		"YYYY", "YYY", "YY", "Y", "RRRR", "RR", "MM", "MON",
		"MONTH", "DAY", "DY", "DDD", "DD", "D", "TZH", "TZM"}
	formatInvalidForDatetime = []string{"TZH", "TZM"}
)

// formatCases expands the testlib tables as GetCastFormat*Tests do and adds
// the other sources.
func formatCases() []formatCase {
	var out []formatCase
	add := func(src, format string, kind Kind, value, zone, want string) {
		out = append(out, formatCase{src, format, kind, value, zone, want, false})
	}
	fail := func(src, format string, kind Kind, value, zone string) {
		out = append(out, formatCase{src, format, kind, value, zone, "", true})
	}

	// GetCastFormatDateTests: each date case as written, upper-cased and
	// lower-cased.
	const date = "2015-07-08"
	for _, c := range formatLiteralCommon {
		add("testlib date", c[0], KindDate, date, "", c[1])
	}
	for _, c := range formatDateCommon {
		add("testlib date", c[0], KindDate, date, "", c[1])
		add("testlib date", strings.ToUpper(c[0]), KindDate, date, "", strings.ToUpper(c[1]))
		add("testlib date", strings.ToLower(c[0]), KindDate, date, "", strings.ToLower(c[1]))
	}
	add("testlib date", "DDD", KindDate, "2000-01-01", "", "001")
	add("testlib date", "DDD", KindDate, "2000-12-31", "", "366")
	add("testlib date", "DDD", KindDate, "2001-12-31", "", "365")
	for _, f := range formatInvalidForDate {
		fail("testlib date", f, KindDate, date, "")
	}

	// GetCastFormatTimestampTests: kCommonTestTimestamp is 2015-07-08
	// 01:02:03.456789 in America/Los_Angeles (PDT, -07).
	const ts, la = "2015-07-08 01:02:03.456789-07", "America/Los_Angeles"
	add("testlib timestamp", "YYYY-MM-DD HH24:MI:SS", KindTimestamp, "1970-01-01 00:00:00+00", "UTC", "1970-01-01 00:00:00")
	add("testlib timestamp", "HH24", KindTimestamp, ts, la, "01")
	add("testlib timestamp", "HH24", KindTimestamp, ts, "Asia/Yangon", "14")
	add("testlib timestamp", "HH24", KindTimestamp, ts, "UTC", "08")
	for _, cases := range [][][2]string{formatLiteralCommon, formatDateCommon, formatTimeCommon} {
		for _, c := range cases {
			add("testlib timestamp", c[0], KindTimestamp, ts, la, c[1])
		}
	}
	add("testlib timestamp", "YYYY-MM-DD HH24:MI:SS.FF6TZH:TZM", KindTimestamp, "0001-01-01 00:00:00.000000+00", "UTC", "0001-01-01 00:00:00.000000+00:00")
	add("testlib timestamp", "YYYY-MM-DD HH24:MI:SS.FF6TZH:TZM", KindTimestamp, "9999-12-31 23:59:59.999999+00", "UTC", "9999-12-31 23:59:59.999999+00:00")
	add("testlib timestamp", "YYYY-MM-DD HH24:MI:SS.FF6TZH:TZM", KindTimestamp, "9999-12-31 23:59:59.999999+00", la, "9999-12-31 15:59:59.999999-08:00")
	add("testlib timestamp", "YYYY-MM-DD HH24:MI:SS.FF6TZH:TZM", KindTimestamp, "9999-12-31 23:59:59.999999+00", "Asia/Yangon", "10000-01-01 06:29:59.999999+06:30")
	// Before 1884 Los Angeles was at -07:52:58; the cast uses -07:52.
	const old = "1812-09-07 07:52:01+00"
	add("testlib timestamp", "YYYY-MM-DD HH24:MI:SS", KindTimestamp, old, la, "1812-09-07 00:00:01")
	add("testlib timestamp", "YYYY-MM-DD HH24:MI:SSTZHTZM", KindTimestamp, old, la, "1812-09-07 00:00:01-0752")
	add("testlib timestamp", "YYYYMMDD", KindTimestamp, old, la, "18120907")
	add("testlib timestamp", "HH24:MI:SS", KindTimestamp, old, la, "00:00:01")
	add("testlib timestamp", "Dy Mon  DD HH24:MI:SS YYYY", KindTimestamp, old, la, "Mon Sep  07 00:00:01 1812")

	// GetCastFormatDatetimeTests.
	const dt = "2015-07-08 01:02:03.456789"
	add("testlib datetime", "YYYY-MM-DD HH24:MI:SS.FF6", KindDatetime, "0001-01-01 00:00:00", "", "0001-01-01 00:00:00.000000")
	add("testlib datetime", "YYYY-MM-DD HH24:MI:SS.FF6", KindDatetime, "9999-12-31 23:59:59.999999", "", "9999-12-31 23:59:59.999999")
	for _, cases := range [][][2]string{formatLiteralCommon, formatDateCommon, formatTimeCommon} {
		for _, c := range cases {
			add("testlib datetime", c[0], KindDatetime, dt, "", c[1])
		}
	}
	for _, f := range formatInvalidForDatetime {
		fail("testlib datetime", f, KindDatetime, dt, "")
	}

	// GetCastFormatTimeTests.
	add("testlib time", "HH24", KindTime, "23:45:01", "", "23")
	add("testlib time", "HH24", KindTime, "01:45:01", "", "01")
	add("testlib time", "HH24", KindTime, "00:45:01", "", "00")
	add("testlib time", "HH A.M.", KindTime, "23:45:01", "", "11 P.M.")
	add("testlib time", "HH P.M.", KindTime, "12:45:01", "", "12 P.M.")
	add("testlib time", "HH AM", KindTime, "11:45:01", "", "11 AM")
	add("testlib time", "HH PM", KindTime, "00:45:01", "", "12 AM")
	add("testlib time", "HH12 AM", KindTime, "23:45:01", "", "11 PM")
	add("testlib time", "HH12 PM", KindTime, "12:45:01", "", "12 PM")
	add("testlib time", "HH12 A.M.", KindTime, "11:45:01", "", "11 A.M.")
	add("testlib time", "HH12 P.M.", KindTime, "00:45:01", "", "12 A.M.")
	add("testlib time", "HH24:MI:SS.FF6", KindTime, "00:00:00", "", "00:00:00.000000")
	add("testlib time", "HH24:MI:SS.FF6", KindTime, "23:59:59.999999", "", "23:59:59.999999")
	for _, c := range formatTimeCommon {
		add("testlib time", c[0], KindTime, "01:02:03.456789", "", c[1])
	}
	for _, f := range formatInvalidForTime {
		fail("testlib time", f, KindTime, "01:02:03.456789", "")
	}

	// unit: BasicCastFormatTimestampTest, 123456789012345 µs = Thursday,
	// 1973-11-29 21:33:09.012345 UTC.
	const thu = "1973-11-29 21:33:09.012345+00"
	add("unit", "DAY, MONTH DD, YYYY HH:MI:SS AM", KindTimestamp, thu, "UTC", "THURSDAY, NOVEMBER 29, 1973 09:33:09 PM")
	for _, c := range [][2]string{
		{"YYYY", "1973"}, {"YYY", "973"}, {"YY", "73"}, {"Y", "3"},
		{"RRRR", "1973"}, {"RR", "73"}, {"MM", "11"}, {"MON", "NOV"},
		{"MONTH", "NOVEMBER"}, {"Mon", "Nov"}, {"Month", "November"}, {"mon", "nov"},
		{"month", "november"}, {"DD", "29"}, {"DDD", "333"}, {"D", "5"},
		{"DAY", "THURSDAY"}, {"DY", "THU"}, {"HH", "09"}, {"Day", "Thursday"},
		{"Dy", "Thu"}, {"day", "thursday"}, {"dy", "thu"}, {"HH12", "09"},
		{"HH24", "21"}, {"MI", "33"}, {"SS", "09"}, {"SSSSS", "77589"},
		{"FF1", "0"}, {"FF2", "01"}, {"FF3", "012"}, {"FF4", "0123"},
		{"FF5", "01234"}, {"FF6", "012345"}, {"FF7", "0123450"}, {"FF8", "01234500"},
		{"FF9", "012345000"}, {"A.M.", "P.M."}, {"P.M.", "P.M."}, {"AM", "PM"},
		{"PM", "PM"}, {"TZH", "+00"}, {"TZM", "00"},
	} {
		add("unit", c[0], KindTimestamp, thu, "UTC", c[1])
	}
	// unit: UnsupportedCastFormatTimestampTest.
	for _, f := range []string{"IYY", "IY", "I", "RM", "J", "CC", "SCC", "Q", "IW", "WW", "W", "FM"} {
		fail("unit", f, KindTimestamp, thu, "UTC")
	}
	// unit: NonTraditionalYearTest.
	add("unit", "YYYY", KindTimestamp, "0776-01-31 12:10:05+00", "UTC", "0776")
	add("unit", "YYY", KindTimestamp, "0776-01-31 12:10:05+00", "UTC", "776")
	add("unit", "YYYY", KindTimestamp, "0076-01-31 12:10:05+00", "UTC", "0076")
	add("unit", "YYY", KindTimestamp, "0076-01-31 12:10:05+00", "UTC", "076")
	add("unit", "YYYY", KindTimestamp, "0006-01-31 12:10:05+00", "UTC", "0006")
	add("unit", "YYY", KindTimestamp, "0006-01-31 12:10:05+00", "UTC", "006")
	// unit: the *ToStringCaster tests.
	fail("unit", "A", KindDate, "2000-01-01", "")
	add("unit", "YYYY-MM-DD", KindDate, "9999-12-31", "", "9999-12-31")
	add("unit", "YYYY-MM-DD HH24:MI:SS", KindDatetime, "1234-01-02 03:04:05", "", "1234-01-02 03:04:05")
	add("unit", "HH24:MI:SS", KindTime, "14:01:02.000003", "", "14:01:02")
	add("unit", "YYYY-MM-DD HH24:MI:SS", KindTimestamp, "1973-11-29 21:33:09.012345+00", "UTC", "1973-11-29 21:33:09")
	// unit: ValidateFormatStringForFormatting*.
	for _, k := range []Kind{KindDate, KindDatetime, KindTime, KindTimestamp} {
		v := map[Kind]string{KindDate: "2000-01-01", KindDatetime: "2000-01-01 00:00:00", KindTime: "00:00:00", KindTimestamp: "2000-01-01 00:00:00+00"}[k]
		add("unit", "", k, v, "", "")
		fail("unit", "\xFF\xFF", k, v, "")
		fail("unit", "a", k, v, "")
		for _, f := range []string{"TZH", "TZM"} {
			if k != KindTimestamp {
				fail("unit", f, k, v, "")
			}
		}
		for _, f := range []string{"HH", "HH12", "HH24", "MI", "SS", "SSSSS", "FF1", "FF9", "AM", "A.M.", "PM", "P.M."} {
			if k == KindDate {
				fail("unit", f, k, v, "")
			}
		}
		for _, f := range []string{"YYYY", "YYY", "YY", "Y", "RRRR", "RR", "MM", "MON", "MONTH", "DD", "DDD", "DAY", "J", "DY", "D"} {
			if k == KindTime {
				fail("unit", f, k, v, "")
			}
		}
	}

	// compliance: cast_date_and_time_to_string_success and *_invalid_format.
	add("compliance", "DD-MM YYYY", KindDate, "1234-05-06", "", "06-05 1234")
	add("compliance", "HH12:MI:SS PM DD/MM/YYYY", KindDatetime, "1234-05-06 07:08:09", "", "07:08:09 AM 06/05/1234")
	add("compliance", "HH24:MI:SS", KindTime, "07:08:09", "", "07:08:09")
	add("compliance", "HH12:MI:SS PM DD/MM/YYYY  TZH:TZM", KindTimestamp, "1234-05-06 07:08:09-10", "-08:00", "09:08:09 AM 06/05/1234  -08:00")
	fail("compliance", "yyyymi", KindDate, "1234-05-06", "")
	fail("compliance", "yyyymitzh", KindDatetime, "1234-05-06 00:00:00", "")
	fail("compliance", "yyyymi", KindTime, "01:02:03", "")
	fail("compliance", "ab", KindTimestamp, "1234-05-06 00:00:00+00", "")
	// compliance: cast_string_to_default_value_{date,datetime}.
	add("compliance", "dd", KindDate, "2024-06-01", "", "01")
	add("compliance", "dd hh24:mi:ss.ff6", KindDatetime, "2024-06-01 00:00:00", "", "01 00:00:00.000000")

	// docs: "Format date and time as string".
	add("docs", "YYYY", KindDate, "2018-01-30", "", "2018")
	add("docs", "YYYY", KindDate, "0076-01-30", "", "0076")
	add("docs", "YYY", KindDate, "2018-01-30", "", "018")
	add("docs", "YYY", KindDate, "0098-01-30", "", "098")
	add("docs", "YY", KindDate, "2018-01-30", "", "18")
	add("docs", "YY", KindDate, "0008-01-30", "", "08")
	add("docs", "Y", KindDate, "2018-01-30", "", "8")
	add("docs", "RRRR", KindDate, "2018-01-30", "", "2018")
	add("docs", "RR", KindDate, "2018-01-30", "", "18")
	add("docs", "MM", KindDate, "2018-01-30", "", "01")
	add("docs", "MON", KindDate, "2018-01-30", "", "JAN")
	add("docs", "MONTH", KindDate, "2018-01-30", "", "JANUARY")
	// DAY: the docs say "padded … to make the output size exactly 9" but
	// print THURSDAY unpadded, as unit does ("THURSDAY, NOVEMBER …").
	add("docs", "DAY", KindDate, "2020-12-31", "", "THURSDAY")
	add("docs", "DY", KindDate, "2020-12-31", "", "THU")
	// The docs print D of Thursday 2020-12-31 as 4; with Sunday as 1 it is
	// 5 (unit: Thursday 1973-11-29 is 5; testlib: Wednesday is 4).
	add("docs", "D", KindDate, "2020-12-31", "", "5")
	add("docs", "DD", KindDate, "2018-12-02", "", "02")
	add("docs", "DDD", KindDate, "2018-02-03", "", "034")
	add("docs", "DD", KindDate, "2018-02-15", "", "15")
	add("docs", "Day", KindDate, "2020-12-31", "", "Thursday")
	add("docs", "day", KindDate, "2020-12-31", "", "thursday")
	add("docs", "HH", KindTime, "21:30:00", "", "09")
	add("docs", "HH12", KindTime, "21:30:00", "", "09")
	add("docs", "HH24", KindTime, "21:30:00", "", "21")
	add("docs", "MI", KindTime, "01:02:03", "", "02")
	add("docs", "MI", KindTime, "21:30:00", "", "30")
	add("docs", "SS", KindTime, "01:02:03", "", "03")
	add("docs", "SSSSS", KindTime, "01:02:03", "", "03723")
	add("docs", "SS", KindTime, "21:30:25.16", "", "25")
	// FFn truncates (the docs say "rounded" but print FF1 of .16 as 1).
	// The docs print FF3 of .16 as 016, a typo: FF3 is the first three
	// digits (testlib: FF3 of .456789 is 456).
	add("docs", "FF1", KindTime, "01:05:07.16", "", "1")
	add("docs", "FF2", KindTime, "01:05:07.16", "", "16")
	add("docs", "FF3", KindTime, "01:05:07.16", "", "160")
	add("docs", "FF2", KindTime, "21:30:25.16", "", "16")
	add("docs", "A.M.", KindTime, "01:02:03", "", "A.M.")
	add("docs", "A.M.", KindTime, "16:02:03", "", "P.M.")
	add("docs", "a.m.", KindTime, "01:02:03", "", "a.m.")
	add("docs", "a.M.", KindTime, "01:02:03", "", "a.m.")
	add("docs", "AM", KindTime, "01:02:03", "", "AM")
	add("docs", "AM", KindTime, "16:02:03", "", "PM")
	add("docs", "am", KindTime, "01:02:03", "", "am")
	add("docs", "aM", KindTime, "01:02:03", "", "am")
	add("docs", "AM", KindTime, "21:30:00", "", "PM")
	add("docs", "PM", KindTime, "21:30:00", "", "PM")
	add("docs", "AM", KindTime, "01:30:00", "", "AM")
	add("docs", "PM", KindTime, "01:30:00", "", "AM")
	// TZH/TZM "depend upon where this query was executed": -08 in Los
	// Angeles in December.
	add("docs", "TZH", KindTimestamp, "2008-12-25 05:30:00+00", la, "-08")
	add("docs", "TZM", KindTimestamp, "2008-12-25 05:30:00+00", la, "00")
	add("docs", "TZH", KindTimestamp, "2008-12-25 00:00:00+00:00", "Asia/Kolkata", "+05")
	add("docs", "TZM", KindTimestamp, "2008-12-25 00:00:00+00:00", "Asia/Kolkata", "30")
	add("docs", `"abc"`, KindDate, "2018-01-30", "", "abc")
	add("docs", `"a\"b\\c"`, KindDate, "2018-01-30", "", `a"b\c`)
	add("docs", `-./,';: `, KindDate, "2018-01-30", "", `-./,';: `)
	fail("docs", "YYYY\tMM", KindDate, "2018-01-30", "") // only ASCII 32 is whitespace
	return out
}

// castTestValue reads a literal of kind with logq's own CAST parsers.
func castTestValue(t *testing.T, kind Kind, lit string) int64 {
	t.Helper()
	var v int64
	var err error
	switch kind {
	case KindDate:
		v, err = ParseDate(lit)
	case KindDatetime:
		v, err = ParseDatetime(lit)
	case KindTime:
		v, err = ParseTime(lit)
	case KindTimestamp:
		v, err = ParseTimestamp(lit)
	}
	if err != nil {
		t.Fatalf("bad %s literal %q in the test table: %v", kind, lit, err)
	}
	return v
}

func castTestZone(t *testing.T, zone string) *time.Location {
	t.Helper()
	if zone == "" {
		return time.UTC
	}
	loc, err := LoadLocation(zone)
	if err != nil {
		t.Fatalf("bad zone %q in the test table: %v", zone, err)
	}
	return loc
}

func castTestNow(t *testing.T, date string) int64 {
	t.Helper()
	if date == "" {
		return 0 // 1970-01-01
	}
	return castTestValue(t, KindDate, date) * Day
}

func TestFormatTimeCast(t *testing.T) {
	cases := formatCases()
	for _, c := range cases {
		v := castTestValue(t, c.kind, c.value)
		got, err := FormatTimeCast(c.format, c.kind, v, castTestZone(t, c.zone))
		switch {
		case c.fails && err == nil:
			t.Errorf("%s: CAST(%s %q AS STRING FORMAT %q AT TIME ZONE %q) = %q, want an error", c.src, c.kind, c.value, c.format, c.zone, got)
		case c.fails && !errors.Is(err, ErrBadCast):
			t.Errorf("%s: CAST(%s %q AS STRING FORMAT %q): error %v doesn't wrap ErrBadCast", c.src, c.kind, c.value, c.format, err)
		case !c.fails && err != nil:
			t.Errorf("%s: CAST(%s %q AS STRING FORMAT %q AT TIME ZONE %q): %v, want %q", c.src, c.kind, c.value, c.format, c.zone, err, c.want)
		case !c.fails && got != c.want:
			t.Errorf("%s: CAST(%s %q AS STRING FORMAT %q AT TIME ZONE %q) = %q, want %q", c.src, c.kind, c.value, c.format, c.zone, got, c.want)
		}
	}
	t.Logf("%d cases", len(cases))
}

func TestParseTimeCast(t *testing.T) {
	cases := parseCases()
	for _, c := range cases {
		got, err := ParseTimeCast(c.format, c.kind, c.input, castTestZone(t, c.zone), castTestNow(t, c.now))
		if c.want == expectError {
			if err == nil {
				t.Errorf("%s: CAST(%q AS %s FORMAT %q AT TIME ZONE %q) = %d, want an error", c.src, c.input, c.kind, c.format, c.zone, got)
			} else if !errors.Is(err, ErrBadCast) {
				t.Errorf("%s: CAST(%q AS %s FORMAT %q): error %v doesn't wrap ErrBadCast", c.src, c.input, c.kind, c.format, err)
			}
			continue
		}
		want := castTestValue(t, c.kind, c.want)
		if err != nil {
			t.Errorf("%s: CAST(%q AS %s FORMAT %q AT TIME ZONE %q, today %q): %v, want %s", c.src, c.input, c.kind, c.format, c.zone, c.now, err, c.want)
		} else if got != want {
			t.Errorf("%s: CAST(%q AS %s FORMAT %q AT TIME ZONE %q, today %q) = %d, want %d (%s)", c.src, c.input, c.kind, c.format, c.zone, c.now, got, want, c.want)
		}
	}
	t.Logf("%d cases", len(cases))
}

// TestTimeCastRange covers values outside their type's range, which no
// literal can write.
func TestTimeCastRange(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		v    int64
	}{
		// docs: DATE '10000-01-30' with YYYY prints 10000, but BigQuery's
		// DATE ends at 9999-12-31 (unit: kDateMax + 1 is an error).
		{KindDate, castMaxDays + 1},
		{KindDate, castMinDays - 1},
		{KindDatetime, castMaxMicros + 1},
		{KindTime, Day}, // unit: TIME 30:00:00 is an error
		{KindTime, -1},
		{KindTimestamp, castMaxMicros + 1}, // unit: kTimestampMax + 1
		{KindTimestamp, castMinMicros - 1},
	} {
		if got, err := FormatTimeCast("", c.kind, c.v, time.UTC); err == nil || !errors.Is(err, ErrBadCast) {
			t.Errorf("FormatTimeCast(\"\", %s, %d) = %q, %v; want a cast error", c.kind, c.v, got, err)
		}
	}
	if _, err := FormatTimeCast("YYYY", KindInt64, 0, nil); err == nil {
		t.Error("FormatTimeCast of an INT64: no error")
	}
	if _, err := ParseTimeCast("YYYY", KindInt64, "2000", nil, 0); err == nil {
		t.Error("ParseTimeCast to an INT64: no error")
	}
}

// TestParseTimeCastTransitions checks local times that a zone skips or
// repeats. ZetaSQL takes absl's "pre" conversion (the offset before the
// transition); the expectations follow that rule, not the tables.
func TestParseTimeCastTransitions(t *testing.T) {
	la := castTestZone(t, "America/Los_Angeles")
	for _, c := range []struct{ in, want string }{
		{"2021-03-14 02:30", "2021-03-14 10:30:00+00"}, // skipped: read at -08
		{"2021-11-07 01:30", "2021-11-07 08:30:00+00"}, // repeated: the first, at -07
		{"2021-03-14 01:59", "2021-03-14 09:59:00+00"},
		{"2021-03-14 03:00", "2021-03-14 10:00:00+00"},
		{"2021-11-07 02:00", "2021-11-07 10:00:00+00"},
	} {
		got, err := ParseTimeCast("YYYY-MM-DD HH24:MI", KindTimestamp, c.in, la, 0)
		if want := castTestValue(t, KindTimestamp, c.want); err != nil || got != want {
			t.Errorf("CAST(%q AS TIMESTAMP … AT TIME ZONE Los Angeles) = %d, %v; want %d (%s)", c.in, got, err, want, c.want)
		}
	}
}

// TestTimeCastLong runs long formats and inputs, which FuzzTimeCast skips.
func TestTimeCastLong(t *testing.T) {
	const n = 100000
	got, err := FormatTimeCast(strings.Repeat("YYYY-", n), KindDate, 0, nil)
	if want := strings.Repeat("1970-", n); err != nil || got != want {
		t.Errorf("FormatTimeCast(YYYY- × %d): %d bytes, %v; want %d bytes", n, len(got), err, len(want))
	}
	long := strings.Repeat("SS", n)
	for _, kind := range []Kind{KindDate, KindDatetime, KindTime, KindTimestamp} {
		if _, err := FormatTimeCast(long, kind, 0, nil); err != nil && !errors.Is(err, ErrBadCast) {
			t.Errorf("FormatTimeCast(SS × %d, %s): %v", n, kind, err)
		}
		if _, err := ParseTimeCast(long, kind, long, nil, 0); err == nil {
			t.Errorf("ParseTimeCast(SS × %d, %s): no error for a repeated SS", n, kind)
		}
		if _, err := ParseTimeCast(`"`+long+`"`, kind, long, nil, 0); err != nil {
			t.Errorf("ParseTimeCast(a quoted literal of %d bytes, %s): %v", len(long), kind, err)
		}
	}
}

// FuzzTimeCast feeds arbitrary formats and inputs to both directions; it
// checks only that nothing panics.
func FuzzTimeCast(f *testing.F) {
	for _, c := range parseCases()[:200] {
		f.Add(c.format, c.input, int64(0), uint8(c.kind))
	}
	f.Add("YYYY-MM-DD HH24:MI:SS.FF6TZH:TZM", "10000-01-01 06:29:59.999999+06:30", int64(253402300799999999), uint8(KindTimestamp))
	f.Add(`"a\"b\\c" Y,YYY MON DAY`, "2,018", int64(-62135596800000000), uint8(KindDate))
	kinds := []Kind{KindDate, KindDatetime, KindTime, KindTimestamp}
	la, _ := LoadLocation("America/Los_Angeles")
	f.Fuzz(func(t *testing.T, format, input string, v int64, k uint8) {
		// Both functions are linear in their input (TestTimeCastLong), and
		// the fuzzer's minimizer is quadratic in it: long inputs would spend
		// the run minimizing rather than exploring.
		if len(format) > 200 || len(input) > 200 {
			return
		}
		kind := kinds[int(k)%len(kinds)]
		for _, loc := range []*time.Location{nil, la} {
			_, _ = FormatTimeCast(format, kind, v, loc)
			_, _ = FormatTimeCast(format, kind, v%Day, loc)
			_, _ = ParseTimeCast(format, kind, input, loc, v)
			_, _ = ParseTimeCast(input, kind, format, loc, v)
		}
	})
}
