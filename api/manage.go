package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"logq/drain"
	"logq/storage"
	"logq/types"
)

// Logflare's management API as Supabase Studio's Log Drains page calls it
// (admin scope): sources (read-only: logq makes a source on its first
// event), backends (drains) and rules (which events of which source go to
// which backend). Answers have Logflare's shapes: bare JSON arrays and
// objects, a 422 as {"errors": {"<field>": ["<why>"]}}; other refusals
// have logq's error shape, whose error.message Studio reads.

// MaxManageBody bounds a management request's body.
const MaxManageBody = 1 << 20

// sourceView is a source as GET /api/sources shows it: Logflare's fields
// Studio reads (id, token, name, inserted_at, updated_at) and logq's counts.
// inserted_at and updated_at are the oldest and newest event held (the
// time of the request for a source that holds none): logq keeps no other
// record of a source.
type sourceView struct {
	ID         int64      `json:"id"`
	Token      string     `json:"token"`
	Name       string     `json:"name"`
	InsertedAt drain.Time `json:"inserted_at"`
	UpdatedAt  drain.Time `json:"updated_at"`
	Events     int        `json:"events"`
	Bytes      int64      `json:"bytes"`
	FirstEvent *string    `json:"first_event"`
	LastEvent  *string    `json:"last_event"`
	Ingested   int64      `json:"ingested"`
	Overflowed int64      `json:"overflowed_keys"`
}

func (s *Server) sourceViews() []sourceView {
	now := s.cfg.Clock.Now()
	out := []sourceView{}
	for _, st := range s.store.Stats() {
		v := sourceView{ID: storage.SourceID(st.Name), Token: storage.SourceUUID(st.Name), Name: st.Name,
			InsertedAt: drain.Time(now), UpdatedAt: drain.Time(now), Events: st.Events, Bytes: st.Bytes,
			Ingested: st.Ingested, Overflowed: st.Overflowed}
		if st.Events > 0 {
			first, last := time.UnixMicro(st.First).UTC(), time.UnixMicro(st.Last).UTC()
			v.InsertedAt, v.UpdatedAt = drain.Time(first), drain.Time(last)
			f, l := first.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano)
			v.FirstEvent, v.LastEvent = &f, &l
		}
		out = append(out, v)
	}
	return out
}

// handleListSources answers GET /api/sources: a bare array, as Logflare's
// (Studio checks Array.isArray).
func (s *Server) handleListSources(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, s.sourceViews())
}

// sourceNamed finds a source by token (UUID), name or integer id.
func (s *Server) sourceNamed(key string) (sourceView, bool) {
	for _, v := range s.sourceViews() {
		if v.Token == strings.ToLower(key) || v.Name == key || strconv.FormatInt(v.ID, 10) == key {
			return v, true
		}
	}
	return sourceView{}, false
}

func (s *Server) handleGetSource(w http.ResponseWriter, r *http.Request) {
	v, ok := s.sourceNamed(mux.Vars(r)["token"])
	if !ok {
		writeError(w, errorf(404, "notFound", "token", "no source has token %q", clip(mux.Vars(r)["token"], 80)))
		return
	}
	writeJSON(w, 200, v)
}

// handleSourceSchema answers GET /api/sources/{token}/schema: every field
// path of the source and its BigQuery type (a nested object is a RECORD,
// REPEATED: an ARRAY<STRUCT> of one element), sorted by path.
func (s *Server) handleSourceSchema(w http.ResponseWriter, r *http.Request) {
	v, ok := s.sourceNamed(mux.Vars(r)["token"])
	if !ok {
		writeError(w, errorf(404, "notFound", "token", "no source has token %q", clip(mux.Vars(r)["token"], 80)))
		return
	}
	schema := s.store.View().Table(v.Name)
	out := map[string]string{}
	var walk func(prefix string)
	walk = func(prefix string) {
		for _, child := range schema.Children(prefix) {
			t, object, ok := schema.Field(child)
			if !ok {
				continue
			}
			if object {
				out[child] = "ARRAY<STRUCT>"
				walk(child)
				continue
			}
			out[child] = bigQueryType(t)
		}
	}
	walk("")
	writeJSON(w, 200, out)
}

