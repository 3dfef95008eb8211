package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/spf13/cobra"
)

// maxK bounds search -k: more passages than anyone reads, and a bound on
// the work and output one command line can ask for.
const maxK = 1000

// searchCommand is ibid search: the passages retrieval would hand the
// model.
func searchCommand(cfg *Config) *cobra.Command {
	var (
		k                  int
		doc, section, mode string
		full, explain      bool
	)
	c := &cobra.Command{
		Use:   "search QUERY",
		Short: "Show the passages retrieval would hand the model",
		Long: prose(`Shows the passages retrieval would hand the model for QUERY, best first:
score, document title, page, section, segment id and the text. Dense (the
embedder) and keyword (BM25) hits are fused; each passage also brings its
neighbouring segments into the model's context.`),
		Example: `ibid search "attention without recurrence"
ibid search -k 3 --doc vaswani --section Results "BLEU on WMT 2014"`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, words []string) error {
			query := strings.TrimSpace(strings.Join(words, " "))
			if query == "" {
				return errors.New(`search: give a query, e.g. ibid search "what limits the method"`)
			}
			if k < 1 || k > maxK {
				return fmt.Errorf("search: -k %d: give a number of passages from 1 to %d", k, maxK)
			}
			opt := retrieve.Options{K: k, Section: section, References: cfg.References}
			switch mode {
			case "default":
				opt.Mode = retrieve.Default
			case "hybrid":
				opt.Mode = retrieve.Hybrid
			case "dense":
				opt.Mode = retrieve.Dense
			case "bm25":
				opt.Mode = retrieve.Lexical
			default:
				return fmt.Errorf("search: --mode %q: use default, hybrid, dense or bm25", mode)
			}
			if doc != "" {
				opt.Documents = []string{doc}
			}
			return runSearch(cmd, cfg, query, opt, searchView{full: full, explain: explain})
		},
	}
	fs := c.Flags()
	cfg.libraryFlags(fs)
	cfg.embedderFlags(fs)
	fs.IntVarP(&k, "k", "k", 8, fmt.Sprintf("how many passages (at most %d)", maxK))
	fs.StringVar(&doc, "doc", "", "only documents whose id starts with, or whose path or file name matches, the glob PATTERN")
	fs.StringVar(&section, "section", "", "only segments under a section whose heading contains S")
	cfg.rerankFlag(fs)
	cfg.referencesFlag(fs)
	fs.StringVar(&cfg.Model, "model", cfg.Model, "chat model name (env IBID_MODEL), for --rerank llm")
	fs.BoolVar(&full, "full", false, "print each passage's whole text (default: the first lines)")
	fs.BoolVar(&explain, "explain", false, "show what matched: the rows search found (a hierarchical passage's children, a question the model wrote) and the text indexed in place of the document's (generated context or summary)")
	fs.StringVar(&mode, "mode", "default", "retrieval: default (bm25 with the local embedder, hybrid with a model's), hybrid (dense and BM25 fused), dense or bm25")
	_ = c.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions(
		[]string{"default", "hybrid", "dense", "bm25"}, cobra.ShellCompDirectiveNoFileComp))
	completeCommon(c, cfg)
	return c
}

// searchView is how search prints passages.
type searchView struct {
	full    bool // whole texts, not their first lines
	explain bool // what matched and what was indexed
}

func runSearch(cmd *cobra.Command, cfg *Config, query string, opt retrieve.Options, view searchView) error {
	ctx := cmd.Context()
	out := cmd.OutOrStdout()
	lib, err := openExisting(ctx, cfg, cfg.Library, searchable)
	if err != nil {
		return err
	}
	defer lib.Close()
	if _, segs, err := libraryContents(ctx, lib); err != nil {
		return err
	} else if segs == 0 {
		fmt.Fprintf(out, "library %q is empty; add documents with: ibid add --library %s PATH...\n", lib.Name(), lib.Name())
		return nil
	}
	if opt.Rerank, err = newReranker(ctx, cfg); err != nil {
		return err
	}
	ps, err := searchLibrary(ctx, lib, query, opt)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		fmt.Fprintf(out, "no passage in library %q matches; try other words, or fewer filters\n", lib.Name())
		return nil
	}
	tty, width := isTerminal(out)
	lines := 4
	if view.full {
		lines = 0
	}
	for i, p := range ps {
		printPassage(out, i+1, p, min(width, 100), lines, tty)
		if view.explain {
			printExplain(out, p, min(width, 100))
		}
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

// printExplain prints, under a passage, why search found it: the index
// rows that matched (children of a hierarchical parent, questions) and the
// text indexed in place of the document's own (generated context, summary,
// question). None of it is ever shown as the passage or cited.
func printExplain(w io.Writer, p retrieve.Passage, width int) {
	say := func(label, text string) {
		ls := wrapText(clean(text), width-len(label)-4)
		if len(ls) > explainLines {
			ls = ls[:explainLines]
			ls[explainLines-1] += " …"
		}
		for i, l := range ls {
			if i == 0 {
				fmt.Fprintf(w, "   %s %s\n", label, l)
			} else {
				fmt.Fprintf(w, "   %s %s\n", strings.Repeat(" ", len(label)), l)
			}
		}
	}
	if p.Segment.IndexText != "" {
		say("indexed as:", p.Segment.IndexText)
	}
	for _, h := range p.Hits {
		s := h.Segment
		switch {
		case s.Parent == "":
			say("also matched:", s.ID+" "+firstLine(s.Text))
		case s.Text == "":
			say("matched question:", s.KeywordText())
		case s.Text == p.Segment.Text && s.IndexText == "":
			say("matched:", "the passage's own text")
		case s.IndexText != "":
			say("matched "+s.ID+":", s.IndexText)
		default:
			say("matched "+s.ID+":", s.Text)
		}
	}
	if p.Segment.IndexText == "" && len(p.Hits) == 0 {
		say("matched:", "the passage's own text")
	}
	fmt.Fprintln(w)
}

// explainLines is how many lines --explain shows of each text.
const explainLines = 3

// firstLine is text's first line, cut to 80 columns.
func firstLine(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return fit(line, 80)
}
