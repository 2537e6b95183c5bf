package golden

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/tools/txtar"
)

// Case is one golden case.
type Case struct {
	Name    string // the file's base name without .txtar
	File    string
	Query   string
	Params  map[string]string
	Sources []string            // the input sources, in the order the file lists them
	Inputs  map[string][][]byte // each source's events, one NDJSON line each
	// Want, Error and Plan are the sections of those names; Has says
	// which sections the case has.
	Want, Error, Plan string
	Has               map[string]bool
	// Archive is the file as parsed, for a test that rewrites a section.
	Archive *txtar.Archive
}

// Dir is the directory of the golden cases.
func Dir() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "testdata", "golden")
}

// All reads every golden case, sorted by name.
func All() ([]*Case, error) {
	files, err := filepath.Glob(filepath.Join(Dir(), "*.txtar"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no golden cases in %s", Dir())
	}
	out := make([]*Case, 0, len(files))
	for _, f := range files {
		c, err := Read(f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Read reads one golden case.
func Read(file string) (*Case, error) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		return nil, err
	}
	c := &Case{
		Name: strings.TrimSuffix(filepath.Base(file), ".txtar"), File: file, Archive: ar,
		Params: map[string]string{}, Inputs: map[string][][]byte{}, Has: map[string]bool{},
	}
	for _, s := range ar.Files {
		data := string(s.Data)
		if src, ok := strings.CutPrefix(s.Name, "input/"); ok {
			if _, seen := c.Inputs[src]; !seen {
				c.Sources = append(c.Sources, src)
				c.Inputs[src] = nil
			}
			for _, line := range strings.Split(data, "\n") {
				if strings.TrimSpace(line) != "" {
					c.Inputs[src] = append(c.Inputs[src], []byte(line))
				}
			}
			continue
		}
		c.Has[s.Name] = true
		switch s.Name {
		case "query.sql":
			c.Query = data
		case "params":
			for _, line := range strings.Split(data, "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					c.Params[k] = v
				}
			}
		case "want":
			c.Want = data
		case "error":
			c.Error = data
		case "plan":
			c.Plan = data
		default:
			return nil, fmt.Errorf("%s: unknown section %q", file, s.Name)
		}
	}
	if !c.Has["query.sql"] {
		return nil, fmt.Errorf("%s: no query.sql section", file)
	}
	return c, nil
}