// bigQueryType names a field's type as BigQuery writes it.
func bigQueryType(t types.Type) string {
	return strings.ToUpper(t.String())
}

// manageError answers a drain.Error (or another error) of the management
// API: a 422 as Logflare's {"errors": {...}}, anything else in logq's
// error shape.
func manageError(w http.ResponseWriter, err error) {
	var de *drain.Error
	if !errors.As(err, &de) {
		writeError(w, errorf(500, "internalError", "", "internal error"))
		return
	}
	if de.Status == 422 {
		if rec := recorderIn(w); rec != nil {
			rec.err = de.Error()
		}
		writeJSON(w, 422, map[string]any{"errors": de.Fields})
		return
	}
	reason := map[int]string{400: "invalid", 404: "notFound", 503: "unavailable"}[de.Status]
	writeError(w, errorf(de.Status, reason, "", "%s", de.Msg))
}

// readManageBody reads a management request's JSON body (at most
// MaxManageBody bytes).
func readManageBody(r *http.Request) ([]byte, *apiError) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxManageBody+1))
	if err != nil {
		return nil, errorf(400, "invalidBody", "", "the request body could not be read: %v", err)
	}
	if len(body) > MaxManageBody {
		return nil, errorf(413, "payloadTooLarge", "", "a management request's body is at most %d bytes", MaxManageBody)
	}
	if !json.Valid(body) {
		return nil, errorf(400, "invalidBody", "", "the request body must be JSON")
	}
	return body, nil
}

// drains returns the drain manager, or answers 503 when there is none.
func (s *Server) drains(w http.ResponseWriter) *drain.Manager {
	if s.cfg.Drains == nil {
		writeError(w, errorf(503, "unavailable", "", "drains are not enabled on this server"))
	}
	return s.cfg.Drains
}

func (s *Server) handleListBackends(w http.ResponseWriter, r *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	// ?metadata[type]=log-drain: equality of the whole metadata object.
	var md map[string]string
	for k, vs := range r.URL.Query() {
		if name, ok := strings.CutPrefix(k, "metadata["); ok && strings.HasSuffix(name, "]") && len(vs) > 0 {
			if md == nil {
				md = map[string]string{}
			}
			md[strings.TrimSuffix(name, "]")] = vs[0]
		}
	}
	writeJSON(w, 200, m.Backends(md))
}

func (s *Server) handleCreateBackend(w http.ResponseWriter, r *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	in, ok := s.backendInput(w, r)
	if !ok {
		return
	}
	b, err := m.CreateBackend(in)
	if err != nil {
		manageError(w, err)
		return
	}
	writeJSON(w, 201, b)
}

func (s *Server) backendInput(w http.ResponseWriter, r *http.Request) (drain.BackendInput, bool) {
	var in drain.BackendInput
	body, aerr := readManageBody(r)
	if aerr != nil {
		writeError(w, aerr)
		return in, false
	}
	if err := json.Unmarshal(body, &in); err != nil {
		// A field of the wrong type (a number as the name): Logflare's 422.
		var te *json.UnmarshalTypeError
		field := "body"
		if errors.As(err, &te) && te.Field != "" {
			field = te.Field
		}
		writeJSON(w, 422, map[string]any{"errors": map[string][]string{field: {"is invalid"}}})
		return in, false
	}
	return in, true
}

func (s *Server) handleGetBackend(w http.ResponseWriter, r *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	b, err := m.Backend(mux.Vars(r)["token"])
	if err != nil {
		manageError(w, err)
		return
	}
	writeJSON(w, 200, b)
}

