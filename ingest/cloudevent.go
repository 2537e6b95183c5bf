package ingest

import (
	"bytes"
	"encoding/json"
	"strings"
)

// decodeCloudEvent reads a /cloud-event body as Logflare's LogController
// does (lib/logflare_web/controllers/log_controller.ex, cloud_event): the
// body is a JSON event, array of events or NDJSON, read as the /json form
// reads it, its keys kept as sent (a structured-mode CloudEvent's
// specversion, type, data… are top-level keys, nothing more). The ce-*
// headers, named without "ce-" and with "-" as "_", are added to every
// event as the top-level object cloud_event; the event's timestamp is the
// ce-time header, or the time of ingest without one (Logflare overwrites
// the body's own timestamp either way). So that the attributes read the way
// the other routes' attributes do, they are also added to the event's
// metadata object, beside (never over) its own keys.
func decodeCloudEvent(body []byte, attrs map[string]string) (*Batch, error) {
	b, err := splitEvents(body)
	if err != nil {
		return nil, err
	}
	ce := map[string]any{}
	for k, v := range attrs {
		ce[strings.ReplaceAll(k, "-", "_")] = v
	}
	for i, raw := range b.Events {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // numbers stay as written
		var ev map[string]any
		if err := dec.Decode(&ev); err != nil || ev == nil {
			continue // splitJSON passes objects only; leave anything else as it is
		}
		ev["cloud_event"] = ce
		delete(ev, "timestamp")
		if t, ok := ce["time"]; ok {
			ev["timestamp"] = t
		}
		if len(ce) > 0 {
			meta, isObj := ev["metadata"].(map[string]any)
			if ev["metadata"] == nil {
				meta, isObj = map[string]any{}, true
			}
			if isObj {
				for k, v := range ce {
					if _, own := meta[k]; !own {
						meta[k] = v
					}
				}
				ev["metadata"] = meta
			}
		}
		out, err := json.Marshal(ev)
		if err == nil {
			b.Events[i] = out
		}
	}
	return b, nil
}
