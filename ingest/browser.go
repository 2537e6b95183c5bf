package ingest

import (
	"bytes"
	"encoding/json"
)

// decodeBrowserReports reads what browsers post to a Reporting API or CSP
// report-uri endpoint (application/reports+json: an array of reports;
// application/csp-report: one {"csp-report": {...}} object). Each report
// becomes an event as Logflare's BrowserReport makes it: the report as
// metadata, and as the message its text (Logflare uses Elixir's inspect of
// the map, which is not reproducible; logq uses the report's JSON).
func decodeBrowserReports(body []byte) (*Batch, error) {
	body = bytes.TrimSpace(body)
	var reports []json.RawMessage
	switch {
	case len(body) > 0 && body[0] == '[':
		if err := json.Unmarshal(body, &reports); err != nil {
			return nil, &BodyError{"the body is not a JSON array of reports: " + err.Error()}
		}
	case len(body) > 0 && body[0] == '{':
		if !json.Valid(body) {
			return nil, &BodyError{"the body is not a JSON report object"}
		}
		reports = []json.RawMessage{body}
	default:
		return nil, &BodyError{"the body is not a JSON report or array of reports"}
	}
	b := &Batch{}
	for i, r := range reports {
		var obj map[string]json.RawMessage
		if json.Unmarshal(r, &obj) != nil || obj == nil {
			b.Refuse(i, "a report must be a JSON object")
			continue
		}
		var msg bytes.Buffer
		_ = json.Compact(&msg, r)
		ev, _ := json.Marshal(map[string]any{"event_message": msg.String(), "metadata": json.RawMessage(r)})
		b.Add(i, ev)
	}
	return b, nil
}
