package dest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

type obj = map[string]any

func TestTypes(t *testing.T) {
	require.Equal(t, []string{"webhook", "datadog", "loki", "otlp"}, Types())
}

func TestValidateNormalises(t *testing.T) {
	for _, tc := range []struct {
		typ      string
		in, want obj
	}{
		{"webhook", obj{"url": "https://h.example/x"},
			obj{"url": "https://h.example/x", "http": "http2", "gzip": true}},
		{"webhook", obj{"url": "http://h:8080", "http": "http1", "gzip": false, "headers": obj{"X-Api-Key": "k", "Content-Type": "application/json"}, "extra": 1},
			obj{"url": "http://h:8080", "http": "http1", "gzip": false, "headers": obj{"x-api-key": "k", "content-type": "application/json"}}},
		{"webhook", obj{"url": "https://h", "gzip": "false", "http": nil},
			obj{"url": "https://h", "http": "http2", "gzip": false}},
		{"datadog", obj{"api_key": "k", "region": "US1-FED", "url": "ignored"},
			obj{"api_key": "k", "region": "US1-FED"}},
		{"loki", obj{"url": "https://logs.example/loki/api/v1/push", "username": "", "password": "", "headers": obj{"X-Scope-OrgID": "t"}},
			obj{"url": "https://logs.example/loki/api/v1/push", "headers": obj{"X-Scope-OrgID": "t"}}},
		{"loki", obj{"url": "https://l", "username": "u", "password": "p"},
			obj{"url": "https://l", "username": "u", "password": "p"}},
		{"otlp", obj{"endpoint": "https://otlp.example:4318/v1/logs"},
			obj{"endpoint": "https://otlp.example:4318/v1/logs", "protocol": "http/protobuf", "gzip": true, "headers": obj{}, "flatten_to_attributes": false}},
		{"otlp", obj{"endpoint": "http://o", "protocol": "http/protobuf", "gzip": false, "headers": obj{"Authorization": "Bearer x"}, "flatten_to_attributes": true},
			obj{"endpoint": "http://o", "protocol": "http/protobuf", "gzip": false, "headers": obj{"authorization": "Bearer x"}, "flatten_to_attributes": true}},
	} {
		got, errs := Validate(tc.typ, tc.in)
		require.Nil(t, errs, "%s %v", tc.typ, tc.in)
		require.Equal(t, tc.want, got, "%s %v", tc.typ, tc.in)
	}
}

