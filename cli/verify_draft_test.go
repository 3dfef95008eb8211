package cli

import (
	"context"
	"encoding/json"
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
	code, out, errs := runCmd(t, "verify", draft)
	t.Logf("ibid verify printed:\n%s%s", out, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		draft + ":8 [@gao2023alce, p. 3] supported: p. 3 supports it",
		draft + ":9 [@gao2023alce, p. 5] wrong page: p. 5 does not support it; p. 3 does",
		draft + ":10 [@gao2023alce, p. 2] unsupported: no passage of p. 2 supports it",
		draft + `:11 [@vaswani2017] unknown key: no document of the library has the citekey "vaswani2017"`,
	}
	if code != exitError || !strings.Contains(errs, "3 of 4 citations need a look") {
		t.Errorf("exit %d, stderr %q; want 1 and 3 of 4 citations", code, errs)
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d:\n got %s\nwant %s…", i+1, lines[i], w)
		}
	}
	if !strings.Contains(lines[1], `p. 3 does: "`) {
		t.Errorf("the wrong page does not quote the page that supports it: %s", lines[1])
	}

	code, out, _ = runCmd(t, "verify", "--format", "ndjson", draft)
	var fs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var f map[string]any
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("ndjson line %q: %v", l, err)
		}
		fs = append(fs, f)
	}
	if code != exitError || len(fs) != 4 {
		t.Fatalf("ndjson: exit %d, %d objects\n%s", code, len(fs), out)
	}
	for i, w := range []struct {
		status, verdict   string
		page, supportPage float64
	}{{"ok", "supported", 3, 3}, {"wrong_page", "supported", 5, 3}, {"unsupported", "unsupported", 2, 2}, {"unknown_key", "", 0, 0}} {
		f := fs[i]
		if f["input"] != draft || f["status"] != w.status || f["citekey"] == nil || f["line"] != float64(8+i) ||
			(w.verdict != "" && f["verdict"] != w.verdict) || (w.page > 0 && f["page"] != w.page) ||
			(w.supportPage > 0 && f["support_page"] != w.supportPage) || f["answer"] != nil || f["display_number"] != nil {
			t.Errorf("ndjson %d: %v, want status %s verdict %s page %v support_page %v", i, f, w.status, w.verdict, w.page, w.supportPage)
		}
	}

	// Only the good citation: status 0.
	good := writeFile(t, dir, "good.md", "Most ELI5 questions are how, why and what questions that require in-depth long answers and multiple passages as evidence [@gao2023alce, p. 3].\n")
	if code, out, errs := runCmd(t, "verify", good); code != 0 || !strings.Contains(out, "supported: p. 3 supports it") {
		t.Errorf("a good draft: exit %d\n%s\n%s", code, out, errs)
	}
	// A manuscript without citations, and one that is not there: status 2.
	plain := writeFile(t, dir, "plain.md", "# No citations\n\nJust text.\n")
	if code, _, errs := runCmd(t, "verify", plain); code != exitBadInput || !strings.Contains(errs, "no Pandoc citation") {
		t.Errorf("a manuscript without citations: exit %d %q", code, errs)
	}
	if code, _, errs := runCmd(t, "verify", filepath.Join(dir, "gone.md")); code != exitBadInput || !strings.Contains(errs, "gone.md: no such file") {
		t.Errorf("a manuscript that is not there: exit %d %q", code, errs)
	}
	// A .bib is no manuscript.
	if _, ok, _ := draftFindings(context.Background(), refs, func() (*library.Library, error) { return nil, nil }, nil); ok {
		t.Error("a .bib was read as a manuscript")
	}
}
