package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/ibid-dev/ibid/store"
)

const lsUsage = `
Usage: ibid ls [--library NAME]

Lists a library's documents: short id (give it to ibid rm), title, format,
pages, segments and path, sorted by path.

Example:
  ibid ls --library thesis
`

func runLs(ctx context.Context, s *stdio, args []string) error {
	fs := flag.NewFlagSet("ls", flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = usageFunc(fs, lsUsage)
	var lf libraryFlags
	lf.register(fs)
	rest, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("ls: unexpected %q; name a library with --library NAME", rest[0])
	}
	lib, err := lf.openAny(ctx)
	if err != nil {
		return err
	}
	defer lib.Close()

	docs := lib.Documents()
	if len(docs) == 0 {
		fmt.Fprintf(s.out, "library %q is empty; add documents with: ibid add --library %s PATH...\n", lib.Name(), lib.Name())
		return nil
	}
	tty, width := isTerminal(s.out)
	fmt.Fprintf(s.out, "library %q: %d documents, %d segments, built with %s\n",
		lib.Name(), len(docs), lib.Len(), lib.EmbedderName())
	// The title gets what the other columns leave of a terminal's width
	// (the path is last and may run over); piped, a fixed 40.
	titleW := 40
	if tty {
		longest := 0
		for _, d := range docs {
			longest = max(longest, len(displayPath(d.Path)))
		}
		titleW = min(max(16, width-(12+1+1+8+1+5+1+5+2)-min(longest, 40)), 60)
	}
	fmt.Fprintf(s.out, "%-12s %s %-8s %5s %5s  %s\n", "ID", pad("TITLE", titleW), "FORMAT", "PAGES", "SEGS", "PATH")
	for _, d := range docs {
		pages := ""
		if d.Pages > 0 {
			pages = strconv.Itoa(d.Pages)
		}
		fmt.Fprintf(s.out, "%-12s %s %-8s %5s %5d  %s\n",
			shortID(d.ID), pad(docTitle(d), titleW), d.Format, pages, d.Segments, clean(displayPath(d.Path)))
	}
	return nil
}

// docTitle is a document's title, or its file name when it has none.
func docTitle(d store.Document) string {
	if t := clean(d.Title); t != "" {
		return t
	}
	return clean(baseName(d.Path))
}

func baseName(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' || path[i] == '\\' {
			return path[i+1:]
		}
	}
	return path
}
