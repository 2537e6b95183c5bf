package lql

import (
	"testing"
)

// edgeEvent is a Supabase edge log as a drain's body: about 1 KB, with
// event_message last, after the metadata Match has to step over.
const edgeEvent = `{"id":"4f9c2a7e-8b1d-4c3e-9f6a-2d5b8e1c7a90","timestamp":1700000000123456,` +
	`"metadata":[{"request":[{"cf":[{"asn":13335,"asOrganization":"Cloudflare","city":"San Francisco","colo":"SJC",` +
	`"country":"US","latitude":"37.77","longitude":"-122.42","postalCode":"94107","region":"California","timezone":"America/Los_Angeles"}],` +
	`"headers":[{"accept":"application/json","cf_connecting_ip":"203.0.113.7","cf_ipcountry":"US","cf_ray":"8a1b2c3d4e5f6a7b",` +
	`"host":"abcdefghijklmnop.supabase.co","user_agent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36",` +
	`"x_client_info":"supabase-js-web/2.39.0","x_forwarded_proto":"https","x_real_ip":"203.0.113.7"}],` +
	`"host":"abcdefghijklmnop.supabase.co","method":"GET","path":"/rest/v1/todos","protocol":"https:",` +
	`"search":"?select=*&order=id.desc","url":"https://abcdefghijklmnop.supabase.co/rest/v1/todos?select=*&order=id.desc"}],` +
	`"response":[{"headers":[{"cf_cache_status":"DYNAMIC","cf_ray":"8a1b2c3d4e5f6a7b-SJC","content_length":"1234",` +
	`"content_type":"application/json; charset=utf-8","date":"Tue, 14 Nov 2023 22:13:20 GMT","sb_gateway_version":"1"}],` +
	`"origin_time":42,"status_code":200}]}],` +
	`"event_message":"GET | 200 | 203.0.113.7 | 8a1b2c3d4e5f6a7b | https://abcdefghijklmnop.supabase.co/rest/v1/todos?select=*&order=id.desc | Mozilla/5.0"}`

// Supabase Studio's drain rule on an edge log.
func BenchmarkMatchStudioRule(b *testing.B) {
	q, err := Parse(`~".*?"`)
	if err != nil {
		b.Fatal(err)
	}
	ev := []byte(edgeEvent)
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	for b.Loop() {
		if !q.Match(ev) {
			b.Fatal("no match")
		}
	}
}

// A metadata path through the edge log's arrays, with a real regex.
func BenchmarkMatchMetadataPath(b *testing.B) {
	q, err := Parse(`m.request.path:~"^/rest"`)
	if err != nil {
		b.Fatal(err)
	}
	ev := []byte(edgeEvent)
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	for b.Loop() {
		if !q.Match(ev) {
			b.Fatal("no match")
		}
	}
}
