package endpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"logq/exec"
	"logq/planner"
	"logq/sqlparse"
)

// Endpoint is one saved query.
type Endpoint struct {
	ID           string           `yaml:"id"`
	Name         string           `yaml:"name"`
	MaxRows      int              `yaml:"max_rows"`
	CacheSeconds int              `yaml:"cache_seconds"`
	WarmSeconds  int              `yaml:"warm_seconds"`
	Sandboxed    bool             `yaml:"sandboxed"`
	Params       map[string]Param `yaml:"params"`
	SQL          string           `yaml:"query"`

	Query *exec.Query `yaml:"-"`
	File  string      `yaml:"-"`
	// SandboxHint says how an endpoint that is not sandboxed would be made
	// so, in the refusal of a caller's sql= (CallerQuery); empty: by
	// sandboxed: true in its definition. cmd sets it for the built-in
	// logs.all, which a server switch sandboxes.
	SandboxHint string `yaml:"-"`
}

// SQLParam is the parameter that carries a caller's query to a sandboxed
// endpoint (Logflare's name, which Studio sends).
const SQLParam = "sql"

// CallerQuery returns the query a call with these parameters runs: the
// endpoint's own, or, for a sandboxed endpoint called with a non-empty
// sql=, the caller's SQL in place of its final SELECT (sandboxed reports
// this). An empty sql= is the same as none, so a client that always sends
// the parameter can leave it blank. A non-empty sql= to an endpoint that is
// not sandboxed is refused (an *exec.Error of KindInvalidArgument naming
// the parameter and how to sandbox the endpoint): running the endpoint's
// own query instead would answer rows the caller did not ask for.
func (e *Endpoint) CallerQuery(params map[string]string) (q *exec.Query, sandboxed bool, err error) {
	sql := params[SQLParam]
	if strings.TrimSpace(sql) == "" {
		return e.Query, false, nil
	}
	if !e.Sandboxed {
		hint := e.SandboxHint
		if hint == "" {
			hint = "set sandboxed: true in its definition"
		}
		return nil, false, &exec.Error{Kind: exec.KindInvalidArgument, Param: SQLParam,
			Msg: fmt.Sprintf("parameter sql: endpoint %s is not sandboxed, so it does not take a caller's SQL; to let callers send it, %s", e.Name, hint)}
	}
	q, err = e.Query.Sandboxed(sql)
	return q, true, err
}

// Param is a check run on a parameter before the query.
type Param struct {
	Required bool     `yaml:"required"`
	OneOf    []string `yaml:"one_of"`
}

var (
	uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	nameRE = regexp.MustCompile(`^[a-z0-9_][a-z0-9_.-]*$`)
)

// Parse reads one definition. Errors read "file:line:col: reason".
func Parse(file string, data []byte) (*Endpoint, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var e Endpoint
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	e.File = file
	at := func(key string) string {
		line, col := keyPos(&doc, key)
		return fmt.Sprintf("%s:%d:%d", file, line, col)
	}
	switch {
	case !uuidRE.MatchString(e.ID):
		return nil, fmt.Errorf("%s: id must be a UUID, got %q", at("id"), e.ID)
	case !nameRE.MatchString(e.Name):
		return nil, fmt.Errorf("%s: name must be lower-case letters, digits, '.', '_' or '-', got %q", at("name"), e.Name)
	case e.MaxRows < 0 || e.CacheSeconds < 0 || e.WarmSeconds < 0:
		return nil, fmt.Errorf("%s: max_rows, cache_seconds and warm_seconds must not be negative", at("name"))
	case strings.TrimSpace(e.SQL) == "":
		return nil, fmt.Errorf("%s: query is empty", at("query"))
	}
	if e.MaxRows == 0 {
		e.MaxRows = 1000
	}
	q, err := exec.Prepare(e.SQL)
	if err != nil {
		line, col := sqlPos(&doc, data, e.SQL, err)
		return nil, fmt.Errorf("%s:%d:%d: %s", file, line, col, stripPos(err))
	}
	e.Query = q
	for name := range e.Params {
		if !contains(q.Params, name) {
			return nil, fmt.Errorf("%s: parameter %s is declared but the query never uses @%s", at("params"), name, name)
		}
	}
	return &e, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// LoadFS reads every *.yaml file of a directory. Two endpoints with the same
// id or name are an error.
func LoadFS(fsys fs.FS, dir string) ([]*Endpoint, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []*Endpoint
	for _, ent := range entries {
		if ent.IsDir() || !(strings.HasSuffix(ent.Name(), ".yaml") || strings.HasSuffix(ent.Name(), ".yml")) {
			continue
		}
		p := path.Join(dir, ent.Name())
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		e, err := Parse(p, data)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// keyPos finds the position of a top-level key's value.
func keyPos(doc *yaml.Node, key string) (int, int) {
	if len(doc.Content) == 0 {
		return 1, 1
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1].Line, m.Content[i+1].Column
		}
	}
	return m.Line, m.Column
}

// sqlPos maps a query error's line:col to the file: a block scalar's text
// starts on the line after its indicator, indented.
func sqlPos(doc *yaml.Node, data []byte, sql string, err error) (int, int) {
	var se *sqlparse.Error
	var pe *planner.Error
	line, col := 1, 1
	switch {
	case errors.As(err, &se):
		line, col = se.Line, se.Col
	case errors.As(err, &pe) && pe.Line > 0:
		line, col = pe.Line, pe.Col
	}
	// An error at the very end (after the final newline) is shown at the end
	// of the last line of text, where the reader will look.
	sqlLines := strings.Split(sql, "\n")
	for line > 1 && line == len(sqlLines) && strings.TrimSpace(sqlLines[line-1]) == "" {
		line--
		col = len(sqlLines[line-1]) + 1
	}
	vl, vc := keyPos(doc, "query")
	lines := strings.Split(string(data), "\n")
	if vl-1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[vl-1][min(vc-1, len(lines[vl-1])):]), "|") || strings.HasPrefix(strings.TrimSpace(lines[vl-1][min(vc-1, len(lines[vl-1])):]), ">") {
		first := vl // 0-based index of the first content line
		indent := 0
		if first < len(lines) {
			indent = len(lines[first]) - len(strings.TrimLeft(lines[first], " "))
		}
		return vl + line, indent + col
	}
	return vl + line - 1, vc + col - 1
}

func stripPos(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i > 0 && strings.Count(msg[:i], ":") == 1 {
		return msg[i+2:]
	}
	return msg
}
