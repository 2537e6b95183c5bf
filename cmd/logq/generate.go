package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"logq/fixtures"
)

// generate writes the demo records of one source as NDJSON, the input of
// `logq query --file SOURCE=PATH` (the same generator --demo uses).
func generate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("generate", stderr)
	source := fs.String("source", "cloudflare.logs.prod", "source to generate: "+strings.Join(fixtures.Sources, ", "))
	n := fs.Int("events", 1000, "number of events, spread over the 7 days before now")
	out := fs.String("out", "-", "file to write; - is standard output")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || *n <= 0 || !slices.Contains(fixtures.Sources, *source) {
		fmt.Fprintf(stderr, "logq generate: want --source one of %s and --events > 0\n", strings.Join(fixtures.Sources, ", "))
		return 2
	}
	w := stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(stderr, "logq generate:", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	// In batches: 10M edge events are about 22 GB of JSON.
	fixtures.GenerateBatches(fixtures.DefaultSpec(*n, time.Now().UTC()), *source, 10000, func(evs [][]byte) {
		for _, ev := range evs {
			bw.Write(ev)
			bw.WriteByte('\n')
		}
	})
	if err := bw.Flush(); err != nil {
		fmt.Fprintln(stderr, "logq generate:", err)
		return 1
	}
	return 0
}
