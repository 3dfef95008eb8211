package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/spf13/cobra"
)

// addCommand is ibid add: files, folders and globs into a library.
func addCommand(cfg *Config) *cobra.Command {
	c := &cobra.Command{
		Use:   "add [PATH | REFS.bib | REFS.json | zotero: ...]",
		Short: "Add files, folders, globs or a bibliography to a library",
		Long: prose(`Adds files, folders (recursively) and globs to a library: PDF, Markdown,
text and HTML. A file already in the library is left alone when unchanged
and replaced when its content changed; files that cannot be read are
skipped, each with its reason, and the rest are added. Stop with Ctrl+C at
any time: the library keeps the documents that were whole.

The library follows the paths it was given: ibid sync adds what is new
under them, replaces what changed and removes what is gone, and the chat
and ibid serve do so by themselves while they run (--no-follow adds
without following).

Libraries live in $XDG_DATA_HOME/ibid/libraries (default ~/.local/share),
or in the folder --store names. A library remembers the embedder that
built it; use the same one later.

A library also remembers its indexing strategy (--strategy, shown by ibid
ls): recursive (the default: sections, paragraphs, sentences, about 300
tokens), semantic (cut where the topic changes), hierarchical (small
chunks are searched, the model reads their section, up to ~2,000 tokens,
with short sections around it; on long papers it finds as many answers in
its top 20 as recursive but ranks them lower in the top 5, so keep
recursive unless you measured otherwise: docs/indexing.md), and three that ask a chat model to write what is indexed: contextual (a
short context situating each chunk in its document), window-summary (a
running summary) and questions (questions each chunk answers). What the
model writes only steers search; answers always quote and cite the
document's own text. The model's work is cached, so an interrupted add
never pays for it twice, and its cost is reported at the end.

A bibliography brings your reference manager's library in: a BibTeX or
BibLaTeX file (.bib, as Zotero, Better BibTeX, JabRef, Mendeley and BibDesk
export it) or CSL JSON (.json) adds each entry's attached file with the
entry's citekey, title, authors, year, venue, DOI and URL; relative paths
are relative to the .bib file's folder. An entry without a readable file is
listed with the reason. zotero: reads the running Zotero 7 app through its
local API (switch it on in Zotero: Settings → Advanced → "Allow other
applications on this computer to communicate with Zotero"), and
zotero:collection/NAME one collection with its subcollections. --bib gives
the documents already in the library their entries' metadata, matched by
DOI or by title and first author, without adding files. Adding a
bibliography again after the manager changed it updates what changed.`),
		Example: `# A folder, recursively:
ibid add ~/papers

# A glob, into the library "thesis":
ibid add --library thesis notes/*.md

# Index a library hierarchically (the model reads whole sections):
ibid add --library thesis --strategy hierarchical ~/papers

# Index it again with another strategy:
ibid add --library thesis --strategy contextual --model llama3.2 --reindex

# Embed with an OpenAI-compatible endpoint:
ibid add --embed-model nomic-embed-text --base-url http://localhost:11434/v1 paper.pdf

# A Zotero or Better BibTeX export, with its PDFs:
ibid add ~/thesis/refs.bib

# The running Zotero's library, or one collection of it:
ibid add zotero:
ibid add zotero:collection/Thesis

# CSL JSON whose files are in a folder, matched by DOI or title:
ibid add --attachments ~/papers refs.json

# Give a library built from a folder its bibliography:
ibid add --bib refs.bib`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			return runAdd(cmd, cfg, paths)
		},
	}
	fs := c.Flags()
	cfg.libraryFlags(fs)
	cfg.embedderFlags(fs)
	fs.Var(byteSize{&cfg.MaxFileSize}, "max-file-size",
		"skip files larger than this size (bytes, or with KB, MB, GB: 200MB); 0 leaves the limit to the library")
	fs.StringVar(&cfg.Strategy, "strategy", "",
		"how to index: "+strategyNames()+"; empty keeps the library's (recursive for a new library); see docs/indexing.md")
	fs.BoolVar(&cfg.Reindex, "reindex", false, "index the library's documents again with --strategy when it was indexed with another")
	fs.BoolVar(&cfg.NoFollow, "no-follow", false, "add without following the paths: ibid sync and the chat's watching leave them alone")
	fs.StringArrayVar(&cfg.Bib, "bib", nil, "give the documents already in the library the metadata of this bibliography's entries (.bib, CSL .json or zotero:), matched by DOI or title and first author; adds no file")
	fs.StringVar(&cfg.Attachments, "attachments", "", "folder where a bibliography's entries without a file of their own are looked for (by DOI, citekey or title), and Zotero's linked attachment base folder")
	fs.StringVar(&cfg.ZoteroURL, "zotero-url", cfg.ZoteroURL, "Zotero's local API (env IBID_ZOTERO_URL; default http://127.0.0.1:23119/api/)")
	fs.StringVar(&cfg.OCRLang, "ocr-lang", "", "Tesseract's languages for scanned PDF pages, e.g. deu+eng (its language packs installed: apt-get install tesseract-ocr-deu); empty is English")
	fs.StringVar(&cfg.EnrichModel, "enrich-model", cfg.EnrichModel,
		"chat model that writes what contextual, window-summary and questions index (env IBID_ENRICH_MODEL); empty uses --model")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "chat model name (env IBID_MODEL), for the strategies that need one")
	_ = c.RegisterFlagCompletionFunc("strategy", cobra.FixedCompletions(strategyList(), cobra.ShellCompDirectiveNoFileComp))
	completeCommon(c, cfg)
	return c
}

