package ui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/ui/backend"
)

// bibBackend is a backend.RAG over a library built from a .bib (two notes
// with entries, one without) and a model that cites all three.
func bibBackend(t *testing.T) *backend.RAG {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("tides.md", "# Spring tides\n\nSpring tides come at new and full moon, when Sun and Moon pull together.\n")
	write("neap.md", "# Neap tides\n\nNeap tides come at the quarter moons, when Sun and Moon pull at right angles.\n")
	notes := write("notes.md", "# Notes\n\nTide tables list high water twice a day.\n")
	refs := write("refs.bib", `@article{garcia2020, author = {Garc{\'\i}a, Mar{\'\i}a and Ortiz, Ana and Lee, Kim}, title = {Spring Tides}, journal = {Ocean Letters}, year = 2020, file = {tides.md}}
@book{baker2019, author = {Baker, Ann}, title = {Neap Tides}, year = 2019, file = {neap.md}}`)
	lib, err := library.Open(context.Background(), library.Options{Name: "bib", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	entries, _, err := bib.ReadFile(refs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.AddBibliography(context.Background(), library.Bibliography{Source: refs, Entries: entries, Dir: dir}, library.AddOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Add(context.Background(), []string{notes}, nil); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Spring tides come at new moon [source_1]; neap tides at the quarters [source_2][source_1]. Tables [source_3]."}})
	t.Cleanup(srv.Close)
	return backend.NewRAG(lib, rag.ModelAnswerer(connectModel(t, srv)), rag.PipelineOptions{Neighbours: -1}, nil, nil)
}

// TestBibliographyInTheChat: the sources pane names a work of the
// bibliography by author and year, then its title; the viewer's header
// does too; a document without an entry keeps its title.
func TestBibliographyInTheChat(t *testing.T) {
	t.Parallel()
	tm := newTM(t, bibBackend(t), 160, 48)
	tm.Type("when do spring tides come?")
	tm.Send(press("enter"))
	// The notes' headings are their titles: no section to show; the title
	// follows the work.
	scr := waitScreen(t, tm, "[1] García et al. 2020 ", "    Spring tides ", "[2] Baker 2019 ", "    Neap tides ", "[3] Notes ")
	if strings.Contains(scr, "[1] Spring tides") {
		t.Errorf("the sources pane names the work by its title:\n%s", scr)
	}
	tm.Send(press("tab"))
	tm.Send(press("]"))
	waitScreen(t, tm, "Spring tides come at new and full moon, when Sun and", "Moon pull together.") // the tooltip: its snippet whole
	tm.Send(press("enter"))
	waitScreen(t, tm, "[1] García et al. 2020 — Spring tides") // the viewer's header
	tm.Send(press("esc"))
	tm.Send(press("ctrl+c"))
	fm := final(t, tm)
	if tip := fm.tooltip(60); len(tip) == 0 || !strings.Contains(tip[0], "[1] García et al. 2020") {
		t.Errorf("tooltip %q", tip)
	}
}

// exportPandoc asks b when spring tides come, waits for the sources
// (answered), exports the chat with /export FILE pandoc, waits for the
// status line's said, and returns the file written and its path.
func exportPandoc(t *testing.T, b backend.Backend, answered, said string) (md []byte, path string) {
	t.Helper()
	tm := newTM(t, b, 160, 48)
	tm.Type("when do spring tides come?")
	tm.Send(press("enter"))
	waitScreen(t, tm, answered)
	path = filepath.Join(t.TempDir(), "answer.md")
	tm.Type("/export " + path + " pandoc")
	tm.Send(press("enter"))
	waitScreen(t, tm, said)
	tm.Send(press("ctrl+c"))
	final(t, tm)
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return md, path
}

// TestExportPandoc: /export FILE pandoc writes Pandoc citations, the
// document without a citekey as a footnote, and the cited works beside
// it as CSL JSON named in its metadata; pandoc --citeproc renders it.
func TestExportPandoc(t *testing.T) {
	t.Parallel()
	md, out := exportPandoc(t, bibBackend(t), "Sources (3)", "with its bibliography")
	want := "---\nbibliography: \"answer.json\"\n---\n\nSpring tides come at new moon [@garcia2020]; neap tides at the quarters [@baker2019; @garcia2020]. Tables[^3].\n\n"
	if !strings.HasPrefix(string(md), want) || !strings.Contains(string(md), "[^3]: Notes") {
		t.Errorf("export:\n%s\nwant it to begin\n%s", md, want)
	}
	csl, err := os.ReadFile(filepath.Join(filepath.Dir(out), "answer.json"))
	if err != nil || !strings.Contains(string(csl), `"id": "garcia2020"`) || !strings.Contains(string(csl), `"id": "baker2019"`) {
		t.Fatalf("bibliography %s, %v", csl, err)
	}
	if _, err := exec.LookPath("pandoc"); err != nil {
		return
	}
	cmd := exec.Command("pandoc", "--citeproc", "-t", "plain", "--wrap=none", filepath.Base(out))
	cmd.Dir = filepath.Dir(out)
	got, err := cmd.Output()
	for _, w := range []string{"(García, Ortiz, and Lee 2020)", "(Baker 2019; García, Ortiz, and Lee 2020)", "Baker, Ann. 2019. Neap Tides.", "García, María, Ana Ortiz, and Kim Lee. 2020. “Spring Tides.” Ocean Letters."} {
		if err != nil || !strings.Contains(string(got), w) {
			t.Errorf("pandoc --citeproc lacks %q (%v):\n%s", w, err, got)
		}
	}
}

// TestExportPandocNoCitekeys: /export FILE pandoc in a chat whose
// sources have no citekey writes them as footnotes, with no bibliography
// named or written beside it (an empty "[]" one was), and says why.
func TestExportPandocNoCitekeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notes := filepath.Join(dir, "tides.md")
	if err := os.WriteFile(notes, []byte("# Spring tides\n\nSpring tides come at new and full moon.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(context.Background(), library.Options{Name: "plain", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	if _, err := lib.Add(context.Background(), []string{notes}, nil); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Spring tides come at new moon [source_1]."}})
	t.Cleanup(srv.Close)
	b := backend.NewRAG(lib, rag.ModelAnswerer(connectModel(t, srv)), rag.PipelineOptions{Neighbours: -1}, nil, nil)
	md, out := exportPandoc(t, b, "Sources (1)", "no cited work has a citekey")
	if want := "Spring tides come at new moon[^1].\n\n"; !strings.HasPrefix(string(md), want) || !strings.Contains(string(md), "[^1]: Spring tides") {
		t.Errorf("export:\n%s\nwant it to begin\n%s", md, want)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(out), "answer.json")); err == nil {
		t.Error("an empty bibliography was written beside the export")
	}
}

func TestExportArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args  []string
		path  string
		style rag.CiteStyle
		err   bool
	}{
		{nil, "", rag.CiteFootnotes, false},
		{[]string{"a.md"}, "a.md", rag.CiteFootnotes, false},
		{[]string{"a.md", "pandoc"}, "a.md", rag.CitePandoc, false},
		{[]string{"pandoc"}, "", rag.CitePandoc, false},
		{[]string{"--cite", "pandoc", "a.md"}, "a.md", rag.CitePandoc, false},
		{[]string{"--cite=pandoc"}, "", rag.CitePandoc, false},
		{[]string{"--cite=apa"}, "", "", true},
		{[]string{"a.md", "b.md"}, "", "", true},
	} {
		path, style, err := exportArgs(c.args)
		if path != c.path || style != c.style || (err != nil) != c.err {
			t.Errorf("exportArgs(%q) = %q, %q, %v", c.args, path, style, err)
		}
	}
}

// connectModel connects to the fake model server.
func connectModel(t *testing.T, srv *llmtest.Server) *llm.Model {
	t.Helper()
	m, err := llm.Connect(context.Background(), llm.ModelConfig{Config: llm.Config{BaseURL: srv.BaseURL()}, NoOllama: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
