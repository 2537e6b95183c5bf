// Command logq runs the log-analytics service and talks to it.
//
//	logq serve [--addr :4000] [--api-key K]... [--endpoints DIR] [--demo]
//	logq query ENDPOINT [key=value]... [--json] [--url URL | --file SOURCE=PATH.ndjson...]
//	logq healthcheck [--url URL]
//	logq version
package main

import (
	"fmt"
	"io"
	"os"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  logq serve [--addr :4000] [--api-key KEY]... [--endpoints DIR] [--demo]
  logq query ENDPOINT [name=value]... [--json] [--url URL --api-key KEY | --file SOURCE=PATH.ndjson...]
  logq query ENDPOINT [name=value]... --explain [--file SOURCE=PATH.ndjson...]
  logq healthcheck [--url http://127.0.0.1:4000]
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
	case "healthcheck":
		return healthcheck(args[1:], stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "logq", version)
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "logq: unknown command %q\n%s", args[0], usage)
	return 2
}