func runAdd(cmd *cobra.Command, cfg *Config, args []string) error {
	if len(args) == 0 && !cfg.Reindex && len(cfg.Bib) == 0 {
		return errors.New("add: give the files or folders to add, e.g. ibid add ~/papers, or a bibliography: ibid add refs.bib")
	}
	paths, bibs, err := splitBibArgs(args)
	if err != nil {
		return err
	}
	if cfg.Attachments != "" && len(bibs) == 0 && len(cfg.Bib) == 0 {
		return errors.New("add: --attachments is where a bibliography's files are; give the bibliography too, e.g. ibid add --attachments ~/papers refs.json")
	}
	ctx := cmd.Context()
	want, err := parseStrategy(cfg)
	if err != nil {
		return err
	}
	var e *enricher
	if want.NeedsModel() {
		// Refused before the library is opened (and perhaps created).
		if e, err = newEnricher(ctx, cfg, want); err != nil {
			return err
		}
	}
	lib, err := openLibrary(ctx, cfg, cfg.Library, writable)
	if err != nil {
		return err
	}
	defer lib.Close()
	as, err := settleAdd(ctx, cfg, lib, want, e)
	if err != nil {
		return err
	}

	stderr := cmd.ErrOrStderr()
	tty, width := isTerminal(stderr)
	pr := &addPrinter{w: stderr, tty: tty, width: width, lib: lib.Name()}
	if len(cfg.Bib) > 0 {
		if err := attachBibliographies(ctx, cfg, lib, cfg.Bib, cmd.OutOrStdout()); err != nil {
			return err
		}
	}
	if len(bibs) > 0 {
		found, err := addBibliographies(ctx, cfg, lib, bibs, as.opt, pr, cmd.OutOrStdout())
		if err != nil {
			return addError(err, cfg, lib.Name())
		}
		if !found && len(paths) == 0 {
			return errNothingFromBib
		}
	}
	if len(paths) == 0 && (len(bibs) > 0 || len(cfg.Bib) > 0) && !cfg.Reindex {
		return nil
	}
	rep, err := addFiles(ctx, lib, paths, as.opt, pr.progress)
	pr.clear()
	if refused(err) {
		return addError(err, cfg, lib.Name()) // nothing was done: no report
	}
	printAddReport(cmd.OutOrStdout(), lib, rep)
	if as.enrich != nil {
		as.enrich.PrintReport(cmd.OutOrStdout())
	}
	if err != nil {
		return addError(err, cfg, lib.Name())
	}
	if len(paths) == 0 { // --reindex alone
		if len(rep.Reindexed) == 0 {
			fmt.Fprintf(cmd.OutOrStdout(), "every document of library %q is indexed with %s already\n", lib.Name(), as.opt.Strategy)
		}
		return nil
	}
	if len(rep.Added)+len(rep.Unchanged)+len(rep.Replaced)+len(rep.Moved)+len(rep.Reindexed) == 0 {
		return errors.New("add: nothing could be added; ibid reads " + ingest.SupportedList() + ": check the paths and the reasons above")
	}
	return nil
}

// addPrinter shows an add's progress: on a terminal one line redrawn in
// place, otherwise a plain line per file.
type addPrinter struct {
	w     io.Writer
	tty   bool
	width int
	lib   string
	drawn bool      // a progress line is on screen
	last  time.Time // when it was drawn
}

