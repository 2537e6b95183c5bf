package api

import (
	"errors"
	"mime"
	"net/http"

	"logq/ingest"
	"logq/otlp"
)

// handleOTLPLogs takes an OTLP/HTTP logs export (protobuf or JSON, gzip or
// not). The source is read as for every ingest route (sourceOf). Refused records are counted in the
// reply's partial_success (OTLP's way), with status 200.
func (s *Server) handleOTLPLogs(w http.ResponseWriter, r *http.Request) {
	rec := recorderOf(r)
	rec.endpoint = "ingest"
	// OTLP/HTTP: a Content-Type other than protobuf or JSON is a 415.
	// None at all is read as protobuf, the exporters' default.
	switch ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct {
	case "", "application/x-protobuf", "application/protobuf", "application/json":
	default:
		writeError(w, errorf(415, "unsupportedMediaType", "Content-Type",
			"OTLP logs are application/x-protobuf or application/json; got %q", clip(r.Header.Get("Content-Type"), 100)))
		return
	}
	body, aerr := readBody(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	req, err := otlp.Decode(body, r.Header.Get("Content-Type"))
	var be *ingest.BodyError
	if errors.As(err, &be) {
		writeError(w, errorf(400, "invalidBody", "", "%v", err))
		return
	} else if err != nil {
		writeError(w, errorf(500, "internalError", "", "internal error"))
		return
	}
	source, aerr := s.sourceOf(r, "")
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	_, refused, ok := s.storeEvents(w, r, source, "otlp", req.Batch, len(body))
	if !ok {
		return
	}
	first := ""
	if len(refused) > 0 {
		first = refused[0].String()
	}
	out, ctype := otlp.Response(req.JSON, len(refused), first)
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// handleOTLPOther answers OTLP traces and metrics: logq stores logs only.
func handleOTLPOther(w http.ResponseWriter, r *http.Request) {
	writeError(w, errorf(501, "notImplemented", "", "logq takes OTLP logs only (POST /v1/logs); %s is not served", r.URL.Path))
}