func TestValidateErrors(t *testing.T) {
	many := obj{}
	for i := range 21 {
		many[fmt.Sprintf("x-h%d", i)] = "v"
	}
	twenty := obj{}
	for i := range 20 {
		twenty[fmt.Sprintf("x-h%d", i)] = "v"
	}
	_, errs := Validate("webhook", obj{"url": "https://h", "headers": twenty})
	require.Nil(t, errs)

	type errMap = map[string][]string
	for _, tc := range []struct {
		typ  string
		in   obj
		want errMap
	}{
		{"s3", obj{}, errMap{"type": {"is invalid"}}},
		{"", obj{}, errMap{"type": {"is invalid"}}},
		{"webhook", obj{}, errMap{"config.url": {"can't be blank"}}},
		{"webhook", obj{"url": ""}, errMap{"config.url": {"can't be blank"}}},
		{"webhook", obj{"url": "   "}, errMap{"config.url": {"can't be blank"}}},
		{"webhook", obj{"url": 5}, errMap{"config.url": {"is invalid"}}},
		{"webhook", obj{"url": "example.com/hook"}, errMap{"config.url": {"has invalid format"}}},
		{"webhook", obj{"url": "ftp://example.com"}, errMap{"config.url": {"has invalid format"}}},
		{"webhook", obj{"url": "https://"}, errMap{"config.url": {"has invalid format"}}},
		{"webhook", obj{"url": "see https://example.com"}, errMap{"config.url": {"must be an http or https URL"}}},
		{"webhook", obj{"url": "xhttps://example.com"}, errMap{"config.url": {"must be an http or https URL"}}},
		{"webhook", obj{"url": "https://:443/x"}, errMap{"config.url": {"must be an http or https URL"}}},
		{"webhook", obj{"url": "https://exa mple.com"}, errMap{"config.url": {"must be an http or https URL"}}},
		{"webhook", obj{"url": "https://h", "http": "http3"}, errMap{"config.http": {"is invalid"}}},
		{"webhook", obj{"url": "https://h", "http": 2}, errMap{"config.http": {"is invalid"}}},
		{"webhook", obj{"url": "https://h", "gzip": "yes"}, errMap{"config.gzip": {"is invalid"}}},
		{"webhook", obj{"url": "https://h", "gzip": 1}, errMap{"config.gzip": {"is invalid"}}},
		{"webhook", obj{"url": "https://h", "headers": "x"}, errMap{"config.headers": {"is invalid"}}},
		{"webhook", obj{"url": "https://h", "headers": obj{"x": 1}}, errMap{"config.headers": {"is invalid"}}},
		{"webhook", obj{"url": "https://h", "headers": many}, errMap{"config.headers": {"should have at most 20 headers"}}},
		{"webhook", obj{"url": "https://h", "headers": obj{"bad name": "v"}}, errMap{"config.headers": {`has an invalid header name: "bad name"`}}},
		{"webhook", obj{"url": "https://h", "headers": obj{"": "v"}}, errMap{"config.headers": {`has an invalid header name: ""`}}},
		{"webhook", obj{"url": "https://h", "headers": obj{"x-a": "v\r\nx-b: y"}}, errMap{"config.headers": {`has an invalid value for header "x-a"`}}},
		{"webhook", obj{"url": "https://h", "headers": obj{"x-a": "v\n"}}, errMap{"config.headers": {`has an invalid value for header "x-a"`}}},
		{"webhook", obj{"url": "https://h", "headers": obj{"X-A": "1", "x-a": "2"}}, errMap{"config.headers": {`has the header "x-a" more than once`}}},
		{"webhook", obj{"url": 1, "http": "x", "gzip": "y"}, errMap{"config.url": {"is invalid"}, "config.http": {"is invalid"}, "config.gzip": {"is invalid"}}},
		{"datadog", obj{}, errMap{"config.api_key": {"can't be blank"}, "config.region": {"can't be blank"}}},
		{"datadog", obj{"api_key": "k"}, errMap{"config.region": {"can't be blank"}}},
		{"datadog", obj{"region": "EU"}, errMap{"config.api_key": {"can't be blank"}}},
		{"datadog", obj{"api_key": "k", "region": "eu"}, errMap{"config.region": {"is invalid"}}},
		{"datadog", obj{"api_key": "k", "region": "US4"}, errMap{"config.region": {"is invalid"}}},
		{"datadog", obj{"api_key": 7, "region": "EU"}, errMap{"config.api_key": {"is invalid"}}},
		{"loki", obj{}, errMap{"config.url": {"can't be blank"}}},
		{"loki", obj{"url": "loki:3100"}, errMap{"config.url": {"has invalid format"}}},
		{"loki", obj{"url": "http://l", "username": "u"}, errMap{
			"config.username": {"Both username and password must be provided for basic auth"},
			"config.password": {"Both username and password must be provided for basic auth"}}},
		{"loki", obj{"url": "http://l", "username": "", "password": "p"}, errMap{
			"config.username": {"Both username and password must be provided for basic auth"},
			"config.password": {"Both username and password must be provided for basic auth"}}},
		{"loki", obj{"url": "http://l", "headers": []any{}}, errMap{"config.headers": {"is invalid"}}},
		{"loki", obj{"url": "http://l", "headers": many}, errMap{"config.headers": {"should have at most 20 headers"}}},
		{"otlp", obj{}, errMap{"config.endpoint": {"can't be blank"}}},
		{"otlp", obj{"endpoint": "grpc://o:4317"}, errMap{"config.endpoint": {"has invalid format"}}},
		{"otlp", obj{"endpoint": "http://o", "protocol": "grpc"}, errMap{"config.protocol": {"is invalid"}}},
		{"otlp", obj{"endpoint": "http://o", "headers": obj{"x": "a\x00"}}, errMap{"config.headers": {`has an invalid value for header "x"`}}},
		{"otlp", obj{"endpoint": "http://o", "flatten_to_attributes": "maybe"}, errMap{"config.flatten_to_attributes": {"is invalid"}}},
	} {
		got, errs := Validate(tc.typ, tc.in)
		require.Nil(t, got, "%s %v", tc.typ, tc.in)
		require.Equal(t, tc.want, errs, "%s %v", tc.typ, tc.in)
	}
}

func TestNewRefusesInvalid(t *testing.T) {
	_, err := New("webhook", obj{"url": "nope"}, Options{})
	require.EqualError(t, err, "dest: invalid webhook config: config.url: has invalid format")
	_, err = New("s3", obj{}, Options{})
	require.Error(t, err)
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		typ      string
		in, want obj
	}{
		{"webhook",
			obj{"url": "https://user:pw@h.example:8443/p?q=1#f", "http": "http2", "gzip": true, "headers": obj{
				"authorization": "Bearer a", "X-Api-Key": "k", "cookie": "c", "x-hub-signature-256": "s", "x-other": "o"}},
			obj{"url": "https://REDACTED@h.example:8443/p?q=1#f", "http": "http2", "gzip": true, "headers": obj{
				"authorization": "REDACTED", "X-Api-Key": "REDACTED", "cookie": "REDACTED", "x-hub-signature-256": "REDACTED", "x-other": "o"}}},
		{"webhook", obj{"url": "https://h/p@x"}, obj{"url": "https://h/p@x", "headers": obj{}}},
		{"webhook", obj{"url": "https://tok@h"}, obj{"url": "https://REDACTED@h", "headers": obj{}}},
		{"datadog", obj{"api_key": "k", "region": "EU"}, obj{"api_key": "REDACTED", "region": "EU"}},
		{"loki", obj{"url": "https://l", "username": "u", "password": "p", "headers": obj{"authorization": "x"}},
			obj{"url": "https://l", "username": "u", "password": "REDACTED", "headers": obj{"authorization": "REDACTED"}}}, // logq redacts Loki's headers too
		{"loki", obj{"url": "https://l"}, obj{"url": "https://l", "headers": obj{}}},
		{"otlp", obj{"endpoint": "https://o", "headers": obj{"authorization": "a", "x-api-key": "b", "x-auth-token": "c", "cookie": "d"}},
			obj{"endpoint": "https://o", "headers": obj{"authorization": "REDACTED", "x-api-key": "REDACTED", "x-auth-token": "REDACTED", "cookie": "d"}}},
	} {
		before := fmt.Sprint(tc.in)
		require.Equal(t, tc.want, Redact(tc.typ, tc.in), tc.typ)
		require.Equal(t, before, fmt.Sprint(tc.in), "the stored config is not changed")
	}
}

