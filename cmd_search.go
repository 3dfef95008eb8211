package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

const searchUsage = `
Usage: ibid search [--library NAME] [-k N] [--doc PATTERN] [--section S] QUERY

Shows the passages retrieval would hand the model for QUERY, best first:
score, document title, page, section, segment id and the text. Dense (the
embedder) and keyword (BM25) hits are fused; each passage also brings its
neighbouring segments into the model's context.

Examples:
  ibid search "attention without recurrence"
  ibid search -k 3 --doc vaswani --section Results "BLEU on WMT 2014"
`

func runSearch(ctx context.Context, s *stdio, args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = usageFunc(fs, searchUsage)
	var lf libraryFlags
	lf.register(fs)
	k := fs.Int("k", 8, "how many passages")
	doc := fs.String("doc", "", "only documents whose id starts with, or whose path or file name matches, the glob `PATTERN`")
	section := fs.String("section", "", "only segments under a section whose heading contains `S`")
	full := fs.Bool("full", false, "print each passage's whole text (default: the first lines)")
	mode := fs.String("mode", "hybrid", "retrieval: hybrid (dense and BM25 fused), dense or bm25")
	words, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(words, " "))
	if query == "" {
		fs.Usage()
		return errors.New(`search: give a query, e.g. ibid search "what limits the method"`)
	}
	if *k < 1 {
		return fmt.Errorf("search: -k must be at least 1, not %d", *k)
	}

	opt := retrieve.Options{K: *k, Section: *section}
	switch *mode {
	case "hybrid":
		opt.Mode = retrieve.Hybrid
	case "dense":
		opt.Mode = retrieve.Dense
	case "bm25":
		opt.Mode = retrieve.Lexical
	default:
		return fmt.Errorf("search: --mode %q: use hybrid, dense or bm25", *mode)
	}
	lib, err := lf.open(ctx, true) // a missing library is empty, not created
	if err != nil {
		return err
	}
	defer lib.Close()
	if lib.Len() == 0 {
		fmt.Fprintf(s.out, "library %q is empty; add documents with: ibid add --library %s PATH...\n", lib.Name(), lib.Name())
		return nil
	}
	if *doc != "" {
		opt.Documents = []string{*doc}
	}
	ps, err := lib.Search(ctx, query, opt)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		fmt.Fprintf(s.out, "no passage in library %q matches; try other words, or fewer filters\n", lib.Name())
		return nil
	}
	tty, width := isTerminal(s.out)
	lines := 4
	if *full {
		lines = 0
	}
	for i, p := range ps {
		printPassage(s.out, i+1, p, min(width, 100), lines, tty)
	}
	return nil
}

// printPassage prints one passage: a heading line (rank, score, title,
// page, section), the segment id and path, then the text wrapped to width
// and cut after maxLines lines (0: all). On a terminal (tty) the first two
// lines are cut to the width too; piped, they are whole.
func printPassage(w io.Writer, rank int, p retrieve.Passage, width, maxLines int, tty bool) {
	fit := fit
	if !tty {
		fit = func(s string, _ int) string { return s }
	}
	head := fmt.Sprintf("%d. %.4f  %s", rank, p.Score, docTitle(p.Document))
	if pg := pageLabel(p.Segment); pg != "" {
		head += " · " + pg
	}
	if sec := sectionLabel(p); sec != "" {
		head += " · " + sec
	}
	fmt.Fprintln(w, fit(head, width))
	meta := "   " + p.Segment.ID + "  " + clean(displayPath(p.Document.Path))
	if n := len(p.Context) - 1; n > 0 { // Context holds the hit too
		meta += fmt.Sprintf("  (+%d neighbouring segments for context)", n)
	}
	fmt.Fprintln(w, fit(meta, width))
	ls := wrapText(clean(p.Segment.Text), width-3)
	if maxLines > 0 && len(ls) > maxLines {
		ls = ls[:maxLines]
		ls[maxLines-1] = fit(ls[maxLines-1], width-4) + " …"
	}
	for _, l := range ls {
		fmt.Fprintln(w, "   "+l)
	}
	fmt.Fprintln(w)
}

// pageLabel is "p. 3" or "pp. 3–4" for a segment with pages.
func pageLabel(s store.Segment) string {
	switch {
	case s.PageStart <= 0:
		return ""
	case s.PageEnd > s.PageStart:
		return fmt.Sprintf("pp. %d–%d", s.PageStart, s.PageEnd)
	}
	return fmt.Sprintf("p. %d", s.PageStart)
}

// sectionLabel is a passage's section path, without a first heading that
// only repeats the document's title.
func sectionLabel(p retrieve.Passage) string {
	sec := p.Segment.Section
	if len(sec) > 0 && clean(sec[0]) == clean(p.Document.Title) {
		sec = sec[1:]
	}
	return clean(strings.Join(sec, " › "))
}
