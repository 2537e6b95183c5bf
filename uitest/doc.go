// Package uitest drives the page logq serves at /ui/ in a real browser:
// headless Chromium (Debian's package) steered over the DevTools protocol
// with chromedp, against an httptest server that holds demo data.
//
// The tests sign in, list the sources, run a query and read the table, run
// a bad query and read the alert with its line:col, look at the histogram,
// open an event's details and filter on a value, export CSV and JSON, follow
// the live tail while an event is ingested, and run a saved endpoint from its
// form. Every run fails on a request to a host other than the test server, on
// an uncaught JavaScript exception, on console.error and on a browser log
// entry of level error that is not a network failure the test caused on
// purpose (a 401 for a wrong key, a 400 for a bad query).
//
// Without Chromium the tests skip with a message, unless
// LOGQ_REQUIRE_BROWSER=1 (set by scripts/test), which makes a missing
// browser a failure. LOGQ_UI_SCREENSHOTS=DIR writes a PNG of each page, light
// and dark, into DIR: that is how docs/ui/ is made (docs/ui.md).
//
// The package holds tests only; nothing imports it.
package uitest
