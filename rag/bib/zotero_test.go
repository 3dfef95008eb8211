package bib_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/bib/zoterotest"
)

// zoteroLibrary is a small Zotero library under dir: imported PDFs in
// Zotero's storage folder (one of them missing from disk), a linked file
// by absolute path and one relative to the linked attachment base folder,
// a linked URL, a note, an item without attachments, two items with the
// same DOI, accented names, a Better BibTeX citation key in Extra, a
// standalone PDF, and two collections, one inside the other.
func zoteroLibrary(t *testing.T, dir string) zoterotest.Library {
	storage := filepath.Join(dir, "Zotero", "storage")
	write := func(p string) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("%PDF-1.4 placeholder for "+filepath.Base(p)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gaoPDF := write(filepath.Join(storage, "7GXQ2K3B", "Gao et al. - 2023 - Precise Zero-Shot Dense Retrieval.pdf"))
	linked := write(filepath.Join(dir, "papers", "Lovelace 1843.pdf"))
	standalone := write(filepath.Join(storage, "S7AND4LN", "notes from the workshop.pdf"))
	items := []zoterotest.Item{
		{Key: "GAO23AAA", Type: "conferencePaper", Title: "Precise Zero-Shot Dense Retrieval without Relevance Labels",
			Date: "2023-07", DOI: "10.18653/v1/2023.acl-long.99", Venue: "Proceedings of ACL 2023",
			Extra: "Citation Key: gao2023precise", DateAdded: "2024-01-01T09:00:00Z", Collections: []string{"COLTHES1"},
			Creators: []zoterotest.Creator{{Type: "author", First: "Luyu", Last: "Gao"}, {Type: "author", First: "Xueguang", Last: "Ma"},
				{Type: "author", First: "Jimmy", Last: "Lin"}, {Type: "editor", First: "Anna", Last: "Rogers"}}},
		{Key: "MUL21BBB", Type: "journalArticle", Title: "Über die Entstehung der Zitierpraxis", Date: "2021",
			DOI: "10.1000/zit.2021.7", Venue: "Zeitschrift für Wissenschaftsforschung", DateAdded: "2024-01-02T09:00:00Z",
			Collections: []string{"COLCHAP2"},
			Creators:    []zoterotest.Creator{{Type: "author", First: "Jörg", Last: "Müller"}, {Type: "author", First: "Ana", Last: "van der Berg"}}},
		{Key: "LOV43CCC", Type: "journalArticle", Title: "Sketch of the Analytical Engine", Date: "1843", Venue: "Scientific Memoirs",
			DateAdded: "2024-01-03T09:00:00Z", Creators: []zoterotest.Creator{{Type: "author", First: "Ada", Last: "Lovelace"}}},
		{Key: "BAS22DDD", Type: "report", Title: "Base-folder Report", Date: "March 2022", DOI: "10.5555/base.22",
			DateAdded: "2024-01-04T09:00:00Z", Creators: []zoterotest.Creator{{Type: "author", Name: "World Health Organization"}}},
		{Key: "GAO22EEE", Type: "preprint", Title: "Precise Zero-Shot Dense Retrieval (preprint)", Date: "2022-12-20",
			DOI: "10.18653/v1/2023.acl-long.99", Venue: "arXiv", DateAdded: "2024-01-05T09:00:00Z",
			Creators: []zoterotest.Creator{{Type: "author", First: "Luyu", Last: "Gao"}}},
		{Key: "NOF19FFF", Type: "book", Title: "A Book Without Files", Date: "2019", Venue: "Publisher",
			DateAdded: "2024-01-06T09:00:00Z", Creators: []zoterotest.Creator{{Type: "author", First: "Luyu", Last: "Gao"}}},
	}
	atts := []zoterotest.Attachment{
		{Key: "7GXQ2K3B", Parent: "GAO23AAA", Title: "Full Text PDF", LinkMode: "imported_file", ContentType: "application/pdf", Path: gaoPDF},
		{Key: "Q4XR9P2M", Parent: "GAO23AAA", Title: "Snapshot", LinkMode: "imported_url", ContentType: "text/html",
			Path: filepath.Join(storage, "Q4XR9P2M", "snapshot.html"), URL: "https://aclanthology.org/2023.acl-long.99"},
		{Key: "ZZ9ABCDE", Parent: "MUL21BBB", Title: "Full Text PDF", LinkMode: "imported_file", ContentType: "application/pdf",
			Path: filepath.Join(storage, "ZZ9ABCDE", "Müller - 2021 - Über die Entstehung.pdf")}, // not on disk
		{Key: "LNK43AAA", Parent: "LOV43CCC", Title: "Lovelace 1843.pdf", LinkMode: "linked_file", ContentType: "application/pdf", Path: linked},
		{Key: "URL43BBB", Parent: "LOV43CCC", Title: "Wikisource", LinkMode: "linked_url", URL: "https://en.wikisource.org/"},
		{Key: "BASE2222", Parent: "BAS22DDD", Title: "report.pdf", LinkMode: "linked_file", ContentType: "application/pdf", Path: "attachments:reports/base report.pdf"},
		{Key: "AB12CD34", Parent: "GAO22EEE", Title: "arXiv Fulltext PDF", LinkMode: "imported_url", ContentType: "application/pdf", Path: gaoPDF},
		{Key: "S7AND4LN", Title: "notes from the workshop.pdf", LinkMode: "imported_file", ContentType: "application/pdf", Path: standalone,
			DateAdded: "2024-01-07T09:00:00Z", Collections: []string{"COLTHES1"}},
	}
	notes := []zoterotest.Note{{Key: "NOTE0001", Parent: "GAO23AAA", HTML: "<p>read again</p>"}}
	cols := []zoterotest.Collection{{Key: "COLTHES1", Name: "Thesis"}, {Key: "COLCHAP2", Name: "Chapter 2", Parent: "COLTHES1"},
		{Key: "COLOTHR3", Name: "Chapter 2", Parent: ""}}
	return zoterotest.Library{Items: items, Attachments: atts, Notes: notes, Collections: cols}
}

func TestZoteroLocalAPI(t *testing.T) {
	dir := t.TempDir()
	srv := zoterotest.New(t, zoteroLibrary(t, dir))
	z := &bib.Zotero{BaseURL: srv.APIURL(), PageSize: 3}
	entries, err := z.Entries(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests["/api/users/0/items"]; n < 4 {
		t.Errorf("%d requests for 11 objects in pages of 3: pagination not followed", n)
	}
	type row struct{ key, title, authors, year, venue, doi, files string }
	var got []row
	for _, e := range entries {
		var names, files []string
		for _, a := range e.Authors {
			names = append(names, a.String())
		}
		for _, f := range e.Files {
			s := f.Path
			if f.Base {
				s = "base:" + s
			}
			if f.Missing {
				s += " (missing)"
			}
			files = append(files, s)
		}
		got = append(got, row{e.Key, e.Title, strings.Join(names, "; "), e.Year, e.Venue, e.DOI, strings.Join(files, " | ")})
	}
	storage := filepath.Join(dir, "Zotero", "storage")
	want := []row{
		{"gao2023precise", "Precise Zero-Shot Dense Retrieval without Relevance Labels", "Gao, Luyu; Ma, Xueguang; Lin, Jimmy", "2023",
			"Proceedings of ACL 2023", "10.18653/v1/2023.acl-long.99",
			filepath.Join(storage, "7GXQ2K3B", "Gao et al. - 2023 - Precise Zero-Shot Dense Retrieval.pdf") + " | " + filepath.Join(storage, "Q4XR9P2M", "snapshot.html") + " (missing)"},
		{"muller2021", "Über die Entstehung der Zitierpraxis", "Müller, Jörg; van der Berg, Ana", "2021", "Zeitschrift für Wissenschaftsforschung",
			"10.1000/zit.2021.7", filepath.Join(storage, "ZZ9ABCDE", "Müller - 2021 - Über die Entstehung.pdf") + " (missing)"},
		{"lovelace1843", "Sketch of the Analytical Engine", "Lovelace, Ada", "1843", "Scientific Memoirs", "", filepath.Join(dir, "papers", "Lovelace 1843.pdf")},
		{"worldhealthorganization2022", "Base-folder Report", "World Health Organization", "2022", "", "10.5555/base.22", "base:reports/base report.pdf"},
		{"gao2022", "Precise Zero-Shot Dense Retrieval (preprint)", "Gao, Luyu", "2022", "arXiv", "10.18653/v1/2023.acl-long.99",
			filepath.Join(storage, "7GXQ2K3B", "Gao et al. - 2023 - Precise Zero-Shot Dense Retrieval.pdf")},
		{"gao2019", "A Book Without Files", "Gao, Luyu", "2019", "Publisher", "", ""},
		{"notes", "notes from the workshop.pdf", "", "", "", "", filepath.Join(storage, "S7AND4LN", "notes from the workshop.pdf")},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d:\n%+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestZoteroCollections(t *testing.T) {
	dir := t.TempDir()
	srv := zoterotest.New(t, zoteroLibrary(t, dir))
	srv.TopOnlyCollections = true // children must be asked for
	z := &bib.Zotero{BaseURL: srv.APIURL()}
	ctx := context.Background()
	keys := func(name string) (string, error) {
		entries, err := z.Entries(ctx, name)
		var ks []string
		for _, e := range entries {
			ks = append(ks, e.Key+"/"+map[bool]string{true: "file", false: "none"}[len(e.Files) > 0])
		}
		return strings.Join(ks, " "), err
	}
	// The collection and its subcollection; children fetched per item.
	if got, err := keys("Thesis"); err != nil || got != "gao2023precise/file muller2021/file notes/file" {
		t.Errorf("Thesis: %q, %v", got, err)
	}
	if srv.Requests["/api/users/0/items/GAO23AAA/children"] == 0 {
		t.Error("children of a collection's item were not asked for")
	}
	if got, err := keys("thesis/chapter 2"); err != nil || got != "muller2021/file" {
		t.Errorf("by path: %q, %v", got, err)
	}
	if got, err := keys("COLTHES1"); err != nil || !strings.HasPrefix(got, "gao2023precise") {
		t.Errorf("by key: %q, %v", got, err)
	}
	if _, err := keys("Chapter 2"); err == nil || !strings.Contains(err.Error(), "several Zotero collections") || !strings.Contains(err.Error(), "Thesis/Chapter 2 (key COLCHAP2)") {
		t.Errorf("ambiguous name: %v", err)
	}
	if _, err := keys("Nope"); err == nil || !strings.Contains(err.Error(), `no collection "Nope"`) || !strings.Contains(err.Error(), "Thesis, Thesis/Chapter 2") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestZoteroRefusals: Zotero not running, or its local API off: each
// error says what to do.
func TestZoteroRefusals(t *testing.T) {
	srv := zoterotest.New(t, zoterotest.Library{})
	srv.SetEnabled(false)
	z := &bib.Zotero{BaseURL: srv.APIURL()}
	_, err := z.Entries(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), "Allow other applications on this computer to communicate with Zotero") {
		t.Errorf("API off: %v", err)
	}
	addr := srv.APIURL()
	srv.Close()
	_, err = (&bib.Zotero{BaseURL: addr}).Entries(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), "is Zotero 7 running?") {
		t.Errorf("Zotero not running: %v", err)
	}
}

func TestParseZoteroSource(t *testing.T) {
	for _, c := range []struct {
		in, coll string
		ok, err  bool
	}{
		{"zotero:", "", true, false}, {"zotero://", "", true, false}, {"zotero:collection/Thesis", "Thesis", true, false},
		{"zotero:collection/Thesis/Chapter 2", "Thesis/Chapter 2", true, false}, {"zotero:collection/", "", true, true},
		{"zotero:items", "", true, true}, {"refs.bib", "", false, false},
	} {
		coll, ok, err := bib.ParseZoteroSource(c.in)
		if coll != c.coll || ok != c.ok || (err != nil) != c.err {
			t.Errorf("ParseZoteroSource(%q) = %q, %v, %v", c.in, coll, ok, err)
		}
	}
}