func (p *addPrinter) progress(ap library.AddProgress) {
	if !p.tty {
		switch ap.Stage {
		case library.StageFile:
			fmt.Fprintf(p.w, "[%d/%d] %s: %s, %s\n", ap.FilesDone, ap.FilesTotal,
				clean(displayPath(ap.File)), clean(ap.Status), plural(ap.FileSegments, "segment"))
		case library.StageSkip:
			fmt.Fprintf(p.w, "[%d/%d] %s: skipped\n", ap.FilesDone, ap.FilesTotal, clean(displayPath(ap.File)))
		}
		return
	}
	// Redraw at most 20 times a second, but always the last state.
	if ap.Stage != library.StageDone && ap.Stage != library.StageFile && time.Since(p.last) < 50*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprint(p.w, "\r\x1b[K"+fit(progressLine(ap, p.width), p.width-1))
	p.drawn = true
}

// note shows a line about what add is doing before its files' progress.
func (p *addPrinter) note(msg string) {
	if p.tty {
		p.clear()
		fmt.Fprint(p.w, "\r\x1b[K"+fit(msg, p.width-1))
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, msg)
}

// clear removes the progress line.
func (p *addPrinter) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// progressLine is the one-line view of an add: a bar over files, then
// counts and the current file.
func progressLine(ap library.AddProgress, width int) string {
	barWidth := min(max(width/6, 8), 30)
	filled := 0
	if ap.FilesTotal > 0 {
		filled = barWidth * ap.FilesDone / ap.FilesTotal
	}
	bar := strings.Repeat("█", filled) + strings.Repeat("░", barWidth-filled)
	line := fmt.Sprintf("%s %d/%d files · %d segments", bar, ap.FilesDone, ap.FilesTotal, ap.Segments)
	if ap.Stage == library.StageEnrich && ap.ToEnrich > 0 {
		line += fmt.Sprintf(" · enriching %d/%d", ap.Enriched, ap.ToEnrich)
	}
	if ap.ToEmbed > 0 && ap.Embedded < ap.ToEmbed {
		line += fmt.Sprintf(" · embedding %d/%d", ap.Embedded, ap.ToEmbed)
	}
	switch ap.Stage {
	case library.StageOCR:
		line += fmt.Sprintf(" · OCR page %d/%d · %s", ap.OCRDone, ap.OCRTotal, filepath.Base(ap.File))
	case library.StageLoad, library.StageEnrich, library.StageEmbed:
		line += " · " + filepath.Base(ap.File)
	case library.StageStore:
		line += " · saving"
	}
	return line
}

// printAddReport prints what an add did: the counts, the replaced and
// moved documents, and each skipped file with its reason.
func printAddReport(w io.Writer, lib *library.Library, rep *library.AddReport) {
	if rep == nil {
		return
	}
	parts := []string{
		fmt.Sprintf("%d added", len(rep.Added)),
		fmt.Sprintf("%d unchanged", len(rep.Unchanged)),
		fmt.Sprintf("%d replaced", len(rep.Replaced)),
	}
	if len(rep.Moved) > 0 {
		parts = append(parts, fmt.Sprintf("%d moved", len(rep.Moved)))
	}
	if len(rep.Reindexed) > 0 {
		parts = append(parts, fmt.Sprintf("%d re-indexed", len(rep.Reindexed)))
	}
	if len(rep.Updated) > 0 {
		parts = append(parts, fmt.Sprintf("%d with new metadata", len(rep.Updated)))
	}
	parts = append(parts, fmt.Sprintf("%d skipped", len(rep.Skipped)))
	segs := 0
	for _, d := range rep.Added {
		segs += d.Segments
	}
	for _, d := range rep.Replaced {
		segs += d.Segments
	}
	for _, d := range rep.Reindexed {
		segs += d.Segments
	}
	docs, all, err := libraryContents(context.Background(), lib)
	if err != nil {
		fmt.Fprintf(w, "library %q: %s (%d new segments; couldn't count the rest: %v)\n", lib.Name(), strings.Join(parts, ", "), segs, err)
		return
	}
	fmt.Fprintf(w, "library %q: %s (%d new segments; %d documents, %d segments in all)\n",
		lib.Name(), strings.Join(parts, ", "), segs, len(docs), all)
	for _, d := range rep.Replaced {
		fmt.Fprintf(w, "  replaced %s (changed since it was added)\n", displayPath(d.Path))
	}
	for _, d := range rep.Moved {
		fmt.Fprintf(w, "  moved    %s (same content, old path gone)\n", displayPath(d.Path))
	}
	for _, sk := range rep.Skipped {
		fmt.Fprintf(w, "  skipped  %s: %s\n", displayPath(sk.Path), clean(sk.Reason))
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "  note     %s: %s\n", displayPath(n.Path), clean(n.Text))
	}
}
