package retrieve

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// sameResults fails unless a and b give the same BM25 results for queries.
func sameResults(t *testing.T, a, b *Index, queries ...string) {
	t.Helper()
	for _, q := range queries {
		x := a.bm25.Search(q, 100, nil)
		y := b.bm25.Search(q, 100, nil)
		if len(x) != len(y) {
			t.Fatalf("%q: %v vs %v", q, x, y)
		}
		for i := range x {
			if x[i].ID != y[i].ID || !nearTol(x[i].Score, y[i].Score, 1e-12) {
				t.Fatalf("%q: %v vs %v", q, x, y)
			}
		}
	}
}

func TestSaveLoad(t *testing.T) {
	ctx := context.Background()
	ix, st := newTestIndex(t)
	dir := t.TempDir()
	queries := []string{"random effects hospitals", "folding", "patients", "機械学習", "plain words"}

	// Remove something first, so the saved file must skip dead slots.
	doc, segs := putDoc(t, st, ix.emb, paperC)
	ix.AddDocument(doc, segs)
	st.DeleteDocument(ctx, paperC.id)
	ix.RemoveDocument(paperC.id)
	if err := ix.Save(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := NewIndexDir(st, ix.emb, dir)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, ix, loaded, queries...)
	if loaded.bm25.Len() != 7 || len(loaded.bm25.slots) != 7 {
		t.Errorf("loaded %d live of %d slots, want 7 of 7", loaded.bm25.Len(), len(loaded.bm25.slots))
	}

	// The store changes behind the saved file: a document goes, another
	// comes, a third keeps its id but not its text.
	st.DeleteDocument(ctx, noteB.id)
	putDoc(t, st, ix.emb, paperC)
	changed := paperA
	changed.texts = slices.Clone(paperA.texts)
	changed.texts[3] = "Results: unicorn sightings doubled."
	putDoc(t, st, ix.emb, changed)
	reconciled, err := NewIndexDir(st, ix.emb, dir)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := NewIndex(st, ix.emb)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, fresh, reconciled, append(queries, "unicorn", "halves folding times")...)

	// A corrupt or foreign file is rebuilt from the store.
	path := filepath.Join(dir, BM25File)
	b, _ := os.ReadFile(path)
	for _, bad := range [][]byte{b[:len(b)/2], append(slices.Clone(b[:len(b)-1]), b[len(b)-1]^1), []byte("hello")} {
		os.WriteFile(path, bad, 0o644)
		if _, err := LoadBM25(path); err == nil {
			t.Errorf("LoadBM25 accepted a corrupt file of %d bytes", len(bad))
		}
		ix2, err := NewIndexDir(st, ix.emb, dir)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, fresh, ix2, queries...)
	}
}

// FuzzLoadBM25 checks that no input makes the loader panic or accept a
// file whose checksum does not match.
func FuzzLoadBM25(f *testing.F) {
	x := NewBM25()
	x.Add("a:0", "graph neural networks")
	x.Add("b:0", "機械学習")
	f.Add(x.appendBinary(nil))
	f.Add([]byte(bm25Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := decodeBM25(data)
		if err == nil && crc32.Checksum(data[:len(data)-4], castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
			t.Fatalf("accepted a bad checksum")
		}
		if err == nil {
			x.Search("graph", 10, nil) // must not panic
		}
	})
}

func BenchmarkOpenBM25(b *testing.B) {
	const n = 100_000
	texts := synthText(n, 225)
	emb := constEmbedder{}
	st, err := store.Open("", store.Info{Embedder: emb.Name(), Dimension: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var puts []store.Put
	for d := 0; d*20 < n; d++ {
		id := fmt.Sprintf("doc%05d", d)
		p := store.Put{Document: store.Document{ID: id, Segments: 20}}
		for i := range 20 {
			p.Segments = append(p.Segments, store.Segment{ID: fmt.Sprintf("%s:%d", id, i), DocumentID: id, Index: i, Text: texts[d*20+i], Vector: []float32{1}})
		}
		puts = append(puts, p)
	}
	if err := st.PutDocuments(context.Background(), puts); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	ix, err := NewIndex(st, emb)
	if err != nil {
		b.Fatal(err)
	}
	if err := ix.Save(dir); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(dir, BM25File))
	b.Logf("%s: %.1f MB for %d segments", BM25File, float64(fi.Size())/1e6, n)
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewIndex(st, emb); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			ix, err := NewIndexDir(st, emb, dir)
			if err != nil || ix.bm25.Len() != n {
				b.Fatal(err)
			}
		}
	})
}
