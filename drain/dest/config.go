package dest

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Types lists the drain types this package sends to: "webhook", "datadog",
// "loki", "otlp".
func Types() []string {
	return []string{"webhook", "datadog", "loki", "otlp"}
}

// datadogIntake maps a Datadog region to its logs intake URL (Logflare
// HEAD's table).
var datadogIntake = map[string]string{
	"US1":     "https://http-intake.logs.datadoghq.com/api/v2/logs",
	"US3":     "https://http-intake.logs.us3.datadoghq.com/api/v2/logs",
	"US5":     "https://http-intake.logs.us5.datadoghq.com/api/v2/logs",
	"EU":      "https://http-intake.logs.datadoghq.eu/api/v2/logs",
	"AP1":     "https://http-intake.logs.ap1.datadoghq.com/api/v2/logs",
	"AP2":     "https://http-intake.logs.ap2.datadoghq.com/api/v2/logs",
	"UK1":     "https://http-intake.logs.uk1.datadoghq.com/api/v2/logs",
	"US1-FED": "https://http-intake.logs.ddog-gov.com/api/v2/logs",
	"US2-FED": "https://http-intake.logs.us2.ddog-gov.com/api/v2/logs",
}

// Limits and fixed values of a config.
const (
	maxHeaders = 20 // custom headers per drain (Studio's limit)
	redacted   = "REDACTED"
)

// Messages of field errors (Ecto's where Logflare has one).
const (
	msgBlank      = "can't be blank"
	msgInvalid    = "is invalid"
	msgFormat     = "has invalid format"
	msgHTTPURL    = "must be an http or https URL"
	msgBasicAuth  = "Both username and password must be provided for basic auth"
	msgTooMany    = "should have at most 20 headers"
	msgHeaderName = "has an invalid header name: %q"
	msgHeaderVal  = "has an invalid value for header %q"
	msgHeaderDup  = "has the header %q more than once"
)

// urlFormat is Logflare's check of a URL (unanchored, as Logflare's is).
var urlFormat = regexp.MustCompile(`https?\:\/\/.+`)

