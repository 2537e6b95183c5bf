package api

import (
	"maps"
	"net/http"
	"slices"
	"sort"
)

// endpointInfo is one entry of GET /api/endpoints.
type endpointInfo struct {
	ID           string      `json:"id"`
	Name         string      `json:"name"`
	Params       []paramInfo `json:"params"`
	MaxRows      int         `json:"max_rows"`
	CacheSeconds int         `json:"cache_seconds"`
	WarmSeconds  int         `json:"warm_seconds"`
	Sandboxed    bool        `json:"sandboxed"`
}

// paramInfo is a parameter the endpoint's SQL reads or its definition checks.
type paramInfo struct {
	Name     string   `json:"name"`
	Required bool     `json:"required"`
	OneOf    []string `json:"one_of,omitempty"`
}

// handleListEndpoints lists the saved endpoints, sorted by name, with their
// parameters (the SQL's @params and the declared checks), so clients and
// `logq endpoints` can say what a call needs.
func (s *Server) handleListEndpoints(w http.ResponseWriter, _ *http.Request) {
	out := make([]endpointInfo, 0, len(s.cfg.Endpoints))
	for _, e := range s.byName {
		names := map[string]bool{}
		if e.Query != nil {
			for _, p := range e.Query.Params {
				names[p] = true
			}
		}
		for p := range e.Params {
			names[p] = true
		}
		var params []paramInfo
		for _, n := range slices.Sorted(maps.Keys(names)) {
			p := e.Params[n]
			params = append(params, paramInfo{Name: n, Required: p.Required, OneOf: p.OneOf})
		}
		out = append(out, endpointInfo{ID: e.ID, Name: e.Name, Params: params, MaxRows: e.MaxRows,
			CacheSeconds: e.CacheSeconds, WarmSeconds: e.WarmSeconds, Sandboxed: e.Sandboxed})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	writeJSON(w, 200, map[string]any{"result": out})
}
