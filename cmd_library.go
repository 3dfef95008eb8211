package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/retrieve"
)

// This file holds what the library commands (add, ls, rm, search) share:
// opening the library their flags name, parsing flags mixed with
// arguments, and printing documents' text safely.

// embedder is the embedder the flags ask for: an OpenAI-compatible
// endpoint (OPENAI_BASE_URL, OPENAI_API_KEY) with --embed-model, else nil,
// which lets the library pick (the local embedder).
func (f *libraryFlags) embedder() (retrieve.Embedder, error) {
	if f.EmbedModel == "" {
		return nil, nil
	}
	emb, err := retrieve.NewOpenAIEmbedder(retrieve.OpenAIEmbedderConfig{
		BaseURL: os.Getenv("OPENAI_BASE_URL"),
		APIKey:  os.Getenv("OPENAI_API_KEY"),
		Model:   f.EmbedModel,
	})
	if err != nil {
		return nil, fmt.Errorf("--embed-model: %w", err)
	}
	return emb, nil
}

// open opens the library the flags name, with the embedder they ask for.
// With anyEmbedder (search) a library that does not exist opens empty
// instead of being created, and one built by an embedder not at hand
// opens too, its Search then saying how to run it.
func (f *libraryFlags) open(ctx context.Context, anyEmbedder bool) (*rag.Library, error) {
	emb, err := f.embedder()
	if err != nil {
		return nil, err
	}
	return rag.OpenLibrary(ctx, rag.LibraryOptions{Name: f.Library, Embedder: emb, AnyEmbedder: anyEmbedder})
}

// openAny opens the library the flags name whatever embedder built it,
// ignoring --embed-model: listing and removing need none.
func (f *libraryFlags) openAny(ctx context.Context) (*rag.Library, error) {
	return rag.OpenLibrary(ctx, rag.LibraryOptions{Name: f.Library, AnyEmbedder: true})
}

// parseMixed parses args with fs, allowing flags after arguments too
// (ibid add paper.pdf --library x); "--" ends the flags.
func parseMixed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		remaining := fs.Args()
		if used := len(args) - len(remaining); used > 0 && args[used-1] == "--" {
			return append(rest, remaining...), nil
		}
		if len(remaining) == 0 {
			return rest, nil
		}
		rest = append(rest, remaining[0])
		args = remaining[1:]
	}
}

// usageFunc returns a flag.FlagSet Usage that prints text, then the flags.
func usageFunc(fs *flag.FlagSet, text string) func() {
	return func() {
		w := fs.Output()
		fmt.Fprint(w, strings.TrimLeft(text, "\n"))
		fmt.Fprintln(w, "\nFlags:")
		fs.PrintDefaults()
	}
}

// isTerminal reports whether w is a terminal, and its width (80 if not
// known).
func isTerminal(w io.Writer) (bool, int) {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(f.Fd()) {
		return false, 80
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil || width <= 0 {
		width = 80
	}
	return true, width
}

// clean makes text from a document safe and compact to print: control
// characters (escape sequences among them) dropped, runs of white space
// one space.
func clean(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), r == '\u200b', r == '\ufeff':
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fit cuts s to width cells, marking a cut with "…".
func fit(s string, width int) string {
	return ansi.Truncate(s, width, "…")
}

// pad fits s to exactly width cells.
func pad(s string, width int) string {
	s = fit(s, width)
	if w := ansi.StringWidth(s); w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// displayPath shows path relative to the working folder when it is under
// it, else with the home folder as ~.
func displayPath(path string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, path); err == nil && filepath.IsLocal(rel) {
			return rel
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && filepath.IsLocal(rel) {
			return filepath.Join("~", rel)
		}
	}
	return path
}

// shortID is the first 12 characters of a document id, enough to name it
// to ibid rm.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// wrapText wraps plain text (no escape sequences) to width cells: at
// spaces, and between any two wide (CJK) characters, which need none; a
// word longer than the width is cut.
func wrapText(s string, width int) []string {
	var lines []string
	var line strings.Builder
	lineW := 0
	flush := func() {
		lines = append(lines, strings.TrimRight(line.String(), " "))
		line.Reset()
		lineW = 0
	}
	for _, tok := range wrapTokens(s) {
		if tok == " " {
			if lineW > 0 && lineW < width {
				line.WriteByte(' ')
				lineW++
			}
			continue
		}
		w := ansi.StringWidth(tok)
		if lineW > 0 && lineW+w > width {
			flush()
		}
		for w > width { // a word wider than a line: cut it
			head := ansi.Truncate(tok, width, "")
			line.WriteString(head)
			flush()
			tok = tok[len(head):]
			w = ansi.StringWidth(tok)
		}
		line.WriteString(tok)
		lineW += w
	}
	if lineW > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// wrapTokens splits s into words, single spaces, and wide characters each
// on its own.
func wrapTokens(s string) []string {
	var toks []string
	start := -1
	for i, r := range s {
		switch {
		case r == ' ':
			if start >= 0 {
				toks = append(toks, s[start:i])
				start = -1
			}
			toks = append(toks, " ")
		case ansi.StringWidth(string(r)) == 2:
			if start >= 0 {
				toks = append(toks, s[start:i])
				start = -1
			}
			toks = append(toks, string(r))
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		toks = append(toks, s[start:])
	}
	return toks
}
