package bib

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is testdata/name with its placeholders filled: @@DIR@@ is dir
// (the absolute paths Zotero and Better BibTeX write), @@ROOT@@ is dir
// without its leading slash (Mendeley drops it).
func fixture(t *testing.T, name, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "@@DIR@@", dir)
	s = strings.ReplaceAll(s, "@@ROOT@@", strings.TrimPrefix(dir, "/"))
	return []byte(s)
}

// want is what an entry must read as; files are the paths in order.
type want struct {
	key, title, authors, year, venue, doi, url string
	etAl                                       bool
	files                                      []string
}

func checkEntries(t *testing.T, got []Entry, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		keys := []string{}
		for _, e := range got {
			keys = append(keys, e.Key)
		}
		t.Fatalf("%d entries %v, want %d", len(got), keys, len(wants))
	}
	for i, w := range wants {
		e := got[i]
		names := strings.Join(e.authorStrings(), "; ")
		check := func(field, have, want string) {
			if have != want {
				t.Errorf("%s: %s = %q, want %q", w.key, field, have, want)
			}
		}
		check("key", e.Key, w.key)
		check("title", e.Title, w.title)
		check("authors", names, w.authors)
		check("year", e.Year, w.year)
		check("venue", e.Venue, w.venue)
		check("doi", e.DOI, w.doi)
		check("url", e.URL, w.url)
		if e.EtAl != w.etAl {
			t.Errorf("%s: et al. %v, want %v", w.key, e.EtAl, w.etAl)
		}
		var paths []string
		for _, f := range e.Files {
			paths = append(paths, f.Path)
		}
		check("files", strings.Join(paths, " | "), strings.Join(w.files, " | "))
	}
}

const (
	gaoTitle    = "Precise Zero-Shot Dense Retrieval without Relevance Labels"
	gaoAuthors  = "Gao, Luyu; Ma, Xueguang; Lin, Jimmy; Callan, Jamie"
	gaoDOI      = "10.18653/v1/2023.acl-long.99"
	mullerTitle = "Über die Entstehung der Zitierpraxis: Eine Fallstudie"
	mullerNames = "Müller, Jörg; García-López, María; van der Berg, Ana"
	mullerDOI   = "10.1000/zit.2021.7"
	zfw         = "Zeitschrift für Wissenschaftsforschung"
)

// TestZoteroBibTeX reads a BibTeX file as Zotero 7's own exporter writes
// it: LaTeX accents, braces protecting case, month macros, the file
// field as "description:path:type" joined by ';', a duplicate DOI (the
// preprint of the same work), an institution as author, a work without
// attachment.
func TestZoteroBibTeX(t *testing.T) {
	dir := "/home/ana"
	entries, problems := ParseBibTeX(fixture(t, "zotero.bib", dir))
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	store := dir + "/Zotero/storage/"
	checkEntries(t, entries, []want{
		{key: "gao_precise_2023", title: gaoTitle, authors: gaoAuthors, year: "2023",
			venue: "Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)",
			doi:   gaoDOI, url: "https://aclanthology.org/2023.acl-long.99",
			files: []string{store + "7GXQ2K3B/Gao et al. - 2023 - Precise Zero-Shot Dense Retrieval without Relevance Labels.pdf", store + "Q4XR9P2M/2023.acl-long.99.html"}},
		{key: "muller_uber_2021", title: mullerTitle, authors: mullerNames, year: "2021", venue: zfw, doi: mullerDOI,
			files: []string{store + "ZZ9ABCDE/Müller et al. - 2021 - Uber die Entstehung.pdf"}},
		{key: "gao_precise_2022", title: gaoTitle, authors: gaoAuthors, year: "2022", venue: "arXiv", doi: gaoDOI,
			url: "http://arxiv.org/abs/2212.10496", files: []string{store + "AB12CD34/Gao et al. - 2022 - Precise Zero-Shot Dense Retrieval.pdf"}},
		{key: "world_health_organization_guidelines_2019", title: "Guidelines on Digital Interventions",
			authors: "World Health Organization", year: "2019", venue: "World Health Organization"},
	})
	if f := entries[0].Files[0]; f.MIME != "application/pdf" || f.Description != "Full Text PDF" || !f.IsPDF() {
		t.Errorf("Zotero's file: %+v", f)
	}
	if f := entries[0].Files[1]; f.MIME != "text/html" || f.IsPDF() {
		t.Errorf("Zotero's snapshot: %+v", f)
	}
	if entries[1].Language != "de" || entries[1].Type != "article-journal" || entries[0].Type != "paper-conference" {
		t.Errorf("language %q, types %q %q", entries[1].Language, entries[0].Type, entries[1].Type)
	}
}

