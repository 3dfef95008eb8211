package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/bib/zoterotest"
)

// writeFile writes content at dir/rel, making its folders.
func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAddBibTeX: ibid add refs.bib adds the entries' files with their
// metadata, lists the entry whose file is missing with the path it
// looked for, and a second add changes nothing; ls shows the citekeys.
func TestAddBibTeX(t *testing.T) {
	dir := filepath.Dir(cmdEnv(t))
	writeFile(t, dir, "refs/papers/tiny.md", "# A Tiny Test\n\nA tiny document about testing citations.\n")
	writeFile(t, dir, "refs/notes/tides.md", "# Tides\n\nSpring tides come at new and full moon.\n")
	refs := writeFile(t, dir, "refs/refs.bib", `@article{tester2024,
  author = {Tester, Ibid and M{\"u}ller, J{\"o}rg},
  title = {A Tiny Test PDF},
  year = {2024},
  doi = {10.5555/tiny},
  file = {:papers/tiny.md:Markdown},
}
@misc{moon2020, author = {Garc{\'\i}a, Mar{\'\i}a}, title = {Tides}, year = 2020, file = {notes/tides.md}}
@book{gone2019, author = {Park, Kim}, title = {Gone}, year = 2019, file = {:papers/gone.pdf:PDF}}
`)
	code, out, errOut := runCmd(t, "add", refs)
	if code != 0 {
		t.Fatalf("add refs.bib: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"refs.bib: 3 entries, 2 with a document (2 added, 0 updated, 0 unchanged), 1 without",
		"no file  gone2019 (Gone): file not found: " + filepath.Join(dir, "refs", "papers", "gone.pdf"),
		`library "default": 2 added`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCmd(t, "add", refs)
	if code != 0 || !strings.Contains(out, "(0 added, 0 updated, 2 unchanged)") {
		t.Errorf("second add: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "ls")
	if code != 0 || !strings.Contains(out, "CITEKEY") || !strings.Contains(out, "moon2020 ") || !strings.Contains(out, "tester2024 ") {
		t.Errorf("ls shows no citekeys: exit %d\n%s", code, out)
	}
	// Nothing readable at all is an error that says where to look.
	empty := writeFile(t, dir, "refs/none.bib", "@misc{x, title = {X}}\n")
	if code, _, errOut := runCmd(t, "add", empty); code == 0 || !strings.Contains(errOut, "no entry of the bibliography has a readable file") {
		t.Errorf("a bibliography without files: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCmd(t, "add", "--attachments", dir, filepath.Join(dir, "refs", "papers")); code == 0 || !strings.Contains(errOut, "give the bibliography too") {
		t.Errorf("--attachments without a bibliography: exit %d, %s", code, errOut)
	}
}

// TestAddZotero: ibid add zotero: reads the fake Zotero's local API; with
// the API off, the error says what to switch on.
func TestAddZotero(t *testing.T) {
	dir := filepath.Dir(cmdEnv(t))
	pdf := writeFile(t, dir, "Zotero/storage/AAAA1111/notes.md", "# Reading notes\n\nCitations carry page numbers.\n")
	srv := zoterotest.New(t, zoterotest.Library{
		Items: []zoterotest.Item{{Key: "ITEM1111", Type: "journalArticle", Title: "Reading Notes", Date: "2022",
			Extra: "Citation Key: ortiz2022", DateAdded: "2024-01-01T00:00:00Z", Collections: []string{"COLL0001"},
			Creators: []zoterotest.Creator{{Type: "author", First: "Ana", Last: "Ortiz"}}}},
		Attachments: []zoterotest.Attachment{{Key: "AAAA1111", Parent: "ITEM1111", LinkMode: "imported_file", ContentType: "text/markdown", Path: pdf}},
		Collections: []zoterotest.Collection{{Key: "COLL0001", Name: "Thesis"}},
	})
	t.Setenv("IBID_ZOTERO_URL", srv.APIURL())
	code, out, errOut := runCmd(t, "add", "zotero:collection/Thesis")
	if code != 0 || !strings.Contains(out, `Zotero collection "Thesis": 1 entry, 1 with a document (1 added`) {
		t.Fatalf("add zotero:collection/Thesis: exit %d\n%s\n%s", code, out, errOut)
	}
	srv.SetEnabled(false)
	code, _, errOut = runCmd(t, "add", "zotero:")
	if code == 0 || !strings.Contains(errOut, "Allow other applications on this computer to communicate with Zotero") {
		t.Errorf("API off: exit %d, %s", code, errOut)
	}
}

// TestAskPandoc: a library built from a .bib answers with Pandoc
// citations and writes the cited works as CSL JSON, added to what the
// file held; pandoc --citeproc renders them (when installed). --cite
// pandoc outside Markdown, and a bibliography file that is not CSL
// JSON, are refused before anything is written.
func TestAskPandoc(t *testing.T) {
	dir := filepath.Dir(askEnv(t))
	writeFile(t, dir, "refs/tides.md", "# Tides\n\nSpring tides come at new and full moon, when Sun and Moon pull together.\n")
	writeFile(t, dir, "refs/bread.md", "# Bread\n\nSourdough rises because wild yeast ferments the dough.\n")
	refs := writeFile(t, dir, "refs/refs.bib", `@article{garcia2020, author = {Garc{\'\i}a, Mar{\'\i}a}, title = {Spring Tides}, journal = {Ocean Letters}, year = 2020, file = {tides.md}}
@book{baker2019, author = {Baker, Ann}, title = {Bread}, year = 2019, file = {bread.md}}`)
	if code, out, errs := runCmd(t, "add", refs); code != 0 {
		t.Fatalf("add: %d\n%s\n%s", code, out, errs)
	}
	cited := writeFile(t, dir, "cited.json", `[{"id": "kept2001", "type": "book", "title": "Kept", "note": "not ibid's"}]`)
	code, out, errs := runCmd(t, "ask", "--format", "markdown", "--cite", "pandoc", "--bibliography", cited, "when do spring tides come?")
	if code != 0 {
		t.Fatalf("ask: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "[@garcia2020]") || strings.Contains(out, "[^") {
		t.Errorf("answer without a Pandoc citation, or with a footnote:\n%s", out)
	}
	data, _ := os.ReadFile(cited)
	if !strings.Contains(string(data), `"note": "not ibid's"`) || !strings.Contains(string(data), `"id": "garcia2020"`) || !strings.Contains(string(data), "García") {
		t.Errorf("bibliography file:\n%s", data)
	}
	if !strings.Contains(errs, "1 cited work in "+cited+", 1 new") {
		t.Errorf("stderr %q", errs)
	}
	if _, err := exec.LookPath("pandoc"); err == nil {
		cmd := exec.Command("pandoc", "-f", "markdown", "-t", "plain", "--citeproc", "--bibliography", cited)
		cmd.Stdin = strings.NewReader(out)
		got, err := cmd.Output()
		if err != nil || !strings.Contains(string(got), "(García 2020)") || !strings.Contains(string(got), "García, María. 2020. “Spring Tides.” Ocean Letters.") {
			t.Errorf("pandoc --citeproc: %v\n%s", err, got)
		}
	}
	if code, _, errs := runCmd(t, "ask", "--cite", "pandoc", "tides?"); code == 0 || !strings.Contains(errs, "--format markdown") {
		t.Errorf("--cite pandoc with text: exit %d, %s", code, errs)
	}
	notCSL := writeFile(t, dir, "notes.json", `{"mine": true}`)
	if code, _, errs := runCmd(t, "ask", "--format", "markdown", "--bibliography", notCSL, "tides?"); code == 0 || !strings.Contains(errs, "not a CSL JSON array") {
		t.Errorf("a bibliography that is not CSL JSON: exit %d, %s", code, errs)
	}
	if data, _ := os.ReadFile(notCSL); string(data) != `{"mine": true}` {
		t.Errorf("the file was changed: %s", data)
	}
}
