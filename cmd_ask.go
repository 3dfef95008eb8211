package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/headless"
	"github.com/ibid-dev/ibid/rag"
)

const askUsage = `
Usage: ibid ask [--library NAME] [--format text|markdown|ndjson] [--cite-format inline|json|sections] [--model M] [--base-url U] QUESTION

Answers one question from the library with cited sources, streaming as the
answer arrives, then exits. Formats:
  text      the answer with [n], then a numbered source list
  markdown  Pandoc footnotes ([^1] and their definitions)
  ndjson    one JSON event per line (see docs/answers.md)

With no model configured (OPENAI_BASE_URL, --base-url, or a local Ollama)
the answer is extractive: the best-matching sentences, each cited.

Examples:
  ibid ask "what limits the method?"
  ibid ask --format markdown "how was the data collected?" >> notes.md
`

func runAsk(ctx context.Context, s *stdio, args []string) error {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = usageFunc(fs, askUsage)
	var lf libraryFlags
	lf.register(fs)
	var mf modelFlags
	mf.register(fs)
	format := fs.String("format", "text", "output `format`: text, markdown or ndjson")
	words, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(words, " "))
	if question == "" {
		fs.Usage()
		return errors.New(`ask: give a question, e.g. ibid ask "what limits the method?"`)
	}
	out := bufio.NewWriter(s.out)
	w, err := headless.NewWriter(*format, out)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	lib, m, mode, err := openAnswerer(ctx, &lf, &mf)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	defer lib.Close()
	p := rag.NewPipeline(lib, m, rag.PipelineOptions{CiteFormat: mode})
	var writeErr error
	err = p.Answer(ctx, rag.NewConversation(lf.Library), question, func(e rag.Event) {
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

// openAnswerer opens the library the flags name and connects the model
// they name; m is nil when none answers (the extractive answerer). An empty
// library is an error that says how to fill it.
func openAnswerer(ctx context.Context, lf *libraryFlags, mf *modelFlags) (lib *rag.Library, m *rag.Model, mode citations.Mode, err error) {
	mode, err = citations.ParseMode(mf.CiteFormat)
	if err != nil {
		return nil, nil, mode, fmt.Errorf("--cite-format: %w (use inline, json or sections)", err)
	}
	lib, err = lf.open(ctx, false)
	if err != nil {
		return nil, nil, mode, err
	}
	if lib.Len() == 0 {
		lib.Close()
		return nil, nil, mode, fmt.Errorf("the library %q is empty: add documents with ibid add PATH", lf.Library)
	}
	m, err = rag.ConnectModel(ctx, modelConfig(mf))
	if err != nil {
		lib.Close()
		return nil, nil, mode, err
	}
	return lib, m, mode, nil
}

// modelConfig is the model the flags and environment name. IBID_NO_OLLAMA
// (any non-empty value) stops the look for a local Ollama.
func modelConfig(mf *modelFlags) rag.ModelConfig {
	return rag.ModelConfig{
		BaseURL:  mf.BaseURL,
		APIKey:   mf.APIKey,
		Model:    mf.Model,
		NoOllama: os.Getenv("IBID_NO_OLLAMA") != "",
	}
}
