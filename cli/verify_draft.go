package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ibid-dev/ibid/headless"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/support"
)

// This file is the manuscript input of ibid verify: a Markdown draft
// whose Pandoc citations ([@key], [@key, p. 5]) are checked against the
// library (rag.ParseDraft, rag.VerifyDraft).

// draftExts are the file names read as manuscripts.
var draftExts = map[string]bool{".md": true, ".markdown": true, ".txt": true, ".qmd": true, ".rmd": true, ".text": true}

// maxDraftBytes bounds a manuscript read into memory.
const maxDraftBytes = 64 << 20

// draftFindings checks the manuscript at arg against lib; ok is false
// when arg is not a manuscript (not a Markdown or text file), so that
// another kind of input may read it. A manuscript without a Pandoc
// citation is an error that says what ibid looks for.
func draftFindings(ctx context.Context, arg string, lib func() (*library.Library, error), pass *support.Pass) ([]rag.DraftFinding, bool, error) {
	if !draftExts[strings.ToLower(filepath.Ext(arg))] {
		return nil, false, nil
	}
	f, err := os.Open(arg)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDraftBytes+1))
	if err != nil {
		return nil, true, err
	}
	if len(data) > maxDraftBytes {
		return nil, true, fmt.Errorf("larger than %d MB; is it a manuscript?", maxDraftBytes>>20)
	}
	cites := rag.ParseDraft(string(data))
	if len(cites) == 0 {
		return nil, true, errors.New("no Pandoc citation in it ([@key] or [@key, p. 5]); ibid verify checks a manuscript's citations against the library's citekeys (ibid add refs.bib gives documents theirs)")
	}
	l, err := lib()
	if err != nil {
		return nil, true, err
	}
	fs, err := rag.VerifyDraft(ctx, l, cites, rag.DraftOptions{Pass: pass})
	return fs, true, err
}

// verifyDraft is the manuscript kind of ibid verify's inputs: a Markdown
// or text file whose Pandoc citations are checked against --library.
func verifyDraft(ctx context.Context, arg string, env *verifyEnv) ([]rag.Finding, bool, error) {
	dfs, ok, err := draftFindings(ctx, arg, func() (*library.Library, error) { return env.lib(ctx, "") }, env.opt.Pass)
	if !ok || err != nil {
		return nil, ok, err
	}
	fs := make([]rag.Finding, len(dfs))
	for i, f := range dfs {
		fs[i] = f.Finding()
	}
	return fs, true, nil
}

// writeDraftLine writes a manuscript citation's finding as a line of
// text: "draft.md:12 [@gao2023, p. 2] wrong page: …", then the sentence
// of the work that supports it, quoted.
func writeDraftLine(w io.Writer, input string, f rag.Finding) error {
	cite := "@" + f.Citekey
	if f.Locator != "" {
		cite += ", " + f.Locator
	}
	status := string(f.Kind)
	if f.Kind == rag.FindingOK {
		status = string(f.Verdict)
	}
	line := fmt.Sprintf("%s:%d [%s] %s: %s", input, f.Line, cite, strings.ReplaceAll(status, "_", " "), f.Message)
	if f.Sentence != "" {
		line += `: "` + clip(f.Sentence, 160) + `"`
	}
	_, err := fmt.Fprintln(w, headless.TerminalSafe(line))
	return err
}

// clip cuts s to about n bytes at a word, with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
	}
	return strings.TrimSpace(s[:cut]) + "…"
}
