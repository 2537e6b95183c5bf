package ingest

import (
	"bytes"
	"encoding/json"
	"strings"
)

// decodeCloudEvent reads one CloudEvent (or a JSON array of them, the batch
// mode), structured or binary (attributes in attrs, the body is the data).
func decodeCloudEvent(body []byte, attrs map[string]string) (*Batch, error) {
	b := &Batch{}
	if attrs["specversion"] != "" {
		ev := map[string]any{}
		for k, v := range attrs {
			ev[k] = v
		}
		var data any
		if err := json.Unmarshal(body, &data); err != nil {
			data = string(body)
		}
		if len(bytes.TrimSpace(body)) > 0 {
			ev["data"] = data
		}
		b.add(0, cloudEvent(ev))
		return b, nil
	}
	body = bytes.TrimSpace(body)
	var evs []map[string]any
	if len(body) > 0 && body[0] == '[' {
		if err := json.Unmarshal(body, &evs); err != nil {
			return nil, &BodyError{"the body must be a CloudEvent (JSON with specversion) or a JSON array of them: " + err.Error()}
		}
	} else {
		var one map[string]any
		if err := json.Unmarshal(body, &one); err != nil {
			return nil, &BodyError{"the body must be a CloudEvent (JSON with specversion) or ce-* headers with the data as body"}
		}
		evs = []map[string]any{one}
	}
	for i, ev := range evs {
		if _, ok := ev["specversion"].(string); !ok {
			b.refuse(i, "a CloudEvent needs a specversion attribute")
			continue
		}
		b.add(i, cloudEvent(ev))
	}
	return b, nil
}

// cloudEvent maps CloudEvent attributes into metadata, the message from data.
func cloudEvent(ce map[string]any) []byte {
	meta := map[string]any{}
	for k, v := range ce {
		meta[strings.ToLower(k)] = v
	}
	ev := map[string]any{"metadata": meta}
	switch d := ce["data"].(type) {
	case string:
		ev["event_message"] = d
	case map[string]any:
		if m, ok := d["message"].(string); ok {
			ev["event_message"] = m
		} else {
			txt, _ := json.Marshal(d)
			ev["event_message"] = string(txt)
		}
	case nil:
		ev["event_message"] = ce["type"]
	default:
		txt, _ := json.Marshal(d)
		ev["event_message"] = string(txt)
	}
	if t, ok := ce["time"].(string); ok {
		ev["timestamp"] = t
	}
	if id, ok := ce["id"].(string); ok {
		ev["id"] = id
	}
	out, _ := json.Marshal(ev)
	return out
}
