package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/ibid-dev/ibid/headless"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/store"
	"github.com/spf13/cobra"
)

// askCommand is ibid ask: one cited answer, streamed, then exit.
func askCommand(cfg *Config) *cobra.Command {
	var format, resume, cite, bibliography string
	var explain, failOnUnsupported bool
	c := &cobra.Command{
		Use:   "ask QUESTION",
		Short: "Answer one question with cited sources, then exit",
		Long: prose(`Answers one question from the library with cited sources, streaming as the
answer arrives, then exits. Formats:
  text      the answer with [n], then a numbered source list
  markdown  Pandoc footnotes ([^1] and their definitions); with --cite pandoc,
            Pandoc citations ([@gao2023, p. 5]) for documents with a citekey
            (a bibliography gave them one) and footnotes for the rest
  ndjson    one JSON event per line (see docs/answers.md)

--bibliography FILE writes the cited works that have a citekey to FILE as
CSL JSON (added to it, when it exists), for pandoc --citeproc.

With no model configured (OPENAI_BASE_URL, --base-url, or a local Ollama)
the answer is extractive: the sentences that answer, each cited.

Every answer is saved as a conversation; --resume asks the next question in
the latest one (or --resume=ID in a given one), so a short follow-up such as
"and how is precision computed?" is read against the question before it.`),
		Example: `ibid ask "what limits the method?"

# A follow-up, read against the question before it:
ibid ask "how is citation recall computed?"
ibid ask --resume "and how is precision computed?"

# Footnotes into your notes:
ibid ask --format markdown "how was the data collected?" >> notes.md

# Citations for your manuscript, rendered by pandoc in any CSL style:
ibid ask --format markdown --cite pandoc --bibliography cited.json "what is HyDE?" > answer.md
pandoc --citeproc --bibliography cited.json --csl apa.csl answer.md -o answer.docx`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, words []string) error {
			return runAsk(cmd, cfg, askFlags{format, resume, cite, bibliography, explain, failOnUnsupported}, words)
		},
	}
	fs := c.Flags()
	cfg.libraryFlags(fs)
	cfg.embedderFlags(fs)
	cfg.modelFlags(fs)
	fs.StringVar(&format, "format", "text", "output format: text, markdown or ndjson")
	fs.StringVar(&cite, "cite", "footnotes", "how Markdown cites: footnotes, or pandoc ([@key, p. 5] for documents with a citekey)")
	fs.StringVar(&bibliography, "bibliography", "", "write the cited works with a citekey to this CSL JSON file (added to it when it exists)")
	fs.BoolVar(&explain, "explain", false, "say on standard error why the extractive answerer chose each sentence, or declined")
	fs.BoolVar(&failOnUnsupported, "fail-on-unsupported", false,
		"exit with status 1 when a footnote's passage does not support the sentence that cites it (docs/support.md)")
	fs.StringVar(&resume, "resume", "",
		"continue a saved conversation (the chat's, or an earlier ask's): --resume the latest, --resume=ID a given one; the answer is saved to it")
	fs.Lookup("resume").NoOptDefVal = resumeLatest
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(
		[]string{"text", "markdown", "ndjson"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("cite", cobra.FixedCompletions(
		[]string{"footnotes", "pandoc"}, cobra.ShellCompDirectiveNoFileComp))
	completeCommon(c, cfg)
	return c
}

// askFlags are ask's own flags.
type askFlags struct {
	format, resume, cite, bibliography string
	explain                            bool
	failOnUnsupported                  bool
}

func runAsk(cmd *cobra.Command, cfg *Config, f askFlags, words []string) error {
	question := strings.TrimSpace(strings.Join(words, " "))
	if question == "" {
		return errors.New(`ask: give a question, e.g. ibid ask "what limits the method?"`)
	}
	ctx := cmd.Context()
	style, err := rag.ParseCiteStyle(f.cite)
	if err != nil {
		return fmt.Errorf("ask: --cite: %w", err)
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	w, err := headless.NewWriterStyle(f.format, style, out)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	if f.bibliography != "" {
		if err := checkBibliography(f.bibliography); err != nil {
			return fmt.Errorf("ask: --bibliography: %w", err)
		}
	}
	conv, convDir, err := resumeConversation(f.resume)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	if conv != nil {
		cfg.Library = conv.Library
	} else {
		// A new conversation is saved too, so that ask --resume can follow
		// up on it ("And how is precision computed?").
		conv = rag.NewConversation(cfg.Library)
		if convDir, err = rag.ConversationsDir(); err != nil {
			return fmt.Errorf("ask: %w", err)
		}
	}
	lib, a, err := openAnswerer(ctx, cfg, false)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	defer lib.Close()
	rr, err := newReranker(ctx, cfg)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	judge, err := verifyJudge(ctx, cfg)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	opt := rag.PipelineOptions{CiteFormat: cfg.CiteFormat, Numbering: cfg.Numbering, Rerank: rr, References: cfg.References, Verify: judge}
	if f.explain {
		opt.Explain = func(line string) { fmt.Fprintln(cmd.ErrOrStderr(), "explain: "+headless.TerminalSafe(line)) }
	}
	p := rag.NewPipeline(lib, a, opt)
	// Retry waits (a rate limit, a busy server) are said as they start.
	ctx = llm.WithNotify(ctx, func(w llm.Wait) {
		fmt.Fprintln(cmd.ErrOrStderr(), "ibid: "+headless.TerminalSafe(w.String()))
	})
	var writeErr error
	var cited []rag.Source
	verdicts := rag.Verdicts{}
	err = p.Answer(ctx, conv, question, func(e rag.Event) {
		verdicts.Add(e)
		if e.Type == rag.EventCitation {
			cited = append(cited, *e.Source)
		}
		if writeErr == nil {
			writeErr = w.Write(e)
		}
	})
	if ferr := out.Flush(); writeErr == nil {
		writeErr = ferr
	}
	if convDir != "" {
		if serr := conv.Save(convDir); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	if writeErr != nil {
		return fmt.Errorf("ask: couldn't write the answer: %w", writeErr)
	}
	if f.bibliography != "" {
		works := rag.CitedWorks(cited, func(id string) (store.Document, bool) {
			d, err := lib.Document(ctx, id)
			return d, err == nil
		})
		n, err := writeBibliography(f.bibliography, works)
		if err != nil {
			return fmt.Errorf("ask: couldn't write the bibliography: %w", err)
		}
		switch {
		case len(works) == 0:
			fmt.Fprintf(cmd.ErrOrStderr(), "ibid: no cited document has a citekey; %s has nothing new (add a bibliography: ibid add refs.bib)\n", f.bibliography)
		default:
			fmt.Fprintf(cmd.ErrOrStderr(), "ibid: %s in %s, %d new\n", plural(len(works), "cited work"), f.bibliography, n)
		}
	}
	if bad := verdicts.Unsupported(); f.failOnUnsupported && len(bad) > 0 {
		what := "footnotes " + rag.RefList(bad) + " are"
		if len(bad) == 1 {
			what = "footnote " + rag.RefList(bad) + " is"
		}
		return fmt.Errorf("ask: %s not supported by the passage cited (--fail-on-unsupported)", what)
	}
	return nil
}

// checkBibliography refuses, before an answer is made, a --bibliography
// file that exists and is not CSL JSON, so that it is never overwritten.
func checkBibliography(path string) error {
	err := bib.CheckCSLFile(path)
	if errors.Is(err, bib.ErrNotCSL) {
		return fmt.Errorf("%w; name a new file or a CSL JSON file", err)
	}
	return err
}

// writeBibliography adds works to the CSL JSON file at path (creating
// it), keeping what it holds; it returns how many were new. The file is
// replaced atomically.
func writeBibliography(path string, works []bib.Entry) (int, error) {
	return bib.AddToCSLFile(path, works)
}
