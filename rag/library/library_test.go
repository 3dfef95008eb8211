package library

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/fifotest"
	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/internal/xdg"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

var sampleNotes = map[string]string{
	"plants.md": `---
title: How plants eat light
author: A. Botanist
---
# Photosynthesis

Chlorophyll in the chloroplasts absorbs red and blue light. The light
reactions split water and release oxygen; the Calvin cycle fixes carbon
dioxide into sugar.

## Stomata

Leaves open their stomata to take in carbon dioxide and close them to keep
water when the air is dry.
`,
	"ships.txt": `Clipper ships of the nineteenth century carried tea from China to London.

Their sharp hulls and tall masts made them the fastest sailing vessels of their age,
until steamships and the Suez Canal ended the tea races.
`,
	"sub/volcano.md": `# Volcanoes

Magma rises through the crust and erupts as lava, ash and volcanic gas.
Basaltic lava flows far; rhyolitic magma is viscous and explodes.
`,
}

func TestLibraryLifecycle(t *testing.T) {
	tmp := testEnv(t)
	docs := filepath.Join(tmp, "docs")
	writeFiles(t, docs, sampleNotes)
	ctx := context.Background()

	l := mustOpen(t, Options{})
	if l.Name() != "default" || l.Location() != "" {
		t.Fatalf("library %q at %q, want default at the default location", l.Name(), l.Location())
	}
	var stages []Stage
	rep, err := l.Add(ctx, []string{docs}, func(p AddProgress) { stages = append(stages, p.Stage) })
	if err != nil {
		t.Fatal(err)
	}
	if got := counts(rep); got != "3/0/0/0/0" {
		t.Fatalf("first add: %s, want 3 added; %+v", got, rep.Skipped)
	}
	for _, s := range []Stage{StageLoad, StageEmbed, StageStore, StageFile, StageDone} {
		if !slices.Contains(stages, s) {
			t.Errorf("no %q progress in %v", s, stages)
		}
	}
	checkWhole(t, l)
	if n := len(mustDocs(t, l)); n != 3 {
		t.Fatalf("%d documents, want 3", n)
	}
	if _, err := os.Stat(filepath.Join(folderOf("default"), "bm25.idx")); err != nil {
		t.Errorf("no saved BM25 index after an add: %v", err)
	}
	before := mustLen(t, l)

	// Unchanged: nothing happens.
	rep = mustAdd(t, l, docs)
	if got := counts(rep); got != "0/3/0/0/0" {
		t.Fatalf("re-add: %s, want 3 unchanged", got)
	}
	if mustLen(t, l) != before {
		t.Fatalf("re-add changed the library: %d segments, was %d", mustLen(t, l), before)
	}

	// Changed: replaced.
	ships := filepath.Join(docs, "ships.txt")
	old, ok := docAt(t, l, ships)
	if !ok {
		t.Fatal("ships.txt not in the library")
	}
	writeFiles(t, docs, map[string]string{"ships.txt": sampleNotes["ships.txt"] + "\nThe Cutty Sark survives in Greenwich.\n"})
	rep = mustAdd(t, l, docs)
	if got := counts(rep); got != "0/2/1/0/0" {
		t.Fatalf("add after change: %s, want 2 unchanged, 1 replaced", got)
	}
	if rep.Replaced[0].Path != ships || rep.Replaced[0].ID == old.ID {
		t.Fatalf("replaced %+v, want a new document for %s", rep.Replaced[0], ships)
	}
	if _, err := l.Document(context.Background(), old.ID); err == nil || len(mustSegs(t, l, old.ID)) != 0 {
		t.Fatalf("old version %s still in the library", old.ID)
	}
	checkWhole(t, l)
	if n := len(mustDocs(t, l)); n != 3 {
		t.Fatalf("%d documents after replace, want 3", n)
	}

	// Same content under another path: skipped, saying where it is.
	writeFiles(t, docs, map[string]string{"copy/plants-copy.md": sampleNotes["plants.md"]})
	rep = mustAdd(t, l, filepath.Join(docs, "copy"))
	if got := counts(rep); got != "0/0/0/0/1" || !strings.Contains(rep.Skipped[0].Reason, "same content as "+filepath.Join(docs, "plants.md")) {
		t.Fatalf("duplicate: %s %+v", got, rep.Skipped)
	}

	// Moved: the document takes the new path, keeping its id.
	vol, _ := docAt(t, l, filepath.Join(docs, "sub", "volcano.md"))
	moved := filepath.Join(docs, "volcano-moved.md")
	if err := os.Rename(filepath.Join(docs, "sub", "volcano.md"), moved); err != nil {
		t.Fatal(err)
	}
	rep = mustAdd(t, l, moved)
	if got := counts(rep); got != "0/0/0/1/0" || rep.Moved[0].ID != vol.ID || rep.Moved[0].Path != moved {
		t.Fatalf("moved: %s %+v", got, rep.Moved)
	}
	checkWhole(t, l)

	// Everything survives a reopen.
	want := mustDocs(t, l)
	l.Close()
	l = mustOpen(t, Options{})
	if got := mustDocs(t, l); !slices.EqualFunc(got, want, func(a, b store.Document) bool { return a.ID == b.ID && a.Path == b.Path }) {
		t.Fatalf("after reopen: %+v, want %+v", got, want)
	}
	checkWhole(t, l)

	// Remove by path, then by id prefix.
	removed, err := l.Remove(ctx, moved)
	if err != nil || len(removed) != 1 || removed[0].ID != vol.ID {
		t.Fatalf("Remove(path) = %+v, %v", removed, err)
	}
	plants, _ := docAt(t, l, filepath.Join(docs, "plants.md"))
	removed, err = l.Remove(ctx, plants.ID[:8])
	if err != nil || len(removed) != 1 || removed[0].ID != plants.ID {
		t.Fatalf("Remove(prefix) = %+v, %v", removed, err)
	}
	if _, err := l.Remove(ctx, "no-such-document"); err == nil || !strings.Contains(err.Error(), "ibid ls") {
		t.Fatalf("Remove(unknown) = %v, want an error that points to ibid ls", err)
	}
	if n := len(mustDocs(t, l)); n != 1 {
		t.Fatalf("%d documents left, want 1", n)
	}
	checkWhole(t, l)
	l.Close()
	l = mustOpen(t, Options{})
	if n := len(mustDocs(t, l)); n != 1 {
		t.Fatalf("%d documents after reopen, want 1", n)
	}
}

