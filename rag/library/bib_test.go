package library

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/bib/zoterotest"
	"github.com/ibid-dev/ibid/store"
)

// bibLibrary reads a bibliography file and adds it to a new library.
func bibLibrary(t *testing.T, l *Library, path, attachments string) *BibReport {
	t.Helper()
	entries, problems, err := bib.ReadFile(path)
	if err != nil || len(problems) > 0 {
		t.Fatalf("ReadFile(%s): %v %v", path, err, problems)
	}
	rep, err := l.AddBibliography(context.Background(), Bibliography{Source: path, Entries: entries, Dir: filepath.Dir(path), Attachments: attachments}, AddOptions{}, nil)
	if err != nil {
		t.Fatalf("AddBibliography(%s): %v", path, err)
	}
	return rep
}

// docByKey is the library's document whose citekey is key.
func docByKey(t *testing.T, l *Library, key string) (store.Document, bool) {
	t.Helper()
	for _, d := range mustDocs(t, l) {
		if d.Meta[bib.MetaCitekey] == key {
			return d, true
		}
	}
	return store.Document{}, false
}

// notesText is "key: text" per note, sorted.
func notesText(ns []EntryNote) string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Key+": "+n.Text)
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// TestAddBibliographyExports builds a library from each manager's export
// of the same four works: the published paper (PDF, DOI printed), its
// preprint (another PDF, same DOI), an article whose PDF is missing, and
// a book without attachment. The two PDFs are added with their entries'
// metadata, accents decoded; the missing file and the book are listed
// with their reasons; the shared DOI is noted.
func TestAddBibliographyExports(t *testing.T) {
	for _, c := range []struct {
		fixture            string
		gao23, gao22, mull string // citekeys
		gao23File          string // relative to the test dir
		gao22File          string
		who                string // the book's key ("" when the export has none)
		attachments        bool   // files found by --attachments DIR
	}{
		{"zotero.bib", "gao_precise_2023", "gao_precise_2022", "muller_uber_2021",
			"Zotero/storage/7GXQ2K3B/Gao et al. - 2023 - Precise Zero-Shot Dense Retrieval without Relevance Labels.pdf",
			"Zotero/storage/AB12CD34/Gao et al. - 2022 - Precise Zero-Shot Dense Retrieval.pdf", "world_health_organization_guidelines_2019", false},
		{"betterbiblatex.bib", "gaoPreciseZeroShotDense2023", "gaoPreciseZeroShotDense2022", "mullerUberEntstehungZitierpraxis2021",
			"Zotero/storage/7GXQ2K3B/Gao et al. - 2023 - Precise Zero-Shot Dense Retrieval without Relevance Labels.pdf",
			"Zotero/storage/AB12CD34/Gao et al. - 2022 - Precise Zero-Shot Dense Retrieval.pdf", "worldhealthorganizationGuidelinesDigitalInterventions2019", false},
		{"jabref.bib", "Gao2023", "Gao2022", "Mueller2021",
			"papers/Gao2023 - Precise Zero-Shot Dense Retrieval.pdf", "preprints/Gao2022.pdf", "", false},
		{"betterbibtex.json", "gaoPreciseZeroShotDense2023", "gaoPreciseZeroShotDense2022", "mullerUberEntstehungZitierpraxis2021",
			"pdfs/10.18653_v1_2023.acl-long.99.pdf", "pdfs/Gao et al. - 2022 - Precise Zero-Shot Dense Retrieval.pdf", "who2019", true},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			dir := filepath.Join(testEnv(t), "refs")
			gao23 := writeBytes(t, dir, c.gao23File, gao2023PDF)
			gao22 := writeBytes(t, dir, c.gao22File, gao2022PDF)
			writeBytes(t, dir, "Zotero/storage/Q4XR9P2M/2023.acl-long.99.html", []byte("<html><head><title>Snapshot</title></head><body><p>ACL Anthology page of the paper.</p></body></html>"))
			attachments := ""
			if c.attachments {
				attachments = filepath.Join(dir, "pdfs")
				writeBytes(t, dir, "pdfs/unrelated notes.md", []byte("# Shopping\n\nMilk, eggs and bread for the weekend.\n"))
				writeBytes(t, dir, "papers/lovelace.pdf", paperPDF("Sketch of the Analytical Engine", "Sketch of the Analytical Engine", "A. A. Lovelace", "The engine weaves algebraic patterns."))
			}
			src := bibFixture(t, c.fixture, dir)
			l := mustOpen(t, Options{})
			rep := bibLibrary(t, l, src, attachments)

			if rep.Files[c.gao23] != gao23 || rep.Files[c.gao22] != gao22 {
				t.Errorf("files %v, want %s for %s and %s for %s", rep.Files, gao23, c.gao23, gao22, c.gao22)
			}
			added := len(rep.Added)
			if want := 2 + map[bool]int{true: 1}[c.attachments]; added != want {
				t.Fatalf("%d added, want %d; missing %v, skipped %v", added, want, rep.Missing, rep.Skipped)
			}
			missing := notesText(rep.Missing)
			why := ": file not found: "
			if c.attachments {
				why = ": no attached file in the bibliography; nothing in " + attachments + " matches"
			}
			if !strings.Contains(missing, c.mull+why) {
				t.Errorf("the missing PDF is not reported:\n%s", missing)
			}
			if c.who != "" && !strings.Contains(missing, c.who+": no attached file in the bibliography") {
				t.Errorf("the book without file is not reported:\n%s", missing)
			}
			if c.attachments && (len(rep.Unmatched) != 1 || filepath.Base(rep.Unmatched[0]) != "unrelated notes.md") {
				t.Errorf("unmatched %v, want the unrelated notes", rep.Unmatched)
			}
			if notes := notesText(rep.EntryNotes); !strings.Contains(notes, c.gao22+": has the same DOI as "+c.gao23) {
				t.Errorf("the shared DOI is not noted: %q", notes)
			}
			d, ok := docByKey(t, l, c.gao23)
			if !ok {
				t.Fatalf("no document with citekey %s", c.gao23)
			}
			var authors []string
			if err := json.Unmarshal([]byte(d.Meta[bib.MetaAuthors]), &authors); err != nil || strings.Join(authors, "; ") != "Gao, Luyu; Ma, Xueguang; Lin, Jimmy; Callan, Jamie" {
				t.Errorf("authors %q: %v", d.Meta[bib.MetaAuthors], err)
			}
			if d.Meta[bib.MetaYear] != "2023" || d.Meta[bib.MetaDOI] != "10.18653/v1/2023.acl-long.99" || d.Meta[bib.MetaSource] != src || d.Path != gao23 {
				t.Errorf("meta %v at %s", d.Meta, d.Path)
			}
			if d.Title != "Precise Zero-Shot Dense Retrieval without Relevance Labels" {
				t.Errorf("title %q", d.Title)
			}
			checkWhole(t, l)

			// Added again, unchanged: nothing happens.
			again := bibLibrary(t, l, src, attachments)
			if len(again.Added)+len(again.Updated)+len(again.Replaced) != 0 || len(again.Unchanged) != added {
				t.Errorf("re-add: %d added, %d updated, %d replaced, %d unchanged; want all %d unchanged",
					len(again.Added), len(again.Updated), len(again.Replaced), len(again.Unchanged), added)
			}
		})
	}
}