// handleUpdateBackend answers PUT (200 with the backend) and PATCH (204),
// as Logflare does.
func (s *Server) handleUpdateBackend(w http.ResponseWriter, r *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	in, ok := s.backendInput(w, r)
	if !ok {
		return
	}
	b, err := m.UpdateBackend(mux.Vars(r)["token"], in)
	if err != nil {
		manageError(w, err)
		return
	}
	if r.Method == http.MethodPatch {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, 200, b)
}

func (s *Server) handleDeleteBackend(w http.ResponseWriter, r *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	if err := m.DeleteBackend(mux.Vars(r)["token"]); err != nil {
		manageError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleTestBackend sends one real request to the destination: 200
// {"connected?": bool, "reason": …}, as Logflare answers.
func (s *Server) handleTestBackend(w http.ResponseWriter, r *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	ok, reason, err := m.TestBackend(ctx, mux.Vars(r)["token"])
	if err != nil {
		manageError(w, err)
		return
	}
	out := map[string]any{"connected?": ok}
	if !ok {
		out["reason"] = reason
	}
	writeJSON(w, 200, out)
}

func (s *Server) handleListRules(w http.ResponseWriter, r *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	q := r.URL.Query()
	var id int64
	if v := q.Get("backend_id"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			writeError(w, errorf(400, "invalidParameter", "backend_id", "backend_id must be a positive integer; got %q", clip(v, 40)))
			return
		}
		id = n
	}
	rules, err := m.Rules(id, q.Get("backend_token"))
	if err != nil {
		manageError(w, err)
		return
	}
	writeJSON(w, 200, rules)
}

func (s *Server) handleGetRule(w http.ResponseWriter, r *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	rule, err := m.Rule(mux.Vars(r)["token"])
	if err != nil {
		manageError(w, err)
		return
	}
	writeJSON(w, 200, rule)
}

// handleCreateRule takes one rule (201 with it) or an array of them (201
// with {"results": [...], "errors": []}; 400 when any failed, those that
// did not are kept, as Logflare does).
func (s *Server) handleCreateRule(w http.ResponseWriter, r *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	body, aerr := readManageBody(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		var ins []drain.RuleInput
		if err := json.Unmarshal(body, &ins); err != nil {
			writeJSON(w, 422, map[string]any{"errors": map[string][]string{"body": {"is invalid: an array of rules"}}})
			return
		}
		results, errs := []drain.Rule{}, []string{}
		for _, in := range ins {
			rule, err := m.CreateRule(in)
			if err != nil {
				errs = append(errs, flatError(err))
				continue
			}
			results = append(results, rule)
		}
		code := 201
		if len(errs) > 0 {
			code = 400
		}
		writeJSON(w, code, map[string]any{"results": results, "errors": errs})
		return
	}
	var in drain.RuleInput
	if err := json.Unmarshal(body, &in); err != nil {
		var te *json.UnmarshalTypeError
		field := "body"
		if errors.As(err, &te) && te.Field != "" {
			field = te.Field
		}
		writeJSON(w, 422, map[string]any{"errors": map[string][]string{field: {"is invalid"}}})
		return
	}
	rule, err := m.CreateRule(in)
	if err != nil {
		manageError(w, err)
		return
	}
	writeJSON(w, 201, rule)
}

// flatError is a rule's error as one line, as Logflare lists them.
func flatError(err error) string {
	var de *drain.Error
	if errors.As(err, &de) && len(de.Fields) > 0 {
		var keys []string
		for k := range de.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+" "+strings.Join(de.Fields[k], ", "))
		}
		return strings.Join(parts, "; ")
	}
	return err.Error()
}

func (s *Server) handleDeleteRule(w http.ResponseWriter, r *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	if err := m.DeleteRule(mux.Vars(r)["token"]); err != nil {
		manageError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleDrainStats answers GET /api/drains (logq's own): each drain's
// delivery, as /metrics reports it and `logq drains` prints it.
func (s *Server) handleDrainStats(w http.ResponseWriter, _ *http.Request) {
	m := s.drains(w)
	if m == nil {
		return
	}
	writeJSON(w, 200, m.Stats())
}
