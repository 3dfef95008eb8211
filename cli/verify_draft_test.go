package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag/library"
)

// TestVerifyDraftALCE: a sample draft citing the ALCE paper (a library
// built from a .bib naming its PDF) with one good citation, one wrong
// page, one unsupported claim and one unknown key: each is reported as
// such, the wrong page with the page that supports it.
func TestVerifyDraftALCE(t *testing.T) {
	pdf := shareddata.Path(t, "pdf", "alce-gao2023-citations.pdf")
	if testing.Short() {
		t.Skip("reads a PDF with the PDF engine")
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	dir := filepath.Dir(cmdEnv(t))
	t.Setenv("XDG_CACHE_HOME", cache) // the PDF engine's compiled code, kept between runs
	refs := writeFile(t, dir, "refs.bib", `@inproceedings{gao2023alce, author = {Gao, Tianyu and Yen, Howard and Yu, Jiatong and Chen, Danqi},
  title = {Enabling Large Language Models to Generate Text with Citations}, year = {2023}, file = {`+pdf+`}}`)
	if code, out, errs := runCmd(t, "add", refs); code != 0 {
		t.Fatalf("add: %d\n%s\n%s", code, out, errs)
	}
	draft := writeFile(t, dir, "draft.md", `---
title: Citing with care
bibliography: refs.json
---

# Related work

Most ELI5 questions are how, why and what questions that require in-depth long answers and multiple passages as evidence [@gao2023alce, p. 3].
Taking short 100-word passages makes them easier for humans to verify [@gao2023alce, p. 5].
The authors trained a vision transformer on satellite photographs of coral reefs [@gao2023alce, p. 2].
Transformers process all tokens in parallel [@vaswani2017].
`)
	ctx := context.Background()
	open := func() (*library.Library, error) {
		return openExisting(ctx, loadConfig(os.Getenv), "default", searchable)
	}
	fs, ok, err := draftFindings(ctx, draft, open, nil)
	if err != nil || !ok {
		t.Fatalf("draftFindings: %v %v", ok, err)
	}
	var out bytes.Buffer
	for _, f := range fs {
		if err := writeDraftFinding(&out, "text", "draft.md", f); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("verify printed:\n%s", out.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"draft.md:8 [@gao2023alce, p. 3] supported: p. 3 supports it",
		"draft.md:9 [@gao2023alce, p. 5] wrong page: p. 5 does not support it; p. 3 does",
		"draft.md:10 [@gao2023alce, p. 2] unsupported: no passage of p. 2 supports it",
		`draft.md:11 [@vaswani2017] unknown key: no document of the library has the citekey "vaswani2017"`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d:\n got %s\nwant %s…", i+1, lines[i], w)
		}
	}
	for i, f := range fs {
		if f.Status.Failed() != (i >= 1) {
			t.Errorf("%s: failed %v", f.Status, f.Status.Failed())
		}
	}
	var nd bytes.Buffer
	if err := writeDraftFinding(&nd, "ndjson", "draft.md", fs[1]); err != nil || !strings.Contains(nd.String(), `"status":"wrong_page"`) || !strings.Contains(nd.String(), `"support_page":3`) || !strings.Contains(nd.String(), `"input":"draft.md"`) {
		t.Errorf("ndjson %s %v", nd.String(), err)
	}
	// Not a manuscript, and a manuscript without citations.
	if _, ok, _ := draftFindings(ctx, refs, open, nil); ok {
		t.Error("a .bib was read as a manuscript")
	}
	plain := writeFile(t, dir, "plain.md", "# No citations\n\nJust text.\n")
	if _, ok, err := draftFindings(ctx, plain, open, nil); !ok || err == nil || !strings.Contains(err.Error(), "no Pandoc citation") {
		t.Errorf("a manuscript without citations: %v %v", ok, err)
	}
}
