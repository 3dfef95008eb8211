package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/store"
)

// bibLibrary is a library of three documents: two with bibliography
// entries (one with an accented author), one without.
func bibLibrary() *ragtest.Library {
	l := ragtest.New()
	l.All = true
	l.Add(store.Document{ID: "gao", Title: "Precise Zero-Shot Dense Retrieval", Path: "/papers/hyde.pdf", Meta: map[string]string{
		bib.MetaCitekey: "gao2023", bib.MetaAuthors: `["Gao, Luyu", "Ma, Xueguang", "Lin, Jimmy"]`, bib.MetaYear: "2023",
		bib.MetaTitle: "Precise Zero-Shot Dense Retrieval without Relevance Labels", bib.MetaVenue: "Proceedings of ACL 2023",
		bib.MetaDOI: "10.18653/v1/2023.acl-long.99", bib.MetaType: "paper-conference"}},
		ragtest.Seg("HyDE asks a language model to write a hypothetical document.", 5, "3 Method", "3.1 HyDE"),
		ragtest.Seg("The hypothetical document is embedded by a contrastive encoder.", 6, "3 Method", "3.2 Encoding"))
	l.Add(store.Document{ID: "mul", Title: "Über die Entstehung", Path: "/papers/muller.pdf", Meta: map[string]string{
		bib.MetaCitekey: "muller2021", bib.MetaAuthors: `["Müller, Jörg"]`, bib.MetaYear: "2021",
		bib.MetaTitle: "Über die Entstehung der Zitierpraxis", bib.MetaLanguage: "ngerman", bib.MetaVenue: "Zeitschrift für Wissenschaftsforschung", bib.MetaType: "article-journal"}},
		ragtest.Seg("Die Fußnote entstand aus der Randglosse.", 45))
	l.Add(store.Document{ID: "notes", Title: "Reading notes", Path: "/notes/reading.md"},
		ragtest.Seg("My notes say HyDE needs no relevance labels.", 0))
	return l
}

// pandocAnswer is an answer over bibLibrary in Markdown with Pandoc
// citations, and the CSL JSON of the works it cites.
func pandocAnswer(t *testing.T) (md string, csl []byte) {
	t.Helper()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{
		"HyDE writes a hypothetical document [source_1]. It is then embedded [source_2][source_1], ",
		"a practice older than footnotes [source_3]. No labels are needed [source_4, source_1].",
	}})
	defer srv.Close()
	lib := bibLibrary()
	p := rag.NewPipeline(lib, rag.ModelAnswerer(connect(t, srv)), rag.PipelineOptions{Neighbours: -1})
	var out bytes.Buffer
	w, err := NewWriterStyle("markdown", rag.CitePandoc, &out)
	if err != nil {
		t.Fatal(err)
	}
	var cited []rag.Source
	err = p.Answer(context.Background(), rag.NewConversation("t"), "what is HyDE?", func(e rag.Event) {
		if e.Type == rag.EventCitation {
			cited = append(cited, *e.Source)
		}
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	works := rag.CitedWorks(cited, func(id string) (store.Document, bool) {
		_, d, err := lib.Segment(context.Background(), id+":0")
		return d, err == nil
	})
	csl, err = bib.WriteCSL(works)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), csl
}

// TestMarkdownPandocCitations: documents with a citekey are cited as
// Pandoc citations with their page, adjacent references in one citation
// with each work once; the document without one keeps its footnote, and
// only it has a note.
func TestMarkdownPandocCitations(t *testing.T) {
	t.Parallel()
	md, csl := pandocAnswer(t)
	want := "HyDE writes a hypothetical document [@gao2023, p. 5]. It is then embedded [@gao2023, p. 6; @gao2023, p. 5], " +
		"a practice older than footnotes [@muller2021, p. 45]. No labels are needed[^4] [@gao2023, p. 5].\n" +
		"\n" +
		`[^4]: Reading notes, /notes/reading.md: "My notes say HyDE needs no relevance labels."` + "\n"
	if md != want {
		t.Errorf("got\n%s\nwant\n%s", md, want)
	}
	var items []map[string]any
	if err := jsonUnmarshal(csl, &items); err != nil || len(items) != 2 || items[0]["id"] != "gao2023" || items[1]["id"] != "muller2021" {
		t.Errorf("bibliography %s: %v", csl, err)
	}
}

// TestPandocCiteprocRoundTrip runs the real pandoc with --citeproc on an
// answer and its bibliography, with the style pandoc ships (Chicago
// author–date) and with a numeric CSL style of our own: the citations
// render with their pages, the bibliography lists the two cited works
// (the accented author too), and the document without a citekey stays a
// footnote. Skipped without pandoc.
func TestPandocCiteprocRoundTrip(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc is not installed")
	}
	md, csl := pandocAnswer(t)
	dir := t.TempDir()
	bibPath := filepath.Join(dir, "cited.json")
	if err := os.WriteFile(bibPath, csl, 0o644); err != nil {
		t.Fatal(err)
	}
	numeric, _ := filepath.Abs(filepath.Join("testdata", "numeric.csl"))
	for _, c := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"chicago author-date", nil, []string{
			"HyDE writes a hypothetical document (Gao, Ma, and Lin 2023, 5).",
			"It is then embedded (Gao, Ma, and Lin 2023, 6; 2023, 5)",
			"a practice older than footnotes (Müller 2021, 45)",
			"Gao, Luyu, Xueguang Ma, and Jimmy Lin. 2023. “Precise Zero-Shot Dense Retrieval Without Relevance Labels.” In Proceedings of ACL 2023. https://doi.org/10.18653/v1/2023.acl-long.99.",
			"Müller, Jörg. 2021. “Über die Entstehung der Zitierpraxis.” Zeitschrift für Wissenschaftsforschung.",
			"Reading notes, /notes/reading.md",
		}},
		{"numeric", []string{"--csl", numeric}, []string{
			"HyDE writes a hypothetical document [1, p. 5].",
			"a practice older than footnotes [2, p. 45]",
			"[1] L. Gao, X. Ma, and J. Lin. “Precise Zero-Shot Dense Retrieval without Relevance Labels.” Proceedings of ACL 2023. 2023. doi:10.18653/v1/2023.acl-long.99.",
			"[2] J. Müller. “Über die Entstehung der Zitierpraxis.” Zeitschrift für Wissenschaftsforschung. 2021.",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"-f", "markdown", "-t", "plain", "--wrap=none", "--citeproc", "--bibliography", bibPath}, c.args...)
			cmd := exec.Command("pandoc", args...)
			cmd.Stdin = strings.NewReader(md)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Fatalf("pandoc %v: %v\n%s", args, err, stderr.String())
			}
			for _, w := range c.wants {
				if !strings.Contains(string(out), w) {
					t.Errorf("pandoc's output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
