package rag

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/store"
)

// bibSample is a library whose first document has a bibliography entry.
func bibSample() *ragtest.Library {
	l := ragtest.New()
	l.All = true
	l.Add(store.Document{ID: "gao", Title: "HyDE", Path: "/p/hyde.pdf", Meta: map[string]string{
		bib.MetaCitekey: "gao2023", bib.MetaAuthors: `["Gao, Luyu", "Ma, Xueguang", "Lin, Jimmy"]`,
		bib.MetaYear: "2023", bib.MetaDOI: "10.18653/v1/2023.acl-long.99", bib.MetaTitle: "Precise Zero-Shot Dense Retrieval"}},
		ragtest.Seg("HyDE writes a hypothetical document and embeds it.", 5, "3 Method", "3.1 HyDE"))
	l.Add(store.Document{ID: "notes", Title: "Reading notes", Path: "/n/reading.md"},
		ragtest.Seg("HyDE needs no relevance labels, my notes say.", 0))
	return l
}

// TestCitationCarriesBibliography: the citation event of a document with
// a bibliography entry carries its citekey, authors, year and DOI, on
// the wire too; one without carries none.
func TestCitationCarriesBibliography(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"HyDE embeds a written document [source_1]; no labels [source_2]."}})
	defer srv.Close()
	p := NewPipeline(bibSample(), ModelAnswerer(connect(t, srv)), PipelineOptions{Neighbours: -1})
	events, err := collect(t, p, NewConversation("t"), "what is HyDE")
	if err != nil {
		t.Fatal(err)
	}
	var srcs []Source
	for _, e := range events {
		if e.Type == EventCitation {
			srcs = append(srcs, *e.Source)
		}
	}
	if len(srcs) != 2 {
		t.Fatalf("%d citations", len(srcs))
	}
	g, n := srcs[0], srcs[1]
	if g.Citekey != "gao2023" || !slices.Equal(g.Authors, []string{"Gao, Luyu", "Ma, Xueguang", "Lin, Jimmy"}) || g.Year != "2023" || g.DOI != "10.18653/v1/2023.acl-long.99" {
		t.Errorf("bibliography fields %+v", g)
	}
	if n.Citekey != "" || n.Authors != nil || n.Year != "" {
		t.Errorf("a document without an entry: %+v", n)
	}
	if got := g.Label(); got != "Gao et al. 2023 · p. 5 · § 3 Method › 3.1 HyDE" {
		t.Errorf("label %q", got)
	}
	if got := n.Label(); got != "Reading notes" {
		t.Errorf("label without an entry %q", got)
	}
	wire, _ := json.Marshal(Event{Type: EventCitation, Source: &g})
	for _, want := range []string{`"citekey":"gao2023"`, `"authors":["Gao, Luyu","Ma, Xueguang","Lin, Jimmy"]`, `"year":"2023"`, `"doi":"10.18653/v1/2023.acl-long.99"`} {
		if !strings.Contains(string(wire), want) {
			t.Errorf("wire form lacks %s: %s", want, wire)
		}
	}
	if wire, _ := json.Marshal(Event{Type: EventCitation, Source: &n}); strings.Contains(string(wire), "citekey") {
		t.Errorf("empty fields on the wire: %s", wire)
	}
	if got := SourceLine(g, false); got != "Gao et al. 2023 · p. 5 · § 3 Method › 3.1 HyDE — HyDE, /p/hyde.pdf" {
		t.Errorf("source line %q", got)
	}
}

func TestCiteGroup(t *testing.T) {
	var g CiteGroup
	if g.Open() || g.Flush() != "" {
		t.Fatal("an empty group writes something")
	}
	g.Add(Source{Citekey: "gao2023", PageStart: 5})
	g.Add(Source{Citekey: "gao2023", PageStart: 5})
	g.Add(Source{Citekey: "ma:2022", PageStart: 3, PageEnd: 4})
	g.Add(Source{Citekey: "Müller2021"})
	g.Add(Source{Citekey: "odd key{x}"})
	if got := g.Flush(); got != "[@gao2023, p. 5; @ma:2022, pp. 3–4; @Müller2021; @{odd keyx}]" {
		t.Errorf("group %q", got)
	}
	if g.Open() {
		t.Error("a flushed group is open")
	}
	for in, want := range map[string]string{"a.b": "@a.b", "a.": "@{a.}", "-a": "@{-a}", "a_b-c/d": "@a_b-c/d"} {
		if got := pandocKey(in); got != want {
			t.Errorf("pandocKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPandocMarkdownExport: a conversation exported with Pandoc
// citations names its bibliography, cites works with citekeys, and keeps
// footnotes (with definitions) only for the rest.
func TestPandocMarkdownExport(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"HyDE embeds a written document [source_1][source_1]; no labels [source_2]."}})
	defer srv.Close()
	p := NewPipeline(bibSample(), ModelAnswerer(connect(t, srv)), PipelineOptions{Neighbours: -1})
	c := NewConversation("t")
	if _, err := collect(t, p, c, "what is HyDE"); err != nil {
		t.Fatal(err)
	}
	got := c.PandocMarkdown("ibid-x.json")
	want := "---\nbibliography: \"ibid-x.json\"\n---\n\n" +
		"HyDE embeds a written document [@gao2023, p. 5]; no labels[^2].\n\n" +
		`[^2]: Reading notes, /n/reading.md: "HyDE needs no relevance labels, my notes say." *(partly supported: the passage says only some of this)*` + "\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if md := c.Markdown(); !strings.Contains(md, "[^1]: Gao et al. 2023 · p. 5 · § 3 Method › 3.1 HyDE — HyDE, /p/hyde.pdf") {
		t.Errorf("footnote export:\n%s", md)
	}
	works := CitedWorks(c.Snapshot().Turns[0].Sources, func(string) (store.Document, bool) { return store.Document{}, false })
	if len(works) != 1 || works[0].Key != "gao2023" || works[0].Authors[0].Family != "Gao" {
		t.Errorf("cited works %+v", works)
	}
}