func TestUnredact(t *testing.T) {
	// the round trip: what Redact shows, sent back, keeps every secret
	stored := map[string]obj{
		"webhook": {"url": "https://user:pw@h/p", "http": "http1", "gzip": false, "headers": obj{"authorization": "Bearer a", "x-other": "o"}},
		"datadog": {"api_key": "dd-secret", "region": "EU"},
		"loki":    {"url": "https://l", "username": "u", "password": "pw", "headers": obj{"x-scope-orgid": "t", "authorization": "Bearer z"}},
		"otlp":    {"endpoint": "https://o", "protocol": "http/protobuf", "gzip": true, "headers": obj{"x-api-key": "k"}, "flatten_to_attributes": false},
	}
	for typ, st := range stored {
		merged := Unredact(typ, Redact(typ, st), st)
		got, errs := Validate(typ, merged)
		require.Nil(t, errs, typ)
		want, _ := Validate(typ, st)
		require.Equal(t, want, got, typ)
	}

	// webhook: header looked up by lower-cased name, dropped with nothing stored, others replaced; a changed URL is taken
	got := Unredact("webhook",
		obj{"url": "https://REDACTED@other/p", "headers": obj{"Authorization": "REDACTED", "x-new": "REDACTED", "x-other": "o2"}},
		obj{"url": "https://user:pw@h/p", "gzip": false, "headers": obj{"authorization": "Bearer a", "x-other": "o"}})
	require.Equal(t, obj{"url": "https://REDACTED@other/p", "gzip": false, "headers": obj{"Authorization": "Bearer a", "x-other": "o2"}}, got)

	// keys not submitted keep their stored values; headers omitted keep the stored ones; {} clears
	got = Unredact("webhook", obj{"gzip": true}, obj{"url": "https://h", "gzip": false, "headers": obj{"a": "b"}})
	require.Equal(t, obj{"url": "https://h", "gzip": true, "headers": obj{"a": "b"}}, got)
	got = Unredact("webhook", obj{"headers": obj{}}, obj{"url": "https://h", "headers": obj{"a": "b"}})
	require.Equal(t, obj{"url": "https://h", "headers": obj{}}, got)

	// datadog: a new key is taken; REDACTED with nothing stored is dropped (Validate then says blank)
	require.Equal(t, obj{"api_key": "new", "region": "US1"}, Unredact("datadog", obj{"api_key": "new", "region": "US1"}, obj{"api_key": "old", "region": "EU"}))
	got = Unredact("datadog", obj{"api_key": "REDACTED"}, obj{"region": "EU"})
	require.Equal(t, obj{"region": "EU"}, got)
	_, errs := Validate("datadog", got)
	require.Equal(t, map[string][]string{"config.api_key": {"can't be blank"}}, errs)

	// loki: REDACTED keeps the password, "" clears both (no auth)
	require.Equal(t, obj{"url": "https://l", "username": "u2", "password": "pw"},
		Unredact("loki", obj{"username": "u2", "password": "REDACTED"}, obj{"url": "https://l", "username": "u", "password": "pw"}))
	got = Unredact("loki", obj{"username": "", "password": ""}, obj{"url": "https://l", "username": "u", "password": "pw"})
	norm, errs := Validate("loki", got)
	require.Nil(t, errs)
	require.Equal(t, obj{"url": "https://l"}, norm)

	// otlp headers
	require.Equal(t, obj{"endpoint": "https://o", "headers": obj{"Authorization": "Bearer z", "x-api-key": "k2"}},
		Unredact("otlp", obj{"headers": obj{"Authorization": "REDACTED", "x-api-key": "k2"}}, obj{"endpoint": "https://o", "headers": obj{"authorization": "Bearer z", "x-api-key": "k"}}))

	// inputs are not changed
	sub := obj{"api_key": "REDACTED"}
	st := obj{"api_key": "s", "region": "EU"}
	Unredact("datadog", sub, st)
	require.Equal(t, obj{"api_key": "REDACTED"}, sub)
	require.Equal(t, obj{"api_key": "s", "region": "EU"}, st)
}