// TestBibliographyChanged: after the manager changed an entry, adding the
// bibliography again updates that document's metadata and nothing else
// (same segments, same vectors); a changed file is replaced, with its
// entry's metadata; unchanged entries stay unchanged.
func TestBibliographyChanged(t *testing.T) {
	dir := filepath.Join(testEnv(t), "refs")
	src := filepath.Join(dir, "refs.bib")
	gao := writeBytes(t, dir, "gao.pdf", gao2023PDF)
	writeBytes(t, dir, "muller.pdf", mullerPDF)
	notes := writeBytes(t, dir, "notes.txt", []byte("Reading notes on the history of footnotes.\n\nThe footnote grew out of the marginal gloss.\n"))
	bibtex := `@inproceedings{gao2023, author = {Gao, Luyu and Ma, Xueguang}, title = {Precise Zero-Shot Dense Retrieval}, year = {2023}, file = {gao.pdf}}
@article{muller2021, author = {M{\"u}ller, J{\"o}rg}, title = {{\"U}ber die Entstehung}, year = {2021}, file = {:muller.pdf:PDF}}
@misc{notes2024, author = {Ortiz, Ana}, title = {Notes on Footnotes}, year = {2024}, file = {notes.txt}}`
	writeBytes(t, dir, "refs.bib", []byte(bibtex))
	l := mustOpen(t, Options{})
	first := bibLibrary(t, l, src, "")
	if len(first.Added) != 3 {
		t.Fatalf("%d added, want 3: %v %v", len(first.Added), first.Missing, first.Skipped)
	}
	n, _ := docByKey(t, l, "notes2024")
	if n.Title != "Notes on Footnotes" {
		t.Errorf("a document without a title of its own is titled %q, want the entry's", n.Title)
	}
	g, _ := docByKey(t, l, "gao2023")
	vecsBefore, _ := l.Store().Vectors(context.Background(), g.ID)

	// The manager fixed an author and a title, and the notes file changed.
	writeBytes(t, dir, "refs.bib", []byte(strings.NewReplacer("Ma, Xueguang", "Ma, Xueguang and Lin, Jimmy", "Notes on Footnotes", "Notes on the Footnote").Replace(bibtex)))
	if err := os.WriteFile(notes, []byte("Reading notes, revised.\n\nThe footnote grew out of the marginal gloss, slowly.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := bibLibrary(t, l, src, "")
	if got := []int{len(second.Added), len(second.Updated), len(second.Replaced), len(second.Unchanged)}; !slices.Equal(got, []int{0, 1, 1, 1}) {
		t.Fatalf("added/updated/replaced/unchanged %v, want [0 1 1 1]", got)
	}
	if second.Updated[0].Path != gao || second.Replaced[0].Path != notes {
		t.Errorf("updated %s, replaced %s", second.Updated[0].Path, second.Replaced[0].Path)
	}
	g2, _ := docByKey(t, l, "gao2023")
	if g2.ID != g.ID || !strings.Contains(g2.Meta[bib.MetaAuthors], "Lin, Jimmy") || g2.Segments != g.Segments {
		t.Errorf("updated document %+v", g2)
	}
	if vecsAfter, _ := l.Store().Vectors(context.Background(), g.ID); !slices.EqualFunc(vecsBefore, vecsAfter, slices.Equal) {
		t.Error("a metadata update changed the vectors")
	}
	if n2, _ := docByKey(t, l, "notes2024"); n2.Title != "Notes on the Footnote" {
		t.Errorf("replaced notes titled %q", n2.Title)
	}
	checkWhole(t, l)
	if len(mustDocs(t, l)) != 3 {
		t.Errorf("%d documents, want 3", len(mustDocs(t, l)))
	}
}

// TestAttachBibliography: a library built from a folder of PDFs is given
// its bibliography later (ibid add --bib): each document gets the entry
// whose DOI is printed on its first page, or whose title and first
// author are; nothing is added; entries without a document are listed.
func TestAttachBibliography(t *testing.T) {
	dir := filepath.Join(testEnv(t), "papers")
	writeBytes(t, dir, "hyde.pdf", gao2023PDF)
	writeBytes(t, dir, "scan0001.pdf", mullerPDF)
	writeBytes(t, dir, "other.md", []byte("# Unrelated\n\nA note about gardening.\n"))
	l := mustOpen(t, Options{})
	mustAdd(t, l, dir)
	src := bibFixture(t, "zotero.bib", t.TempDir())
	entries, _, err := bib.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	before := mustLen(t, l)
	b := Bibliography{Source: src, Entries: entries}
	rep, err := l.AttachBibliography(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Updated) != 2 || rep.Files["gao_precise_2023"] != filepath.Join(dir, "hyde.pdf") || rep.Files["muller_uber_2021"] != filepath.Join(dir, "scan0001.pdf") {
		t.Fatalf("updated %d, files %v", len(rep.Updated), rep.Files)
	}
	if m := notesText(rep.Missing); !strings.Contains(m, "gao_precise_2022: matches no document") || !strings.Contains(m, "world_health_organization_guidelines_2019: matches no document") {
		t.Errorf("missing:\n%s", m)
	}
	if d, _ := docByKey(t, l, "muller_uber_2021"); !strings.Contains(d.Meta[bib.MetaAuthors], "Müller, Jörg") {
		t.Errorf("Müller's document: %v", d.Meta)
	}
	if mustLen(t, l) != before || len(mustDocs(t, l)) != 3 {
		t.Error("attaching metadata changed the library's segments or documents")
	}
	again, err := l.AttachBibliography(context.Background(), b)
	if err != nil || len(again.Updated) != 0 || len(again.Unchanged) != 2 {
		t.Errorf("again: %d updated, %d unchanged, %v", len(again.Updated), len(again.Unchanged), err)
	}
	checkWhole(t, l)
}

// TestAttachmentsFolderByContent: an entry whose file is named by
// nothing (a scan) is found in --attachments DIR by the title and first
// author on its first page.
func TestAttachmentsFolderByContent(t *testing.T) {
	dir := filepath.Join(testEnv(t), "refs")
	writeBytes(t, dir, "pdfs/scan0001.pdf", mullerPDF)
	src := bibFixture(t, "betterbibtex.json", dir)
	l := mustOpen(t, Options{})
	rep := bibLibrary(t, l, src, filepath.Join(dir, "pdfs"))
	if rep.Files["mullerUberEntstehungZitierpraxis2021"] != filepath.Join(dir, "pdfs", "scan0001.pdf") || len(rep.Added) != 1 {
		t.Fatalf("files %v, added %d", rep.Files, len(rep.Added))
	}
	if d, _ := docByKey(t, l, "mullerUberEntstehungZitierpraxis2021"); d.Meta[bib.MetaYear] != "2021" {
		t.Errorf("meta %v", d.Meta)
	}
}

func TestWithEntry(t *testing.T) {
	meta := map[string]string{bib.MetaCitekey: "k", bib.MetaTitle: "Bib Title"}
	for _, c := range []struct {
		doc       store.Document
		wantTitle string
	}{
		{store.Document{Path: "/p/scan.pdf", Title: "scan"}, "Bib Title"},                                            // the file's name
		{store.Document{Path: "/p/scan.pdf", Title: ""}, "Bib Title"},                                                // none
		{store.Document{Path: "/p/scan.pdf", Title: "Own Title"}, "Own Title"},                                       // its own
		{store.Document{Path: "/p/a.pdf", Title: "Old", Meta: map[string]string{bib.MetaTitle: "Old"}}, "Bib Title"}, // the bibliography's, before
	} {
		got, changed := withEntry(c.doc, meta)
		if got.Title != c.wantTitle || !changed || got.Meta[bib.MetaCitekey] != "k" {
			t.Errorf("withEntry(%+v) = %q %v %v", c.doc, got.Title, changed, got.Meta)
		}
	}
	// Keys the entry no longer has go; others stay.
	doc := store.Document{Title: "T", Meta: map[string]string{bib.MetaCitekey: "k", bib.MetaDOI: "10.1/x", "strategy": "hierarchical"}}
	got, changed := withEntry(doc, map[string]string{bib.MetaCitekey: "k"})
	if !changed || got.Meta[bib.MetaDOI] != "" || got.Meta["strategy"] != "hierarchical" {
		t.Errorf("withEntry dropped or kept the wrong keys: %v", got.Meta)
	}
	if _, changed := withEntry(got, map[string]string{bib.MetaCitekey: "k"}); changed {
		t.Error("the same metadata again counts as a change")
	}
}

// TestZoteroLibrary builds a library from the fake Zotero's local API:
// imported PDFs in Zotero's storage, a linked file, a linked file
// relative to the base folder (found through --attachments), a PDF
// Zotero has no copy of, an item without attachments, two items sharing
// a DOI, accented names.
func TestZoteroLibrary(t *testing.T) {
	dir := filepath.Join(testEnv(t), "home")
	storage := filepath.Join(dir, "Zotero", "storage")
	gao := writeBytes(t, storage, "7GXQ2K3B/Gao et al. - 2023 - Precise.pdf", gao2023PDF)
	pre := writeBytes(t, storage, "AB12CD34/Gao et al. - 2022 - Precise.pdf", gao2022PDF)
	linked := writeBytes(t, dir, "papers/Müller 2021.pdf", mullerPDF)
	base := filepath.Join(dir, "linked")
	writeBytes(t, base, "reports/lovelace.pdf", paperPDF("Sketch of the Analytical Engine", "Sketch of the Analytical Engine", "Ada Lovelace", "The engine weaves algebraic patterns."))
	srv := zoterotest.New(t, zoterotest.Library{
		Items: []zoterotest.Item{
			{Key: "GAO23AAA", Type: "conferencePaper", Title: "Precise Zero-Shot Dense Retrieval without Relevance Labels", Date: "2023-07",
				DOI: "10.18653/v1/2023.acl-long.99", Venue: "Proceedings of ACL 2023", DateAdded: "2024-01-01T09:00:00Z",
				Creators: []zoterotest.Creator{{Type: "author", First: "Luyu", Last: "Gao"}, {Type: "author", First: "Xueguang", Last: "Ma"}, {Type: "author", First: "Jimmy", Last: "Lin"}}},
			{Key: "GAO22BBB", Type: "preprint", Title: "Precise Zero-Shot Dense Retrieval (preprint)", Date: "2022-12-20",
				DOI: "10.18653/v1/2023.acl-long.99", Venue: "arXiv", DateAdded: "2024-01-02T09:00:00Z",
				Creators: []zoterotest.Creator{{Type: "author", First: "Luyu", Last: "Gao"}}},
			{Key: "MUL21CCC", Type: "journalArticle", Title: "Über die Entstehung der Zitierpraxis", Date: "2021", Extra: "Citation Key: mueller2021",
				Venue: "Zeitschrift für Wissenschaftsforschung", DateAdded: "2024-01-03T09:00:00Z",
				Creators: []zoterotest.Creator{{Type: "author", First: "Jörg", Last: "Müller"}, {Type: "author", First: "María", Last: "García-López"}}},
			{Key: "LOV43DDD", Type: "journalArticle", Title: "Sketch of the Analytical Engine", Date: "1843", DateAdded: "2024-01-04T09:00:00Z",
				Creators: []zoterotest.Creator{{Type: "author", First: "Ada", Last: "Lovelace"}}},
			{Key: "GONE5EEE", Type: "journalArticle", Title: "A Paper Not Synced", Date: "2020", DateAdded: "2024-01-05T09:00:00Z",
				Creators: []zoterotest.Creator{{Type: "author", First: "Kim", Last: "Park"}}},
			{Key: "BOOK6FFF", Type: "book", Title: "A Book Without Files", Date: "2019", DateAdded: "2024-01-06T09:00:00Z",
				Creators: []zoterotest.Creator{{Type: "author", Name: "World Health Organization"}}},
		},
		Attachments: []zoterotest.Attachment{
			{Key: "7GXQ2K3B", Parent: "GAO23AAA", Title: "Full Text PDF", LinkMode: "imported_file", ContentType: "application/pdf", Path: gao},
			{Key: "AB12CD34", Parent: "GAO22BBB", Title: "arXiv Fulltext PDF", LinkMode: "imported_url", ContentType: "application/pdf", Path: pre},
			{Key: "LNK21AAA", Parent: "MUL21CCC", Title: "Müller 2021.pdf", LinkMode: "linked_file", ContentType: "application/pdf", Path: linked},
			{Key: "BASE43AA", Parent: "LOV43DDD", Title: "lovelace.pdf", LinkMode: "linked_file", ContentType: "application/pdf", Path: "attachments:reports/lovelace.pdf"},
			{Key: "GONE5AAA", Parent: "GONE5EEE", Title: "Full Text PDF", LinkMode: "imported_file", ContentType: "application/pdf", Path: filepath.Join(storage, "GONE5AAA", "park.pdf")},
		},
	})
	entries, err := (&bib.Zotero{BaseURL: srv.APIURL()}).Entries(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	l := mustOpen(t, Options{})
	rep, err := l.AddBibliography(context.Background(), Bibliography{Source: "zotero:", Entries: entries, Attachments: base}, AddOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 4 {
		t.Fatalf("%d added, want 4; missing %v skipped %v", len(rep.Added), rep.Missing, rep.Skipped)
	}
	missing := notesText(rep.Missing)
	for _, w := range []string{"park2020: Zotero has no copy of the file on this computer: " + filepath.Join(storage, "GONE5AAA", "park.pdf"),
		"worldhealthorganization2019: no attached file in the bibliography"} {
		if !strings.Contains(missing, w) {
			t.Errorf("missing %q in:\n%s", w, missing)
		}
	}
	if !strings.Contains(notesText(rep.EntryNotes), "gao2022: has the same DOI as gao2023") {
		t.Errorf("notes %v", rep.EntryNotes)
	}
	d, ok := docByKey(t, l, "mueller2021")
	if !ok || d.Path != linked || !strings.Contains(d.Meta[bib.MetaAuthors], "García-López, María") || d.Meta[bib.MetaSource] != "zotero:" {
		t.Errorf("Müller's document %+v", d)
	}
	if _, ok := docByKey(t, l, "lovelace1843"); !ok {
		t.Error("the linked file under the base folder was not added")
	}
	// Without the base folder, that file is reported with what to do.
	rep2, err := l.AddBibliography(context.Background(), Bibliography{Source: "zotero:", Entries: entries}, AddOptions{}, nil)
	if err != nil || !strings.Contains(notesText(rep2.Missing), "lovelace1843: \"reports/lovelace.pdf\" is relative to Zotero's linked attachment base folder; give that folder with --attachments DIR") {
		t.Errorf("without the base folder: %v\n%s", err, notesText(rep2.Missing))
	}
	checkWhole(t, l)
}
