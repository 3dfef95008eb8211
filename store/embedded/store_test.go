package embedded

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// both runs f against a store in memory and one on disk.
func both(t *testing.T, f func(t *testing.T, dir string)) {
	t.Run("memory", func(t *testing.T) { f(t, "") })
	t.Run("disk", func(t *testing.T) { f(t, t.TempDir()) })
}

func TestPutReplaceDelete(t *testing.T) {
	both(t, func(t *testing.T, dir string) {
		ctx := context.Background()
		s := mustOpen(t, dir, testInfo)
		defer s.Close()
		put(t, s, "a", 3, 1)
		put(t, s, "b", 5, 1)
		checkDoc(t, s, "a", 3, 1)
		checkDoc(t, s, "b", 5, 1)
		if s.Len() != 8 {
			t.Fatalf("Len = %d, want 8", s.Len())
		}

		// Replace a with fewer segments: the old tail must be gone everywhere.
		put(t, s, "a", 2, 2)
		checkDoc(t, s, "a", 2, 2)
		if _, ok := s.Segment("a:2"); ok {
			t.Fatal("a:2 survived replacing a with 2 segments")
		}
		if s.Len() != 7 {
			t.Fatalf("Len = %d, want 7", s.Len())
		}
		hits, err := s.Query(ctx, vec("a/1", 2, testInfo.Dimension), 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 7 {
			t.Fatalf("query returned %d hits, want all 7", len(hits))
		}
		for _, h := range hits {
			if h.Segment.ID == "a:2" {
				t.Fatal("query returned replaced segment a:2")
			}
		}

		if err := s.DeleteDocument(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Document("b"); ok {
			t.Fatal("b still there after delete")
		}
		if got := s.Segments("b"); got != nil {
			t.Fatalf("Segments(b) = %v after delete", got)
		}
		wantErr(t, s.DeleteDocument(ctx, "b"), ErrNotFound)
		if s.Len() != 2 {
			t.Fatalf("Len = %d, want 2", s.Len())
		}
		hits, err = s.Query(ctx, vec("b/1", 0, testInfo.Dimension), 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 || hits[0].Segment.DocumentID != "a" {
			t.Fatalf("hits after delete = %v", hits)
		}
	})
}

func TestQueryFindsItself(t *testing.T) {
	both(t, func(t *testing.T, dir string) {
		s := mustOpen(t, dir, testInfo)
		defer s.Close()
		for d := range 20 {
			put(t, s, "doc"+strconv.Itoa(d), 4, 1)
		}
		for _, id := range []string{"doc0:0", "doc7:3", "doc19:2"} {
			doc, i, _ := splitID(id)
			q := vec(doc+"/1", i, testInfo.Dimension)
			hits, err := s.Query(context.Background(), q, 3, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 3 || hits[0].Segment.ID != id || hits[0].Similarity < 0.9999 {
				t.Fatalf("query for %s: %v", id, hits)
			}
			if hits[0].Segment.Text != segText(doc, i, 1) {
				t.Fatalf("hit text = %q", hits[0].Segment.Text)
			}
			if hits[1].Similarity > hits[0].Similarity || hits[2].Similarity > hits[1].Similarity {
				t.Fatalf("hits not best first: %v", hits)
			}
		}
		// More asked than stored: all of them, no error (chromem refuses that).
		hits, err := s.Query(context.Background(), vec("x", 0, testInfo.Dimension), 1000, nil)
		if err != nil || len(hits) != 80 {
			t.Fatalf("k > Len: %d hits, %v", len(hits), err)
		}
	})
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := mustOpen(t, dir, testInfo)
	put(t, s, "a", 3, 1)
	put(t, s, "b", 2, 1)
	put(t, s, "c", 4, 1)
	put(t, s, "a", 5, 2) // replace
	if err := s.DeleteDocument(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = mustOpen(t, dir, testInfo)
	checkDoc(t, s, "a", 5, 2)
	checkDoc(t, s, "c", 4, 1)
	if _, ok := s.Document("b"); ok {
		t.Fatal("deleted b came back after reopen")
	}
	if s.Len() != 9 {
		t.Fatalf("Len = %d, want 9", s.Len())
	}
	hits, err := s.Query(ctx, vec("c/1", 3, testInfo.Dimension), 1, nil)
	if err != nil || len(hits) != 1 || hits[0].Segment.ID != "c:3" {
		t.Fatalf("query after reopen: %v, %v", hits, err)
	}
	// Writes after a reopen append to the same files.
	put(t, s, "d", 2, 1)
	s.Close()
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	for _, c := range []struct {
		id   string
		n, v int
	}{{"a", 5, 2}, {"c", 4, 1}, {"d", 2, 1}} {
		checkDoc(t, s, c.id, c.n, c.v)
	}
	docs := s.Documents()
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	if !slices.Equal(ids, []string{"a", "c", "d"}) {
		t.Fatalf("Documents = %v", ids)
	}
}

func TestCompact(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	for v := 1; v <= 3; v++ {
		put(t, s, "a", 50, v)
		put(t, s, "b", 10, v)
	}
	put(t, s, "c", 7, 1)
	if err := s.DeleteDocument(context.Background(), "c"); err != nil {
		t.Fatal(err)
	}
	before := s.disk.man.Generation
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	if s.disk.man.Generation != before+1 || s.disk.rows != 60 || s.disk.deadRows != 0 {
		t.Fatalf("after compact: generation %d, rows %d, dead %d", s.disk.man.Generation, s.disk.rows, s.disk.deadRows)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-*"))
	if len(files) != 2 {
		t.Fatalf("files after compact: %v", files)
	}
	put(t, s, "d", 3, 1)
	s.Close()
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	checkDoc(t, s, "a", 50, 3)
	checkDoc(t, s, "b", 10, 3)
	checkDoc(t, s, "d", 3, 1)
	if s.Len() != 63 {
		t.Fatalf("Len = %d", s.Len())
	}
}

func TestAutoCompact(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	defer s.Close()
	for v := range 10 {
		put(t, s, "a", 500, v)
	}
	// 5,000 rows written, 500 live: compaction must have kept it bounded.
	if s.disk.rows > 500+minDeadRows+500 {
		t.Fatalf("%d rows on disk for 500 live", s.disk.rows)
	}
	checkDoc(t, s, "a", 500, 9)
}

func TestEmbedderMismatch(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	put(t, s, "a", 1, 1)
	s.Close()

	for _, other := range []Info{
		{Embedder: "other-model", Dimension: 8},
		{Embedder: "test-embedder", Dimension: 16},
	} {
		_, err := Open(dir, other)
		wantErr(t, err, ErrEmbedderMismatch)
		for _, name := range []string{testInfo.Embedder, other.Embedder, "8"} {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("mismatch error %q does not name %q", err, name)
			}
		}
	}

	info, ok, err := ReadInfo(dir)
	if err != nil || !ok || info != testInfo {
		t.Fatalf("ReadInfo = %v, %v, %v", info, ok, err)
	}
	if _, ok, err := ReadInfo(t.TempDir()); ok || err != nil {
		t.Fatalf("ReadInfo of empty folder = %v, %v", ok, err)
	}

	// A zero Info adopts the library's embedder.
	s, err = Open(dir, Info{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Info() != testInfo {
		t.Fatalf("Info = %v", s.Info())
	}
	checkDoc(t, s, "a", 1, 1)
	_, err = s.Query(context.Background(), make([]float32, 3), 1, nil)
	wantErr(t, err, ErrEmbedderMismatch)
	s.Close()

	_, err = Open(filepath.Join(t.TempDir(), "none"), Info{})
	wantErr(t, err, fs.ErrNotExist)
	if _, err := Open("", Info{}); err == nil {
		t.Fatal("in-memory store without an embedder opened")
	}
}

func TestPutRejectsBadInput(t *testing.T) {
	s := mustOpen(t, "", testInfo)
	defer s.Close()
	ctx := context.Background()
	cases := map[string]func(d *Document, segs []Segment){
		"no id":         func(d *Document, segs []Segment) { d.ID = "" },
		"wrong seg id":  func(d *Document, segs []Segment) { segs[1].ID = "a:7" },
		"wrong index":   func(d *Document, segs []Segment) { segs[1].Index = 0 },
		"wrong doc":     func(d *Document, segs []Segment) { segs[0].DocumentID = "b" },
		"wrong dim":     func(d *Document, segs []Segment) { segs[0].Vector = segs[0].Vector[:3] },
		"no vector":     func(d *Document, segs []Segment) { segs[0].Vector = nil },
		"nan in vector": func(d *Document, segs []Segment) { segs[1].Vector[2] = float32(nan()) },
	}
	for name, spoil := range cases {
		doc, segs := makeDoc("a", 2, testInfo.Dimension, 1)
		spoil(&doc, segs)
		if err := s.PutDocument(ctx, doc, segs); err == nil {
			t.Errorf("%s: PutDocument accepted it", name)
		}
	}
	if s.Len() != 0 {
		t.Fatalf("a rejected put left %d segments", s.Len())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	doc, segs := makeDoc("a", 2, testInfo.Dimension, 1)
	wantErr(t, s.PutDocument(cctx, doc, segs), context.Canceled)
}

func nan() float64 { var z float64; return z / z }

func TestVectorsNormalisedAndCopied(t *testing.T) {
	both(t, func(t *testing.T, dir string) {
		s := mustOpen(t, dir, testInfo)
		defer s.Close()
		doc, segs := makeDoc("a", 2, testInfo.Dimension, 1)
		for j := range segs[0].Vector {
			segs[0].Vector[j] *= 3 // not normalised
		}
		segs[1].Vector = make([]float32, testInfo.Dimension) // zero
		if err := s.PutDocument(context.Background(), doc, segs); err != nil {
			t.Fatal(err)
		}
		segs[0].Vector[0] = 42 // the store must not share the caller's slice
		v, _ := s.Vector("a:0")
		if !close32(v, vec("a/1", 0, testInfo.Dimension)) {
			t.Fatalf("stored vector %v is not the normalised input", v)
		}
		hits, err := s.Query(context.Background(), vec("a/1", 0, testInfo.Dimension), 5, nil)
		if err != nil || len(hits) != 1 || hits[0].Segment.ID != "a:0" {
			t.Fatalf("zero-vector segment matched a query: %v, %v", hits, err)
		}
		if _, ok := s.Segment("a:1"); !ok {
			t.Fatal("zero-vector segment not stored")
		}
		hits, err = s.Query(context.Background(), make([]float32, testInfo.Dimension), 5, nil)
		if err != nil || len(hits) != 0 {
			t.Fatalf("zero query: %v, %v", hits, err)
		}
	})
}

func TestFilter(t *testing.T) {
	both(t, func(t *testing.T, dir string) {
		ctx := context.Background()
		s := mustOpen(t, dir, testInfo)
		defer s.Close()
		for d := range 10 {
			put(t, s, "doc"+strconv.Itoa(d), 6, 1)
		}
		q := vec("doc3/1", 4, testInfo.Dimension)

		onlyDoc5 := func(doc *Document, seg *Segment) bool { return doc.ID == "doc5" }
		hits, err := s.Query(ctx, q, 4, onlyDoc5)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 4 {
			t.Fatalf("%d hits, want 4", len(hits))
		}
		for _, h := range hits {
			if h.Segment.DocumentID != "doc5" {
				t.Fatalf("filter let through %s", h.Segment.ID)
			}
		}

		// The filtered scan must agree with an unfiltered query restricted
		// by hand: same segments, same order, same similarities.
		all, err := s.Query(ctx, q, s.Len(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []Hit
		for _, h := range all {
			if h.Segment.DocumentID == "doc5" && len(want) < 4 {
				want = append(want, h)
			}
		}
		for i := range want {
			if want[i].Segment.ID != hits[i].Segment.ID || abs32(want[i].Similarity-hits[i].Similarity) > 1e-6 {
				t.Fatalf("filtered hit %d = %s %v, want %s %v", i, hits[i].Segment.ID, hits[i].Similarity, want[i].Segment.ID, want[i].Similarity)
			}
		}

		// By section: segments whose heading path has "Part 1".
		part1 := func(doc *Document, seg *Segment) bool { return slices.Contains(seg.Section, "Part 1") }
		hits, err = s.Query(ctx, q, 100, part1)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 20 { // segments 1 and 4 of each of 10 documents
			t.Fatalf("section filter: %d hits, want 20", len(hits))
		}
		for _, h := range hits {
			if h.Segment.Index%3 != 1 {
				t.Fatalf("section filter let through %s", h.Segment.ID)
			}
		}
		none := func(*Document, *Segment) bool { return false }
		if hits, err := s.Query(ctx, q, 5, none); err != nil || len(hits) != 0 {
			t.Fatalf("filter admitting nothing: %v, %v", hits, err)
		}
	})
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

func TestEachVisitsEverySegment(t *testing.T) {
	s := mustOpen(t, "", testInfo)
	defer s.Close()
	put(t, s, "b", 2, 1)
	put(t, s, "a", 3, 1)
	var got []string
	s.Each(func(doc *Document, seg *Segment) bool {
		if seg.DocumentID != doc.ID {
			t.Fatalf("segment %s visited with document %s", seg.ID, doc.ID)
		}
		got = append(got, seg.ID)
		return true
	})
	if want := []string{"a:0", "a:1", "a:2", "b:0", "b:1"}; !slices.Equal(got, want) {
		t.Fatalf("Each visited %v, want %v", got, want)
	}
	n := 0
	s.Each(func(*Document, *Segment) bool { n++; return n < 2 })
	if n != 2 {
		t.Fatalf("Each went on after false: %d", n)
	}
}

func TestClosed(t *testing.T) {
	s := mustOpen(t, t.TempDir(), testInfo)
	s.Close()
	doc, segs := makeDoc("a", 1, testInfo.Dimension, 1)
	wantErr(t, s.PutDocument(context.Background(), doc, segs), ErrClosed)
	_, err := s.Query(context.Background(), segs[0].Vector, 1, nil)
	wantErr(t, err, ErrClosed)
}

// TestOtherProcessChanged: a second store on the same folder writes; the
// first must refuse to write over it rather than corrupt the log.
func TestOtherProcessChanged(t *testing.T) {
	dir := t.TempDir()
	s1 := mustOpen(t, dir, testInfo)
	defer s1.Close()
	put(t, s1, "a", 2, 1)
	s2 := mustOpen(t, dir, testInfo)
	put(t, s2, "b", 2, 1)
	s2.Close()
	doc, segs := makeDoc("c", 1, testInfo.Dimension, 1)
	wantErr(t, s1.PutDocument(context.Background(), doc, segs), ErrChanged)
	s3 := mustOpen(t, dir, testInfo)
	defer s3.Close()
	checkDoc(t, s3, "a", 2, 1)
	checkDoc(t, s3, "b", 2, 1)
	if _, ok := s3.Document("c"); ok {
		t.Fatal("refused write is visible")
	}
}

func TestConcurrentReaders(t *testing.T) {
	both(t, func(t *testing.T, dir string) {
		ctx := context.Background()
		s := mustOpen(t, dir, testInfo)
		defer s.Close()
		for d := range 5 {
			put(t, s, "base"+strconv.Itoa(d), 5, 1)
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		errc := make(chan error, 8)
		for r := range 4 {
			wg.Go(func() {
				q := vec("q", r, testInfo.Dimension)
				for {
					select {
					case <-stop:
						return
					default:
					}
					var filter Filter
					if r%2 == 1 {
						filter = func(doc *Document, seg *Segment) bool { return seg.Index%2 == 0 }
					}
					hits, err := s.Query(ctx, q, 5, filter)
					if err != nil {
						errc <- err
						return
					}
					for _, h := range hits {
						if h.Segment.Text == "" {
							errc <- errors.New("hit without text")
							return
						}
					}
					// A document is always seen whole: one version, no gaps.
					for _, d := range s.Documents() {
						segs := s.Segments(d.ID)
						for i, sg := range segs {
							if sg.Index != i || version(sg.Text) != version(segs[0].Text) {
								errc <- errors.New("document seen partly: " + sg.ID)
								return
							}
						}
					}
					s.Each(func(*Document, *Segment) bool { return true })
					_ = s.Len()
				}
			})
		}
		for i := range 60 {
			id := "w" + strconv.Itoa(i%7)
			put(t, s, id, 1+i%4, i)
			if i%5 == 4 {
				if err := s.DeleteDocument(ctx, id); err != nil {
					t.Error(err)
				}
			}
		}
		close(stop)
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Error(err)
		}
		if dir != "" {
			s.Close()
			s2 := mustOpen(t, dir, testInfo)
			defer s2.Close()
			if s2.Len() != s.nsegs {
				t.Fatalf("reopened Len %d, want %d", s2.Len(), s.nsegs)
			}
		}
	})
}

// version is the version number segText wrote into a segment's text.
func version(text string) string {
	_, v, _ := strings.Cut(text, "version ")
	return v
}

func TestMain(m *testing.M) {
	code := m.Run()
	cleanupBench()
	os.Exit(code)
}

// TestStoredVectorsPassChromemNormCheck: chromem-go copies (and so doubles
// in memory) any vector whose float64 magnitude is not within 1e-6 of 1.
// Whatever scale the embedder returns, stored vectors must pass that check.
func TestStoredVectorsPassChromemNormCheck(t *testing.T) {
	dir := t.TempDir()
	info := Info{Embedder: "scaled", Dimension: 768}
	s := mustOpen(t, dir, info)
	r := rand.New(rand.NewPCG(7, 8))
	for d := range 20 {
		id := "d" + strconv.Itoa(d)
		segs := make([]Segment, 50)
		for i := range segs {
			v := make([]float32, info.Dimension)
			scale := float32(math.Pow(10, r.Float64()*8-4))
			for j := range v {
				v[j] = (r.Float32()*2 - 1) * scale
			}
			segs[i] = Segment{ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i, Vector: v}
		}
		if err := s.PutDocument(context.Background(), Document{ID: id}, segs); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = mustOpen(t, dir, info)
	defer s.Close()
	s.Each(func(doc *Document, seg *Segment) bool {
		v, _ := s.Vector(seg.ID)
		var sq float64
		for _, x := range v {
			sq += float64(x) * float64(x)
		}
		if m := math.Sqrt(sq); math.Abs(m-1) >= 1e-6 {
			t.Fatalf("segment %s has magnitude %v: chromem-go would copy it", seg.ID, m)
		}
		return true
	})
}

func TestUpdateReplacesAtomically(t *testing.T) {
	both(t, func(t *testing.T, dir string) {
		ctx := context.Background()
		s := mustOpen(t, dir, testInfo)
		put(t, s, "old", 3, 1)
		put(t, s, "other", 2, 1)
		var u Updater = s
		newDoc, segs := makeDoc("new", 4, testInfo.Dimension, 1)
		if err := u.Update(ctx, []Put{{newDoc, segs}}, []string{"old"}); err != nil {
			t.Fatal(err)
		}
		// A delete of a missing document refuses the whole update.
		d2, s2 := makeDoc("third", 1, testInfo.Dimension, 1)
		wantErr(t, s.Update(ctx, []Put{{d2, s2}}, []string{"missing"}), ErrNotFound)
		if dir != "" {
			s.Close()
			s = mustOpen(t, dir, testInfo)
		}
		defer s.Close()
		if err := sameState(s, map[string]docState{"new": {4, 1}, "other": {2, 1}}); err != nil {
			t.Fatal(err)
		}
	})
}
