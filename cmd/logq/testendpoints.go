package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"logq/endpoint"
	"logq/fixtures"
)

// endpoints returns what a file's tests can call: the endpoints it lists,
// and the built-in ones that none of those replaces by name or id (as
// `serve --endpoints` does). sandbox_logs_all sandboxes the built-in
// logs.all as `serve --sandbox-logs-all` does; a replaced one keeps its own
// `sandboxed:`.
func (r *testRunner) endpoints(tf *testFile) ([]*endpoint.Endpoint, error) {
	if r.builtin == nil {
		b, err := endpoint.LoadFS(fixtures.Endpoints, "endpoints")
		if err != nil {
			return nil, fmt.Errorf("built-in endpoints: %w", err)
		}
		r.builtin = b
	}
	var out []*endpoint.Endpoint
	seen := map[string]string{}
	listed := map[string]bool{}
	for _, ref := range tf.endpoints {
		eps, err := r.loadEndpoints(ref.value)
		if err != nil {
			return nil, fmt.Errorf("%w (in the endpoints of %s)", err, ref.at)
		}
		for _, e := range eps {
			if listed[e.File] {
				continue // named twice, e.g. as a file and in its directory
			}
			listed[e.File] = true
			for _, k := range []string{e.Name, strings.ToLower(e.ID)} {
				if other, dup := seen[k]; dup {
					return nil, fmt.Errorf("%s: endpoint name or id %s is also used by %s (in the endpoints of %s)", e.File, k, other, ref.at)
				}
				seen[k] = e.File
			}
			out = append(out, e)
		}
	}
	for _, b := range r.builtin {
		if _, replaced := seen[b.Name]; replaced {
			continue
		}
		if _, replaced := seen[strings.ToLower(b.ID)]; replaced {
			continue
		}
		if b.Name == "logs.all" {
			sb := *b // the shared built-in stays as it is for other files
			sb.Sandboxed = sb.Sandboxed || tf.sandboxLogsAll
			sb.SandboxHint = "set sandbox_logs_all: true at the top of the test file (as serve --sandbox-logs-all does)"
			b = &sb
		}
		out = append(out, b)
	}
	return out, nil
}

// loadEndpoints reads an endpoint file, or every *.yaml and *.yml file of a
// directory, once per run; errors carry the endpoint file's own
// file:line:col.
func (r *testRunner) loadEndpoints(path string) ([]*endpoint.Endpoint, error) {
	if eps, ok := r.loaded[path]; ok {
		return eps, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if st.IsDir() {
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		files = files[:0]
		for _, ent := range ents {
			if n := ent.Name(); !ent.IsDir() && (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) {
				files = append(files, filepath.Join(path, n))
			}
		}
	}
	var eps []*endpoint.Endpoint
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		e, err := endpoint.Parse(f, data)
		if err != nil {
			return nil, err
		}
		eps = append(eps, e)
	}
	r.loaded[path] = eps
	return eps, nil
}

// findEndpoint resolves a test's endpoint as the API does (a UUID in any
// case, else a name), at load time, so a misspelt name stops the file
// instead of failing as a 404. (A caller's SQL sent to an endpoint that is
// not sandboxed is the API's to refuse, with a 400 that says how to
// sandbox it; a test may expect that refusal.)
func findEndpoint(eps []*endpoint.Endpoint, tc *testCase) (*endpoint.Endpoint, error) {
	var found *endpoint.Endpoint
	for _, e := range eps {
		if strings.EqualFold(e.ID, tc.endpoint.value) {
			found = e
			break
		}
		if e.Name == tc.endpoint.value && found == nil {
			found = e
		}
	}
	if found == nil {
		names := make([]string, len(eps))
		for i, e := range eps {
			names[i] = e.Name
		}
		return nil, fmt.Errorf("%s: test %q: no endpoint %q (there are: %s)", tc.endpoint.at, tc.name, tc.endpoint.value, strings.Join(names, ", "))
	}
	return found, nil
}