// TestBetterBibLaTeX reads Better BibTeX's BibLaTeX export: Unicode as
// it is, double braces, date instead of year, journaltitle, the file
// field as bare paths joined by ';', BibLaTeX's extended name format for
// a particle.
func TestBetterBibLaTeX(t *testing.T) {
	dir := "/Users/ana"
	entries, problems := ParseBibTeX(fixture(t, "betterbiblatex.bib", dir))
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	store := dir + "/Zotero/storage/"
	checkEntries(t, entries, []want{
		{key: "gaoPreciseZeroShotDense2023", title: gaoTitle, authors: gaoAuthors, year: "2023",
			venue: "Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)",
			doi:   gaoDOI, url: "https://aclanthology.org/2023.acl-long.99",
			files: []string{store + "7GXQ2K3B/Gao et al. - 2023 - Precise Zero-Shot Dense Retrieval without Relevance Labels.pdf", store + "Q4XR9P2M/2023.acl-long.99.html"}},
		{key: "mullerUberEntstehungZitierpraxis2021", title: mullerTitle, authors: mullerNames, year: "2021", venue: zfw, doi: mullerDOI,
			files: []string{store + "ZZ9ABCDE/Müller et al. - 2021 - Uber die Entstehung.pdf"}},
		{key: "gaoPreciseZeroShotDense2022", title: gaoTitle, authors: gaoAuthors, year: "2022", doi: gaoDOI,
			files: []string{store + "AB12CD34/Gao et al. - 2022 - Precise Zero-Shot Dense Retrieval.pdf"}},
		{key: "worldhealthorganizationGuidelinesDigitalInterventions2019", title: "Guidelines on Digital Interventions",
			authors: "World Health Organization", year: "2019", venue: "World Health Organization"},
	})
	if p := entries[1].Authors[2]; p.Particle != "van der" || p.Family != "Berg" {
		t.Errorf("extended name: %+v", p)
	}
	if l := cslLanguage(entries[1].Language); l != "de" {
		t.Errorf("langid %q is CSL language %q, want de", entries[1].Language, l)
	}
}

// TestJabRef reads a JabRef library: @String macros joined with #,
// "First von Last" names with {\'\i}, relative file paths as
// ":path:PDF", @Comment blocks with JabRef's metadata.
func TestJabRef(t *testing.T) {
	entries, problems := ParseBibTeX(fixture(t, "jabref.bib", ""))
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	checkEntries(t, entries, []want{
		{key: "Gao2023", title: gaoTitle, authors: gaoAuthors, year: "2023",
			venue: "Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics",
			doi:   gaoDOI, files: []string{"papers/Gao2023 - Precise Zero-Shot Dense Retrieval.pdf"}},
		{key: "Mueller2021", title: mullerTitle, authors: mullerNames, year: "2021", venue: zfw, doi: mullerDOI,
			files: []string{"papers/Mueller2021.pdf"}},
		{key: "Gao2022", title: gaoTitle, authors: gaoAuthors, year: "2022", doi: gaoDOI,
			files: []string{"preprints/Gao2022.pdf"}},
	})
	if f := entries[1].Files[0]; f.Description != "Published version" || f.MIME != "PDF" || !f.IsPDF() {
		t.Errorf("JabRef's file: %+v", f)
	}
}

// TestMendeley reads Mendeley Desktop's export: a text preamble, accents
// as {\"{u}}, titles in double braces, absolute paths without their
// leading slash, LaTeX accents inside file paths, $\backslash$ in a
// Windows path.
func TestMendeley(t *testing.T) {
	dir := "/home/ana"
	entries, problems := ParseBibTeX(fixture(t, "mendeley.bib", dir))
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	docs := "home/ana/Documents/Mendeley Desktop/"
	checkEntries(t, entries, []want{
		{key: "Gao2023", title: gaoTitle, authors: gaoAuthors, year: "2023",
			venue: "Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics", doi: gaoDOI,
			files: []string{docs + "Gao et al. - 2023 - Precise Zero-Shot Dense Retrieval without Relevance Labels.pdf"}},
		{key: "Muller2021", title: mullerTitle, authors: mullerNames, year: "2021", venue: zfw, doi: mullerDOI,
			files: []string{docs + "Müller, García-López, van der Berg - 2021 - Über die Entstehung.pdf"}},
		{key: "Gao2022", title: gaoTitle, authors: gaoAuthors, year: "2022", venue: "arXiv", doi: gaoDOI,
			files: []string{"C:/Users/ana/Documents/Mendeley Desktop/Gao et al. - 2022 - Precise.pdf"}},
	})
}

