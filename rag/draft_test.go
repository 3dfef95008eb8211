package rag

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/bib"
	checker "github.com/ibid-dev/ibid/rag/support"
	"github.com/ibid-dev/ibid/store"
)

func TestParseDraft(t *testing.T) {
	md := "---\ntitle: \"A draft [@notacite]\"\nbibliography: refs.json\n---\n\n" +
		"# Related work\n\n" +
		"Dense retrieval needs labels [@karpukhin2020, p. 3]. HyDE needs none\n[see @gao2023, pp. 5–7; @ma:2022, 12].\n\n" +
		"@smith2004 [p. 33] says so, and @{odd key} agrees [-@jones2019]. Mail me at ana@example.org.\n\n" +
		"Code `[@incode]` and an escaped \\@notme, a link [@x](http://e.org) and a note[^1].\n\n" +
		"```\n[@infence]\n```\n\n" +
		"A chapter [@book2001, chap. 3] and a plain one [@plain2020].\n"
	got := ParseDraft(md)
	want := []string{
		`karpukhin2020 p3-0 "p. 3" line 8: Dense retrieval needs labels.`,
		`gao2023 p5-7 "pp. 5–7" line 9: HyDE needs none.`,
		`ma:2022 p12-0 "12" line 9: HyDE needs none.`,
		`smith2004 p33-0 "p. 33" line 11: smith2004 says so, and odd key agrees.`,
		`odd key p0-0 "" line 11: smith2004 says so, and odd key agrees.`,
		`jones2019 p0-0 "" line 11: smith2004 says so, and odd key agrees.`,
		`book2001 p0-0 "chap. 3" line 19: A chapter and a plain one.`,
		`plain2020 p0-0 "" line 19: A chapter and a plain one.`,
	}
	var lines []string
	for _, c := range got {
		lines = append(lines, fmt.Sprintf("%s p%d-%d %q line %d: %s", c.Key, c.Page, c.PageEnd, c.Locator, c.Line, c.Claim))
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// memLibrary is a library in a memory store, for VerifyDraft.
type memLibrary struct{ st store.Store }

func (m memLibrary) Documents(ctx context.Context) ([]store.Document, error) {
	return m.st.Documents(ctx)
}
func (m memLibrary) Store() store.Store { return m.st }
func (m memLibrary) Segments(ctx context.Context, id string) ([]store.Segment, error) {
	segs, err := m.st.Segments(ctx, id, 0, -1)
	return store.Passages(segs), err
}

// hydeLibrary holds one paper with a citekey, a passage a page.
func hydeLibrary(t *testing.T) memLibrary {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, "memory:", store.Options{Library: "draft", Info: store.Info{Embedder: "none", Dimension: 2}, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	doc := store.Document{ID: "hyde", Path: "/p/hyde.pdf", Hash: "h", Title: "Precise Zero-Shot Dense Retrieval", Format: "pdf", Pages: 8,
		Meta: map[string]string{bib.MetaCitekey: "gao2023", bib.MetaAuthors: `["Gao, Luyu"]`, bib.MetaYear: "2023"}}
	pages := []struct {
		page int
		text string
	}{
		{1, "Dense retrieval systems work well when relevance labels are available, but zero-shot dense retrieval remains difficult."},
		{2, "We propose to pivot through hypothetical document embeddings. The method is called HyDE."},
		{5, "Given a query, HyDE first instructs an instruction-following language model to write a hypothetical document that answers it."},
		{6, "A contrastive encoder then embeds the hypothetical document into a vector, and its neighbours in the corpus are retrieved."},
		{8, "HyDE outperforms the unsupervised Contriever on TREC DL19 and DL20 without any relevance labels."},
	}
	var segs []store.Segment
	off := 0
	for i, p := range pages {
		segs = append(segs, store.Segment{ID: "hyde:" + strconv.Itoa(i), DocumentID: "hyde", Index: i, Text: p.text,
			PageStart: p.page, PageEnd: p.page, Start: off, End: off + len(p.text), Vector: []float32{1, 0}})
		off += len(p.text) + 2
	}
	doc.Segments = len(segs)
	if err := st.Update(ctx, []store.Put{{Document: doc, Segments: segs}}, nil); err != nil {
		t.Fatal(err)
	}
	return memLibrary{st}
}

// TestVerifyDraft: a sample draft with one good citation, one wrong page,
// one unsupported claim and one unknown key, each reported as such.
func TestVerifyDraft(t *testing.T) {
	draft := "# Related work\n\n" +
		"HyDE first instructs an instruction-following language model to write a hypothetical document [@gao2023, p. 5]. " +
		"A contrastive encoder then embeds the hypothetical document into a vector [@gao2023, p. 2]. " +
		"HyDE was trained on millions of labelled query-passage pairs from MS MARCO [@gao2023, p. 8]. " +
		"Transformers process all tokens in parallel [@vaswani2017]. " +
		"HyDE first instructs an instruction-following language model to write a hypothetical document [@Gao2023, p. 5].\n"
	fs, err := VerifyDraft(context.Background(), hydeLibrary(t), ParseDraft(draft), DraftOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s p%d → %s (p%d): %s", f.Key, f.Page, f.Status, f.SupportPage, f.Message))
	}
	want := []string{
		"gao2023 p5 → supported (p5): p. 5 supports it",
		"gao2023 p2 → wrong_page (p6): p. 2 does not support it; p. 6 does",
		"gao2023 p8 → unsupported (p8): no passage of p. 8 supports it",
		`vaswani2017 p0 → unknown_key (p0): no document of the library has the citekey "vaswani2017" (add its bibliography: ibid add refs.bib)`,
		`Gao2023 p5 → supported (p5): p. 5 supports it (the library's citekey is "gao2023": Pandoc may not find "Gao2023")`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if fs[0].Verdict != checker.Supported || fs[1].Verdict != checker.Supported || fs[2].Verdict != checker.Unsupported || fs[3].Verdict != "" {
		t.Errorf("verdicts %q %q %q %q", fs[0].Verdict, fs[1].Verdict, fs[2].Verdict, fs[3].Verdict)
	}
	if fs[0].Sentence == "" || !strings.Contains(fs[0].Sentence, "hypothetical document") || fs[0].SegmentID != "hyde:2" {
		t.Errorf("the supporting passage of the good citation: %+v", fs[0])
	}
	for i, f := range fs[:4] {
		if failed := f.Status.Failed(); failed != (i >= 1) {
			t.Errorf("%s: failed %v", f.Status, failed)
		}
	}
}

// FuzzParseDraft: any manuscript reads without panic into citations with
// a key, one-line claims and sane pages.
func FuzzParseDraft(f *testing.F) {
	for _, s := range []string{"Claim [@a, p. 5].", "@b [pp. 3-4] says.", "[see @c; -@d, 7]", "`[@e]` [@f](x) [^1]", "---\nx: [@g]\n---\n[@h]", "[@{i j}]\n\n[@k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		for _, c := range ParseDraft(md) {
			if c.Key == "" || strings.ContainsAny(c.Claim, "\n\r") || c.Page < 0 || c.PageEnd != 0 && c.PageEnd <= c.Page || c.Line < 1 {
				t.Fatalf("citation %+v", c)
			}
		}
	})
}