func docAt(t *testing.T, l *Library, path string) (store.Document, bool) {
	for _, d := range mustDocs(t, l) {
		if d.Path == path {
			return d, true
		}
	}
	return store.Document{}, false
}

func TestLibrarySearch(t *testing.T) {
	tmp := filepath.Join(testEnv(t), "docs")
	writeFiles(t, tmp, sampleNotes)
	l := mustOpen(t, Options{Name: "search"})
	mustAdd(t, l, tmp)
	for _, tc := range []struct{ query, file, text string }{
		{"how does chlorophyll absorb light", "plants.md", "Chlorophyll"},
		{"tea races clipper ships", "ships.txt", "Clipper"},
		{"lava and magma eruptions", "volcano.md", "Magma"},
	} {
		ps, err := l.Search(context.Background(), tc.query, retrieve.Options{K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) == 0 {
			t.Fatalf("%q: no passages", tc.query)
		}
		top := ps[0]
		if filepath.Base(top.Document.Path) != tc.file || !strings.Contains(top.Segment.Text, tc.text) {
			t.Errorf("%q: top passage %s %q, want %s", tc.query, top.Document.Path, top.Segment.Text, tc.file)
		}
		seg, doc, err := l.Segment(context.Background(), top.Segment.ID)
		if err != nil || seg.Text != top.Segment.Text || doc.ID != top.Document.ID {
			t.Errorf("Segment(%s) = %v %v %v", top.Segment.ID, seg, doc, err)
		}
	}
}

func TestLibraryBadInputs(t *testing.T) {
	tmp := testEnv(t)
	dir := filepath.Join(tmp, "in")
	writeFiles(t, dir, map[string]string{
		"good.md":     "# Good\n\nA perfectly fine note about tide pools and anemones.\n",
		"empty.txt":   "",
		"binary.bin":  "\x00\x01\x02\x03\xff\xfe binary",
		"latin1.txt":  "caf\xe9 cr\xe8me br\xfbl\xe9e\n",
		"corrupt.pdf": "%PDF-1.7\nthis is not really a pdf\n",
		"blank.md":    "---\ntitle: nothing\n---\n\n   \n",
	})
	l := mustOpen(t, Options{})
	rep := mustAdd(t, l, dir, filepath.Join(tmp, "no-such-file.md"))
	if len(rep.Added) != 1 || filepath.Base(rep.Added[0].Path) != "good.md" {
		t.Fatalf("added %+v, want good.md only", rep.Added)
	}
	skipped := map[string]string{}
	for _, s := range rep.Skipped {
		skipped[filepath.Base(s.Path)] = s.Reason
		if s.Reason == "" || strings.Contains(s.Reason, "\n") {
			t.Errorf("%s: reason %q is not one line", s.Path, s.Reason)
		}
	}
	for _, name := range []string{"empty.txt", "binary.bin", "latin1.txt", "corrupt.pdf", "blank.md", "no-such-file.md"} {
		if _, ok := skipped[name]; !ok {
			t.Errorf("%s not reported as skipped; skipped: %v", name, skipped)
		}
	}
	t.Logf("reasons: %v", skipped)
	checkWhole(t, l)
}

func TestLibraryEmbedderMismatch(t *testing.T) {
	tmp := filepath.Join(testEnv(t), "docs")
	writeFiles(t, tmp, sampleNotes)
	fake := &fakeEmbedder{name: "fake-a", dim: 16}
	l := mustOpen(t, Options{Name: "fake", Embedder: fake})
	mustAdd(t, l, tmp)
	n := len(mustDocs(t, l))
	l.Close()

	// The default (local) embedder is refused, with how to go on.
	_, err := Open(context.Background(), Options{Name: "fake"})
	if !errors.Is(err, store.ErrEmbedderMismatch) {
		t.Fatalf("open with the local embedder: %v, want ErrEmbedderMismatch", err)
	}
	for _, want := range []string{`"fake"`, "fake-a", "--embed-model fake-a", "ibid rm --library fake --all && ibid add --library fake"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// Another remote embedder too.
	_, err = Open(context.Background(), Options{Name: "fake", Embedder: &fakeEmbedder{name: "fake-b", dim: 16}})
	if !errors.Is(err, store.ErrEmbedderMismatch) || !strings.Contains(err.Error(), "--embed-model fake-b PATH") {
		t.Fatalf("open with fake-b: %v", err)
	}

	// Listing needs no embedder; adding and searching then say which one.
	l = mustOpen(t, Options{Name: "fake", AnyEmbedder: true})
	if len(mustDocs(t, l)) != n || l.EmbedderName() != "fake-a" {
		t.Fatalf("AnyEmbedder: %d documents by %s, want %d by fake-a", len(mustDocs(t, l)), l.EmbedderName(), n)
	}
	if _, err := l.Search(context.Background(), "light", retrieve.Options{K: 1}); !errors.Is(err, store.ErrEmbedderMismatch) || !strings.Contains(err.Error(), "--embed-model fake-a") {
		t.Fatalf("Search without the embedder: %v", err)
	}
	l.Close()

	// Rebuilding: delete the library, then build it with the local embedder.
	if err := Delete(context.Background(), Options{Name: "fake"}); err != nil {
		t.Fatal(err)
	}
	l = mustOpen(t, Options{Name: "fake"})
	if mustLen(t, l) != 0 || l.EmbedderName() != retrieve.NewLocalEmbedder().Name() {
		t.Fatalf("rebuilt library: %d segments by %s", mustLen(t, l), l.EmbedderName())
	}
	if got := counts(mustAdd(t, l, tmp)); got != "3/0/0/0/0" {
		t.Fatalf("rebuild add: %s", got)
	}
}

func TestLibraryAnyEmbedderMissing(t *testing.T) {
	testEnv(t)
	l := mustOpen(t, Options{Name: "nothing", AnyEmbedder: true})
	if mustLen(t, l) != 0 || !l.InMemory() {
		t.Fatalf("missing library opened as %d segments at %q", mustLen(t, l), l.Location())
	}
	if _, err := os.Stat(folderOf("nothing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("listing created the library folder: %v", err)
	}
}

func TestLibraryNames(t *testing.T) {
	testEnv(t)
	for _, bad := range []string{"../x", "a/b", ".", "..", `a\b`} {
		if _, err := Open(context.Background(), Options{Name: bad}); err == nil {
			t.Errorf("library name %q accepted", bad)
		}
	}
}

func TestLibraryEmbedderFailureStops(t *testing.T) {
	tmp := filepath.Join(testEnv(t), "docs")
	writeFiles(t, tmp, sampleNotes)
	fake := &fakeEmbedder{name: "fake-a", dim: 16}
	l := mustOpen(t, Options{Embedder: fake})
	fake.fail = errors.New("connection refused")
	rep, err := l.Add(context.Background(), []string{tmp}, nil)
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Add with a failing embedder: %v", err)
	}
	if len(rep.Added) != 0 || mustLen(t, l) != 0 {
		t.Fatalf("added %d documents, %d segments with a failing embedder", len(rep.Added), mustLen(t, l))
	}
}

// TestLibraryTwoWriters has two handles on one library (as two processes
// would): the second writes after the first changed the library, so it must
// reload and keep both documents.
func TestLibraryTwoWriters(t *testing.T) {
	tmp := filepath.Join(testEnv(t), "docs")
	writeFiles(t, tmp, sampleNotes)
	a := mustOpen(t, Options{Name: "shared"})
	b := mustOpen(t, Options{Name: "shared"})
	mustAdd(t, a, filepath.Join(tmp, "plants.md"))
	rep := mustAdd(t, b, filepath.Join(tmp, "ships.txt"), filepath.Join(tmp, "plants.md"))
	if got := counts(rep); got != "1/1/0/0/0" {
		t.Fatalf("second writer: %s, want 1 added, 1 unchanged", got)
	}
	if n := len(mustDocs(t, b)); n != 2 {
		t.Fatalf("second writer sees %d documents, want 2", n)
	}
	removed, err := a.Remove(context.Background(), filepath.Join(tmp, "ships.txt"))
	if err != nil || len(removed) != 1 {
		t.Fatalf("first writer removing the second's document: %v %v", removed, err)
	}
	c := mustOpen(t, Options{Name: "shared"})
	if n := len(mustDocs(t, c)); n != 1 {
		t.Fatalf("%d documents, want 1", n)
	}
	checkWhole(t, c)
}

func TestLibraryInMemory(t *testing.T) {
	tmp := filepath.Join(testEnv(t), "docs")
	writeFiles(t, tmp, sampleNotes)
	l := mustOpen(t, Options{InMemory: true})
	mustAdd(t, l, tmp)
	if len(mustDocs(t, l)) != 3 || !l.InMemory() {
		t.Fatalf("in memory: %d documents at %q", len(mustDocs(t, l)), l.Location())
	}
	if data, _ := xdg.DataDir(); data == "" || func() bool { _, err := os.Stat(data); return !errors.Is(err, os.ErrNotExist) }() {
		t.Fatalf("in-memory library wrote to %s", data)
	}
}

func TestLibraryPDFs(t *testing.T) {
	dir := shareddata.Path(t, "pdf")
	testEnv(t)
	l := mustOpen(t, Options{})
	rep := mustAdd(t, l, dir)
	if len(rep.Added) < 3 {
		t.Fatalf("added %d PDFs, want at least 3; skipped %+v", len(rep.Added), rep.Skipped)
	}
	for _, s := range rep.Skipped {
		t.Logf("skipped %s: %s", s.Path, s.Reason)
	}
	checkWhole(t, l)
	ps, err := l.Search(context.Background(), "citation recall and precision of generated answers", retrieve.Options{K: 5})
	if err != nil || len(ps) == 0 {
		t.Fatalf("search: %v, %d passages", err, len(ps))
	}
	if !strings.Contains(ps[0].Document.Path, "alce") || ps[0].Segment.PageStart == 0 {
		t.Errorf("top passage from %s page %d, want the ALCE paper with a page", ps[0].Document.Path, ps[0].Segment.PageStart)
	}
	if got := counts(mustAdd(t, l, dir)); !strings.HasPrefix(got, "0/"+strconv.Itoa(len(rep.Added))+"/0/0/") {
		t.Errorf("re-adding the PDFs: %s", got)
	}
}

// TestLibraryConcurrentAdders: two handles on one library (as two
// processes would have) adding at once both succeed, and the library ends
// with every document whole, once.
func TestLibraryConcurrentAdders(t *testing.T) {
	tmp := filepath.Join(testEnv(t), "docs")
	writeFiles(t, tmp, sampleNotes)
	writeFiles(t, tmp, map[string]string{"more/new.md": "# New\n\nA note about lighthouses.\n"})
	a := mustOpen(t, Options{Name: "shared"})
	b := mustOpen(t, Options{Name: "shared"})
	var wg sync.WaitGroup
	for _, l := range []*Library{a, b} {
		wg.Go(func() {
			if _, err := l.Add(context.Background(), []string{tmp}, nil); err != nil {
				t.Errorf("concurrent Add: %v", err)
			}
		})
	}
	wg.Wait()
	checkWhole(t, a)
	if n := len(mustDocs(t, b)); n != 4 {
		t.Fatalf("%d documents after two concurrent adds of 4 files, want 4", n)
	}
}

// TestLibrarySeesOtherWriters: a library open in one process (the chat)
// sees, at its next search, documents another process added or removed,
// and a library another process deleted as empty.
func TestLibrarySeesOtherWriters(t *testing.T) {
	tmp := filepath.Join(testEnv(t), "docs")
	writeFiles(t, tmp, sampleNotes)
	chat := mustOpen(t, Options{Name: "shared"})
	mustAdd(t, chat, filepath.Join(tmp, "plants.md"))
	other := mustOpen(t, Options{Name: "shared"}) // as another process would
	mustAdd(t, other, filepath.Join(tmp, "ships.txt"))

	ps, err := chat.Search(context.Background(), "clipper ships tea", retrieve.Options{K: 1})
	if err != nil || len(ps) == 0 || filepath.Base(ps[0].Document.Path) != "ships.txt" {
		t.Fatalf("chat does not see the other's document: %v %v", ps, err)
	}
	if _, err := other.Remove(context.Background(), filepath.Join(tmp, "ships.txt")); err != nil {
		t.Fatal(err)
	}
	if n := len(mustDocs(t, chat)); n != 1 {
		t.Fatalf("chat sees %d documents after the other removed one, want 1", n)
	}
	if err := Delete(context.Background(), Options{Name: "shared"}); err != nil {
		t.Fatal(err)
	}
	// Gone: the chat stops showing (and citing) what was deleted, and
	// nothing is created by looking.
	if n := len(mustDocs(t, chat)); n != 0 {
		t.Fatalf("chat sees %d documents after the library was deleted", n)
	}
	if _, err := os.Stat(folderOf("shared")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("refreshing recreated a deleted library: %v", err)
	}
}

// TestLibraryCloseCancelsAdd: closing a library while an Add runs (the
// chat quitting during /add) cancels the add within a second, and the
// library keeps whole documents only.
func TestLibraryCloseCancelsAdd(t *testing.T) {
	tmp := testEnv(t)
	docs := filepath.Join(tmp, "docs")
	manyNotes(t, docs, 60)
	started := make(chan struct{})
	var once sync.Once
	slow := &fakeEmbedder{name: "slow", dim: 8, hook: func() {
		once.Do(func() { close(started) })
		time.Sleep(50 * time.Millisecond)
	}}
	l, err := Open(context.Background(), Options{Name: "closing", Embedder: slow})
	if err != nil {
		t.Fatal(err)
	}
	added := make(chan error, 1)
	go func() {
		_, err := l.Add(context.Background(), []string{docs}, nil)
		added <- err
	}()
	<-started
	begin := time.Now()
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(begin); d > time.Second {
		t.Fatalf("Close took %v while an add ran, want under a second", d)
	}
	if err := <-added; !errors.Is(err, context.Canceled) {
		t.Fatalf("the add ended with %v, want context.Canceled", err)
	}
	l = mustOpen(t, Options{Name: "closing", Embedder: slow})
	checkWhole(t, l)
	if n := len(mustDocs(t, l)); n >= 60 {
		t.Fatalf("%d documents: the add was not cut short", n)
	}
}

// TestLibraryHostileFiles: a named pipe in a folder is passed over (never
// waited on; ingest's Open tests a file swapped for one), a file over --max-file-size is skipped without being
// read, a Markdown file with a base64 image is added with a note, and the
// good files beside them are added.
func TestLibraryHostileFiles(t *testing.T) {
	tmp := filepath.Join(testEnv(t), "docs")
	writeFiles(t, tmp, sampleNotes)
	fifotest.MakeOrSkip(t, filepath.Join(tmp, "pipe.md"))
	big := filepath.Join(tmp, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("Sourdough rises slowly. ", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	blob := "# Image\n\nA picture of a harbour: ![x](data:image/png;base64," + strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAE", 40) + ")\n"
	writeFiles(t, tmp, map[string]string{"image.md": blob})
	l := mustOpen(t, Options{})
	done := make(chan *AddReport, 1)
	go func() {
		rep, err := l.AddWith(context.Background(), []string{tmp}, AddOptions{MaxFileSize: 4096}, nil)
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	var rep *AddReport
	select {
	case rep = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Add hangs on a named pipe")
	}
	reasons := map[string]string{}
	for _, s := range rep.Skipped {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	if !strings.Contains(reasons["big.txt"], "too large") || !strings.Contains(reasons["big.txt"], "--max-file-size") {
		t.Errorf("skips: %q", reasons)
	}
	if len(rep.Added) != 4 { // the three notes and image.md
		t.Errorf("added %d documents, want 4: %s", len(rep.Added), counts(rep))
	}
	if len(rep.Notes) != 1 || filepath.Base(rep.Notes[0].Path) != "image.md" || !strings.Contains(rep.Notes[0].Text, "base64") {
		t.Errorf("notes: %+v", rep.Notes)
	}
}
