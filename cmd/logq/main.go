// Command logq runs the log-analytics service and talks to it.
//
//	logq serve [--addr :4000] [--api-key K]... [--endpoints DIR] [--demo]
//	logq query ENDPOINT [key=value]... [--json] [--url URL | --file SOURCE=PATH.ndjson...]
//	logq healthcheck [--addr ADDR | --url URL]
//	logq endpoints|sources [--json] [--url URL --api-key KEY]
//	logq generate [--source SOURCE] [--events N] [--out FILE]
//	logq test [--run REGEXP] [-v] FILE...
//	logq version
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// version and buildTime may be set at build time with
// -ldflags "-X main.version=v1.2.3 -X main.buildTime=2026-01-02T03:04:05Z";
// otherwise they come from the build info (module version, VCS time).
var version, buildTime string

// versionLine is what `logq version` prints: version, VCS revision (with
// "+dirty" for a modified tree) and time: the build time when the build set
// it (the Dockerfile does), else the commit time the build info records,
// each labelled as what it is.
func versionLine() string {
	v, rev, at, when := version, "unknown", buildTime, "built"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" {
			v = bi.Main.Version
		}
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				if at == "" {
					at, when = s.Value, "committed"
				}
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty {
			rev += "+dirty"
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if at == "" {
		at = "unknown"
	}
	return fmt.Sprintf("logq %s (revision %s, %s %s, %s)", v, rev, when, at, runtime.Version())
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  logq serve [--addr :4000] [--api-key KEY]... [--endpoints DIR] [--demo]
  logq query ENDPOINT [name=value]... [--json] [--url URL --api-key KEY | --file SOURCE=PATH.ndjson...]
  logq query ENDPOINT [name=value]... --explain [--file SOURCE=PATH.ndjson...]
  logq query --sql 'SELECT …' [name=value]... [--json] [--url URL --api-key KEY | --file SOURCE=PATH.ndjson...]
  logq tail SOURCE [--lql FILTER] [--from now|start|CURSOR] [--json] --url URL --api-key KEY
  logq healthcheck [--addr :4000 | --url http://127.0.0.1:4000]
  logq endpoints [--json] [--url URL --api-key KEY | --endpoints DIR]
  logq sources [--json] [--url URL --api-key KEY | --file SOURCE=PATH.ndjson...]
  logq drains [--json] --url URL --api-key KEY
  logq generate [--source cloudflare.logs.prod] [--events 1000] [--out FILE.ndjson]
  logq test [--run REGEXP] [-v] FILE.test.yaml...
  logq version
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "query":
		return query(args[1:], stdout, stderr)
	case "tail":
		return tail(args[1:], stdout, stderr)
	case "healthcheck":
		return healthcheck(args[1:], stdout, stderr)
	case "endpoints", "sources", "drains":
		return catalog(args[0], args[1:], stdout, stderr)
	case "generate":
		return generate(args[1:], stdout, stderr)
	case "test":
		return testCmd(args[1:], stdout, stderr)
	case "version", "--version", "-v":
		if len(args) > 1 && (args[1] == "-h" || args[1] == "--help" || args[1] == "-help") {
			fmt.Fprint(stdout, "usage:\n  logq version\n\nprints the version, the VCS revision, the build time and the Go version.\n")
			return 0
		}
		fmt.Fprintln(stdout, versionLine())
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "logq: unknown command %q\n%s", args[0], usage)
	return 2
}

// newFlagSet makes a command's flag set whose --help shows the command's
// lines of usage (its arguments) before its flags.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage:")
		for _, l := range strings.Split(usage, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "logq "+name+" ") || strings.TrimSpace(l) == "logq "+name {
				fmt.Fprintln(stderr, l)
			}
		}
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	return fs
}

// parseInterleaved parses args with fs where flags may come before, between
// or after the positional arguments (logq query logs.all project=x --json),
// and returns the positional ones. help reports --help (answered: exit 0);
// err, a flag fs refused (already printed with the usage).
func parseInterleaved(fs *flag.FlagSet, args []string) (positional []string, help bool, err error) {
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, errors.Is(err, flag.ErrHelp), err
		}
		args = fs.Args()
		if len(args) > 0 {
			positional = append(positional, args[0])
			args = args[1:]
		}
	}
	return positional, false, nil
}