// TestBibDesk reads BibDesk's Bdsk-File-N fields: base64 binary property
// lists, one a plain dictionary (older BibDesk) and one an
// NSKeyedArchiver archive with a UTF-16 path (newer BibDesk), both
// written by Python's plistlib, not by this package.
func TestBibDesk(t *testing.T) {
	entries, problems := ParseBibTeX(fixture(t, "bibdesk.bib", ""))
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	checkEntries(t, entries, []want{
		{key: "Lovelace1843", title: "Sketch of the Analytical Engine Invented by Charles Babbage",
			authors: "Lovelace, Augusta Ada; Menabrea, Luigi Federico", year: "1843", venue: "Scientific Memoirs",
			url: "https://example.org/lovelace-sketch", files: []string{"papers/Lovelace 1843 - Sketch of the Analytical Engine.pdf"}},
		{key: "Hopper1952", title: "The Education of a Computer", authors: "Hopper, Grace Murray; Müller, Klára", year: "1952",
			venue: "Proceedings of the 1952 ACM National Meeting", doi: "10.1145/609784.609818",
			files: []string{"../shared papers/Hopper 1952 - Müller's Compiler.pdf"}},
		{key: "Hopper1952b", title: "The Education of a Computer (reprint)", authors: "Hopper, Grace Murray", year: "1988",
			venue: "Reprint", doi: "10.1145/609784.609818"},
	})
}

// TestCSLJSON reads Better BibTeX's CSL JSON: citation-key, date-parts
// with strings, non-dropping particles, literal names, HTML in titles,
// raw and literal dates, and the non-standard file field.
func TestCSLJSON(t *testing.T) {
	entries, problems, err := ParseCSL(fixture(t, "betterbibtex.json", ""))
	if err != nil || len(problems) > 0 {
		t.Fatalf("ParseCSL: %v %v", err, problems)
	}
	checkEntries(t, entries, []want{
		{key: "gaoPreciseZeroShotDense2023", title: gaoTitle, authors: gaoAuthors, year: "2023",
			venue: "Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)",
			doi:   gaoDOI, url: "https://aclanthology.org/2023.acl-long.99"},
		{key: "mullerUberEntstehungZitierpraxis2021", title: mullerTitle, authors: mullerNames, year: "2021", venue: zfw, doi: mullerDOI},
		{key: "gaoPreciseZeroShotDense2022", title: gaoTitle, authors: "Gao, Luyu; Ma, Xueguang", year: "2022", venue: "arXiv", doi: gaoDOI},
		{key: "lovelaceSketch1843", title: "Sketch of the Analytical Engine Invented by Charles Babbage",
			authors: "Lovelace, Augusta Ada", year: "1843", venue: "Scientific Memoirs", files: []string{"papers/lovelace.pdf"}},
		{key: "who2019", title: "Guidelines on digital interventions", authors: "World Health Organization", year: "2019", venue: "World Health Organization"},
	})
}

// TestReadFileKinds: ReadFile tells CSL JSON from BibTeX, and says so
// plainly when a file is neither.
func TestReadFileKinds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if e, _, err := ReadFile(write("refs.bib", "@article{a, title={A}}")); err != nil || len(e) != 1 {
		t.Errorf("BibTeX: %v %v", e, err)
	}
	if e, _, err := ReadFile(write("refs.txt", `[{"id":"a","title":"A"}]`)); err != nil || len(e) != 1 {
		t.Errorf("CSL JSON by content: %v %v", e, err)
	}
	if _, _, err := ReadFile(write("bad.json", `[{"id": "a",}]`)); err == nil || !strings.Contains(err.Error(), "not CSL JSON") {
		t.Errorf("broken JSON: %v", err)
	}
	if _, _, err := ReadFile(write("empty.bib", "just a note, no entries\n")); err == nil || !strings.Contains(err.Error(), "no bibliography entries") {
		t.Errorf("no entries: %v", err)
	}
	if _, _, err := ReadFile(filepath.Join(dir, "missing.bib")); err == nil {
		t.Error("a missing file read without error")
	}
	if _, _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "folder") {
		t.Errorf("a folder: %v", err)
	}
}
