package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/library"
)

// A bibliography to add: a .bib or CSL JSON file, or the Zotero library
// ("zotero:", "zotero:collection/NAME").
type bibArg struct {
	arg        string // as given
	zotero     bool
	collection string // zotero:collection/NAME
}

// name is how reports call the bibliography.
func (b bibArg) name() string {
	switch {
	case b.zotero && b.collection != "":
		return fmt.Sprintf("Zotero collection %q", b.collection)
	case b.zotero:
		return "Zotero library"
	}
	return displayPath(b.arg)
}

// splitBibArgs takes the bibliographies out of add's arguments: .bib,
// .bibtex, .biblatex and .json files, and zotero: sources.
func splitBibArgs(args []string) (files []string, bibs []bibArg, err error) {
	for _, a := range args {
		coll, ok, err := bib.ParseZoteroSource(a)
		switch {
		case err != nil:
			return nil, nil, fmt.Errorf("add: %w", err)
		case ok:
			bibs = append(bibs, bibArg{arg: a, zotero: true, collection: coll})
		case bib.IsFile(a):
			bibs = append(bibs, bibArg{arg: a})
		default:
			files = append(files, a)
		}
	}
	return files, bibs, nil
}

// readBib reads a bibliography's entries; problems are what was left
// out of it (a syntax error, a duplicate key).
func readBib(ctx context.Context, cfg *Config, b bibArg) (library.Bibliography, []bib.Problem, error) {
	if b.zotero {
		z := &bib.Zotero{BaseURL: cfg.ZoteroURL}
		entries, err := z.Entries(ctx, b.collection)
		if err != nil {
			return library.Bibliography{}, nil, err
		}
		source := "zotero:"
		if b.collection != "" {
			source = "zotero:collection/" + b.collection
		}
		return library.Bibliography{Source: source, Entries: entries, Attachments: cfg.Attachments}, nil, nil
	}
	abs, err := filepath.Abs(b.arg)
	if err != nil {
		return library.Bibliography{}, nil, err
	}
	attachments := cfg.Attachments
	if attachments != "" {
		if attachments, err = filepath.Abs(attachments); err != nil {
			return library.Bibliography{}, nil, err
		}
	}
	entries, problems, err := bib.ReadFile(abs)
	if err != nil {
		return library.Bibliography{}, nil, fmt.Errorf("couldn't read the bibliography: %w", err)
	}
	return library.Bibliography{Source: abs, Entries: entries, Dir: filepath.Dir(abs), Attachments: attachments}, problems, nil
}

// addBibliographies adds each bibliography's files with their metadata
// and prints what was done; it reports whether anything is in the
// library for them (added, unchanged or updated).
func addBibliographies(ctx context.Context, cfg *Config, lib *library.Library, bibs []bibArg, opt library.AddOptions, pr *addPrinter, w io.Writer) (bool, error) {
	found := false
	for _, b := range bibs {
		if b.zotero {
			pr.note("reading the Zotero library…")
		}
		bb, problems, err := readBib(ctx, cfg, b)
		if err != nil {
			return found, err
		}
		rep, err := lib.AddBibliography(ctx, bb, opt, pr.progress)
		pr.clear()
		if rep != nil {
			printBibReport(w, b.name(), len(bb.Entries), rep, problems)
			printAddReport(w, lib, rep.AddReport)
			found = found || len(rep.Added)+len(rep.Unchanged)+len(rep.Updated)+len(rep.Replaced)+len(rep.Moved)+len(rep.Reindexed) > 0
		}
		if err != nil {
			return found, err
		}
	}
	return found, nil
}

// attachBibliographies gives the library's documents the metadata of
// their entries in each bibliography (add --bib), adding no file.
func attachBibliographies(ctx context.Context, cfg *Config, lib *library.Library, args []string, w io.Writer) error {
	for _, a := range args {
		_, bibs, err := splitBibArgs([]string{a})
		if err != nil {
			return err
		}
		if len(bibs) == 0 {
			return fmt.Errorf("--bib %s: give a .bib, .bibtex, .biblatex or CSL .json file, or zotero: (the Zotero library)", a)
		}
		bb, problems, err := readBib(ctx, cfg, bibs[0])
		if err != nil {
			return err
		}
		rep, err := lib.AttachBibliography(ctx, bb)
		if rep != nil {
			printBibReport(w, bibs[0].name(), len(bb.Entries), rep, problems)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// printBibReport prints what became of a bibliography's entries: the
// counts, each entry without a readable file with its reason, notes, and
// what of the file could not be read.
func printBibReport(w io.Writer, name string, entries int, rep *library.BibReport, problems []bib.Problem) {
	noun := "entries"
	if entries == 1 {
		noun = "entry"
	}
	fmt.Fprintf(w, "%s: %d %s, %d with a document (%d added, %d updated, %d unchanged), %d without\n",
		clean(name), entries, noun, len(rep.Files),
		len(rep.Added)+len(rep.Replaced)+len(rep.Moved), len(rep.Updated), len(rep.Unchanged), len(rep.Missing))
	for _, m := range rep.Missing {
		fmt.Fprintf(w, "  no file  %s%s: %s\n", clean(m.Key), titleHint(m.Title), clean(m.Text))
	}
	for _, n := range rep.EntryNotes {
		fmt.Fprintf(w, "  note     %s: %s\n", clean(n.Key), clean(n.Text))
	}
	for _, u := range rep.Unmatched {
		fmt.Fprintf(w, "  unmatched %s: no entry's DOI or title\n", clean(displayPath(u)))
	}
	for _, p := range problems {
		label := "not read"
		if p.Note {
			label = "note    "
		}
		fmt.Fprintf(w, "  %s %s\n", label, clean(p.String()))
	}
}

// titleHint is " (Title…)" for a report line, cut short.
func titleHint(title string) string {
	if title == "" {
		return ""
	}
	const most = 48
	r := []rune(title)
	if len(r) > most {
		title = strings.TrimSpace(string(r[:most])) + "…"
	}
	return " (" + title + ")"
}

// errNothingFromBib is add's error when no bibliography entry has a
// document.
var errNothingFromBib = errors.New("add: no entry of the bibliography has a readable file; see the reasons above (a relative path is relative to the .bib file's folder; --attachments DIR looks for the files in a folder)")
