package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ibid-dev/ibid/headless"
	"github.com/ibid-dev/ibid/rag"
)

// askCommand is ibid ask: one cited answer, streamed, then exit.
func askCommand(cfg *Config) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "ask QUESTION",
		Short: "Answer one question with cited sources, then exit",
		Long: prose(`Answers one question from the library with cited sources, streaming as the
answer arrives, then exits. Formats:
  text      the answer with [n], then a numbered source list
  markdown  Pandoc footnotes ([^1] and their definitions)
  ndjson    one JSON event per line (see docs/answers.md)

With no model configured (OPENAI_BASE_URL, --base-url, or a local Ollama)
the answer is extractive: the best-matching sentences, each cited.`),
		Example: `ibid ask "what limits the method?"

# Footnotes into your notes:
ibid ask --format markdown "how was the data collected?" >> notes.md`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, words []string) error {
			return runAsk(cmd, cfg, format, words)
		},
	}
	fs := c.Flags()
	cfg.libraryFlags(fs)
	cfg.embedderFlags(fs)
	cfg.modelFlags(fs)
	fs.StringVar(&format, "format", "text", "output format: text, markdown or ndjson")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(
		[]string{"text", "markdown", "ndjson"}, cobra.ShellCompDirectiveNoFileComp))
	completeCommon(c, cfg)
	return c
}

func runAsk(cmd *cobra.Command, cfg *Config, format string, words []string) error {
	question := strings.TrimSpace(strings.Join(words, " "))
	if question == "" {
		return errors.New(`ask: give a question, e.g. ibid ask "what limits the method?"`)
	}
	ctx := cmd.Context()
	out := bufio.NewWriter(cmd.OutOrStdout())
	w, err := headless.NewWriter(format, out)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	lib, m, mode, err := openAnswerer(ctx, cfg)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	defer lib.Close()
	p := rag.NewPipeline(lib, m, rag.PipelineOptions{CiteFormat: mode})
	var writeErr error
	err = p.Answer(ctx, rag.NewConversation(cfg.Library), question, func(e rag.Event) {
		if writeErr == nil {
			writeErr = w.Write(e)
		}
	})
	if ferr := out.Flush(); writeErr == nil {
		writeErr = ferr
	}
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	if writeErr != nil {
		return fmt.Errorf("ask: couldn't write the answer: %w", writeErr)
	}
	return nil
}