// webhookSensitive are the webhook header names (lower case) whose values
// Redact hides; otlpSensitive the OTLP ones.
var (
	webhookSensitive = setOf("api-key", "apikey", "authorization", "cookie", "proxy-authorization",
		"webhook-secret", "x-access-token", "x-amz-security-token", "x-api-key", "x-api-token",
		"x-auth-token", "x-hub-signature", "x-hub-signature-256", "x-secret-key", "x-signature",
		"x-webhook-secret")
	otlpSensitive = setOf("authorization", "x-api-key", "x-auth-token")
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Validate checks a config for a type and returns it normalised (defaults
// filled: webhook http "http2", gzip true; otlp protocol "http/protobuf",
// gzip true, headers {}, flatten_to_attributes false; header names
// lower-cased for webhook and otlp, as Logflare does; keys Logflare does not
// know dropped, as Ecto's cast drops them; "" and null read as absent), or
// field errors keyed as Logflare's 422 keys them ("config.url",
// "config.region", …) with their messages ("can't be blank", "is invalid",
// "has invalid format", "must be an http or https URL", …). An unknown type
// is the error key "type": ["is invalid"].
//
// On an update, validate what Unredact returns: Validate(typ,
// Unredact(typ, submitted, stored)).
func Validate(typ string, config map[string]any) (map[string]any, map[string][]string) {
	v := validator{in: config, out: map[string]any{}, errs: map[string][]string{}}
	switch typ {
	case "webhook":
		v.url("url", true)
		v.oneOf("http", "http2", "http1", "http2")
		v.boolean("gzip", true)
		v.headers(true, false)
	case "datadog":
		v.str("api_key", true)
		if r, ok := v.str("region", true); ok {
			if _, known := datadogIntake[r]; !known {
				v.fail("region", msgInvalid)
			}
		}
	case "loki":
		v.url("url", true)
		v.headers(false, false)
		_, hasUser := v.str("username", false)
		_, hasPass := v.str("password", false)
		if hasUser != hasPass && v.errs["config.username"] == nil && v.errs["config.password"] == nil {
			v.fail("username", msgBasicAuth)
			v.fail("password", msgBasicAuth)
		}
	case "otlp":
		v.url("endpoint", true)
		v.oneOf("protocol", "http/protobuf", "http/protobuf")
		v.boolean("gzip", true)
		v.headers(true, true)
		v.boolean("flatten_to_attributes", false)
	default:
		return nil, map[string][]string{"type": {msgInvalid}}
	}
	if len(v.errs) > 0 {
		return nil, v.errs
	}
	return v.out, nil
}

// validator checks and copies one config.
type validator struct {
	in   map[string]any
	out  map[string]any
	errs map[string][]string
}

func (v *validator) fail(key, msg string) {
	k := "config." + key
	v.errs[k] = append(v.errs[k], msg)
}

// get returns a present value ("" and whitespace-only strings and null
// read as absent, as Ecto's cast reads them).
func (v *validator) get(key string) (any, bool) {
	x, ok := v.in[key]
	if !ok || x == nil {
		return nil, false
	}
	if s, isStr := x.(string); isStr && strings.TrimSpace(s) == "" {
		return nil, false
	}
	return x, true
}

// str checks an optional or required string and copies it.
func (v *validator) str(key string, required bool) (string, bool) {
	x, ok := v.get(key)
	if !ok {
		if required {
			v.fail(key, msgBlank)
		}
		return "", false
	}
	s, isStr := x.(string)
	if !isStr {
		v.fail(key, msgInvalid)
		return "", false
	}
	v.out[key] = s
	return s, true
}

// url checks an http(s) URL: Logflare's format check, then a URL Go can
// send to (a scheme http or https and a host).
func (v *validator) url(key string, required bool) {
	s, ok := v.str(key, required)
	if !ok {
		return
	}
	if !urlFormat.MatchString(s) {
		v.fail(key, msgFormat)
		delete(v.out, key)
		return
	}
	if !validHTTPURL(s) {
		v.fail(key, msgHTTPURL)
		delete(v.out, key)
	}
}

func validHTTPURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Hostname() == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

// oneOf checks a string among allowed values, filling def when absent.
func (v *validator) oneOf(key, def string, allowed ...string) {
	s, ok := v.str(key, false)
	if !ok {
		if v.errs["config."+key] == nil {
			v.out[key] = def
		}
		return
	}
	for _, a := range allowed {
		if s == a {
			return
		}
	}
	v.fail(key, msgInvalid)
}

// boolean checks a boolean (Ecto's cast also takes "true"/"false"/"1"/"0"),
// filling def when absent.
func (v *validator) boolean(key string, def bool) {
	x, ok := v.get(key)
	if !ok {
		v.out[key] = def
		return
	}
	switch b := x.(type) {
	case bool:
		v.out[key] = b
	case string:
		switch strings.TrimSpace(b) {
		case "true", "1":
			v.out[key] = true
		case "false", "0":
			v.out[key] = false
		default:
			v.fail(key, msgInvalid)
		}
	default:
		v.fail(key, msgInvalid)
	}
}

// headers checks custom headers: an object of at most maxHeaders string
// values, names HTTP tokens and values without control characters (but
// tab). Names are lower-cased when lower is set; headers {} is filled in
// when absent and always is set.
func (v *validator) headers(lower, always bool) {
	x, ok := v.in["headers"]
	if !ok || x == nil {
		if always {
			v.out["headers"] = map[string]any{}
		}
		return
	}
	m, ok := stringMap(x)
	if !ok {
		v.fail("headers", msgInvalid)
		return
	}
	if len(m) > maxHeaders {
		v.fail("headers", msgTooMany)
		return
	}
	out := make(map[string]any, len(m))
	seen := make(map[string]bool, len(m))
	for _, name := range sortedKeys(m) {
		val := m[name]
		if !validHeaderName(name) {
			v.fail("headers", fmt.Sprintf(msgHeaderName, name))
			continue
		}
		if !validHeaderValue(val) {
			v.fail("headers", fmt.Sprintf(msgHeaderVal, name))
			continue
		}
		k := name
		if lower {
			k = strings.ToLower(name)
		}
		if seen[strings.ToLower(name)] {
			v.fail("headers", fmt.Sprintf(msgHeaderDup, strings.ToLower(name)))
			continue
		}
		seen[strings.ToLower(name)] = true
		out[k] = val
	}
	v.out["headers"] = out
}

// stringMap reads an object of strings (map[string]any or
// map[string]string).
func stringMap(x any) (map[string]string, bool) {
	switch m := x.(type) {
	case map[string]string:
		return m, true
	case map[string]any:
		out := make(map[string]string, len(m))
		for k, val := range m {
			s, ok := val.(string)
			if !ok {
				return nil, false
			}
			out[k] = s
		}
		return out, true
	}
	return nil, false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validHeaderName reports whether s is an HTTP token (RFC 9110).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHeaderValue reports whether s can be sent as a header value: no
// control characters but tab (so no CR or LF).
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// Redact returns a copy of a stored config with its secrets shown as
// "REDACTED": webhook: the values of sensitive headers (api-key, apikey,
// authorization, cookie, proxy-authorization, webhook-secret,
// x-access-token, x-amz-security-token, x-api-key, x-api-token,
// x-auth-token, x-hub-signature, x-hub-signature-256, x-secret-key,
// x-signature, x-webhook-secret; any case) and the URL's userinfo
// ("https://REDACTED@host/…"), with headers always present; datadog:
// api_key (always); loki: password (when set); otlp: the authorization,
// x-api-key and x-auth-token headers.
func Redact(typ string, config map[string]any) map[string]any {
	out := copyConfig(config)
	switch typ {
	case "webhook":
		out["headers"] = redactHeaders(out["headers"], webhookSensitive)
		if u, ok := out["url"].(string); ok {
			out["url"] = redactUserinfo(u)
		}
	case "datadog":
		out["api_key"] = redacted
	case "loki":
		if p, ok := out["password"]; ok && p != nil && p != "" {
			out["password"] = redacted
		}
		// logq's: Loki's headers carry credentials too (a token behind a
		// proxy), redacted as the webhook's are (Logflare shows them).
		out["headers"] = redactHeaders(out["headers"], webhookSensitive)
	case "otlp":
		out["headers"] = redactHeaders(out["headers"], otlpSensitive)
	}
	return out
}

// copyConfig copies a config and its headers map.
func copyConfig(config map[string]any) map[string]any {
	out := make(map[string]any, len(config)+1)
	for k, v := range config {
		out[k] = v
	}
	if h, ok := stringMap(out["headers"]); ok {
		hm := make(map[string]any, len(h))
		for k, v := range h {
			hm[k] = v
		}
		out["headers"] = hm
	}
	return out
}

// redactHeaders returns headers (a copy made by copyConfig, or nil) with
// sensitive values redacted; nil becomes {}.
func redactHeaders(x any, sensitive map[string]bool) any {
	m, ok := x.(map[string]any)
	if !ok {
		if x == nil {
			return map[string]any{}
		}
		return x
	}
	for k := range m {
		if sensitive[strings.ToLower(k)] {
			m[k] = redacted
		}
	}
	return m
}

// redactUserinfo replaces a URL's userinfo with REDACTED, leaving the rest
// of the text as it is.
func redactUserinfo(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return u
	}
	rest := u[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 {
		return u
	}
	return u[:i+3] + redacted + rest[at:]
}

// Unredact merges a submitted config (PUT) over the stored one: keys the
// submission omits keep their stored values (Logflare HEAD's partial
// update; a null clears), and a value "REDACTED" keeps the stored secret,
// for every type: webhook, loki and otlp headers (looked up by lower-cased name;
// a "REDACTED" header with nothing stored is dropped), the webhook URL when
// it is submitted exactly as Redact shows the stored one, datadog api_key
// and loki password (dropped when nothing is stored, so Validate reports
// it). Logflare restores only the webhook's; logq restores all. A
// submitted headers object replaces the stored one as a whole.
func Unredact(typ string, submitted, stored map[string]any) map[string]any {
	out := make(map[string]any, len(stored)+len(submitted))
	for k, v := range stored {
		out[k] = v
	}
	for k, v := range submitted {
		out[k] = v
	}
	switch typ {
	case "webhook", "otlp", "loki":
		if h, ok := stringMap(submitted["headers"]); ok {
			out["headers"] = unredactHeaders(h, stored["headers"])
		}
	}
	switch typ {
	case "webhook":
		if su, ok := submitted["url"].(string); ok {
			if old, ok := stored["url"].(string); ok && su == redactUserinfo(old) {
				out["url"] = old
			}
		}
	case "datadog":
		unredactField(out, submitted, stored, "api_key")
	case "loki":
		unredactField(out, submitted, stored, "password")
	}
	return out
}

func unredactField(out, submitted, stored map[string]any, key string) {
	if submitted[key] != redacted {
		return
	}
	if old, ok := stored[key].(string); ok && old != "" && old != redacted {
		out[key] = old
	} else {
		delete(out, key)
	}
}

func unredactHeaders(submitted map[string]string, stored any) map[string]any {
	old := map[string]string{}
	if m, ok := stringMap(stored); ok {
		for k, v := range m {
			old[strings.ToLower(k)] = v
		}
	}
	out := make(map[string]any, len(submitted))
	for k, v := range submitted {
		if v != redacted {
			out[k] = v
			continue
		}
		if s, ok := old[strings.ToLower(k)]; ok {
			out[k] = s
		}
	}
	return out
}
