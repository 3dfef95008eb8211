package keyword

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/synthtext"
	"github.com/ibid-dev/ibid/store/internal/wire"
)

// sameResults fails unless a and b give the same results for queries.
func sameResults(t *testing.T, a, b *BM25, queries ...string) {
	t.Helper()
	for _, q := range queries {
		x := a.Search(q, 100, nil)
		y := b.Search(q, 100, nil)
		if len(x) != len(y) {
			t.Fatalf("%q: %v vs %v", q, x, y)
		}
		for i := range x {
			if x[i].ID != y[i].ID || x[i].Score-y[i].Score > 1e-12 || y[i].Score-x[i].Score > 1e-12 {
				t.Fatalf("%q: %v vs %v", q, x, y)
			}
		}
	}
}

var persistTexts = map[string]string{
	"a:0": "Random effects across hospitals",
	"a:1": "Protein folding halves folding times",
	"a:2": "Patients were randomised",
	"b:0": "機械学習による翻訳",
	"b:1": "plain words and more words",
	"c:0": "graph neural networks for molecules",
	"c:1": "patients and hospitals",
}

func idsTexts(m map[string]string) (ids, texts []string) {
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		texts = append(texts, m[id])
	}
	return ids, texts
}

func TestSaveLoadReconcile(t *testing.T) {
	queries := []string{"random effects hospitals", "folding", "patients", "機械学習", "plain words", "unicorn"}
	ids, texts := idsTexts(persistTexts)
	x := Build(ids, texts)
	x.Remove("c:1") // the saved file must skip dead slots
	path := filepath.Join(t.TempDir(), "bm25.idx")
	if err := x.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, x, loaded, queries...)
	if loaded.Len() != 6 || len(loaded.slots) != 6 {
		t.Errorf("loaded %d live of %d slots, want 6 of 6", loaded.Len(), len(loaded.slots))
	}

	// The texts change behind the saved file: one goes, one comes back,
	// one keeps its id but not its text.
	now := map[string]string{}
	for k, v := range persistTexts {
		now[k] = v
	}
	delete(now, "b:1")
	now["a:2"] = "Results: unicorn sightings doubled."
	ids, texts = idsTexts(now)
	if !loaded.Reconcile(ids, texts) {
		t.Fatal("Reconcile gave up on a small change")
	}
	sameResults(t, Build(ids, texts), loaded, queries...)

	// A loaded index keeps its saved postings packed and the added ones
	// apart; saved again and loaded, it is the same index; compacted
	// (every posting decoded), too.
	if len(loaded.packed) == 0 {
		t.Fatal("a loaded index decoded its postings")
	}
	again := filepath.Join(t.TempDir(), "again.idx")
	if err := loaded.Save(again); err != nil {
		t.Fatal(err)
	}
	reloaded, err := Load(again)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, Build(ids, texts), reloaded, queries...)
	df, n := reloaded.DocFreq([]string{"unicorn", "patient", "nothing"})
	wdf, wn := Build(ids, texts).DocFreq([]string{"unicorn", "patient", "nothing"})
	if !slices.Equal(df, wdf) || n != wn {
		t.Errorf("DocFreq %v of %d, built %v of %d", df, n, wdf, wn)
	}
	reloaded.compact()
	if reloaded.packed != nil {
		t.Error("compact left postings packed")
	}
	sameResults(t, Build(ids, texts), reloaded, queries...)

	// A corrupt or foreign file is refused.
	b, _ := os.ReadFile(path)
	for _, bad := range [][]byte{b[:len(b)/2], append(slices.Clone(b[:len(b)-1]), b[len(b)-1]^1), []byte("hello"), nil} {
		os.WriteFile(path, bad, 0o644)
		if _, err := Load(path); err == nil {
			t.Errorf("Load accepted a corrupt file of %d bytes", len(bad))
		}
	}
}

// A loaded index whose segments are those the store lists, in its order,
// with the same texts, is in step without a lookup by id (no map is made
// at open); a change after that still finds its slot.
func TestReconcileInStep(t *testing.T) {
	ids, texts := idsTexts(persistTexts)
	path := filepath.Join(t.TempDir(), "bm25.idx")
	if err := Build(ids, texts).Save(path); err != nil {
		t.Fatal(err)
	}
	x, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !x.Reconcile(ids, texts) {
		t.Fatal("Reconcile gave up")
	}
	if x.bySeg != nil {
		t.Error("an index in step made its map of ids")
	}
	x.Remove("a:1")
	x.Add("a:2", "unicorn sightings")
	now := maps.Clone(persistTexts)
	delete(now, "a:1")
	now["a:2"] = "unicorn sightings"
	ids2, texts2 := idsTexts(now)
	sameResults(t, Build(ids2, texts2), x, "folding", "unicorn", "patients")

	// Same ids, one text changed: not in step, and reconciled.
	y, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	texts[0] = "unicorn sightings"
	if !y.Reconcile(ids, texts) {
		t.Fatal("Reconcile gave up")
	}
	sameResults(t, Build(ids, texts), y, "random effects", "unicorn")
}

// FuzzLoad checks that no input makes the loader panic or accept a file
// whose checksum does not match.
func FuzzLoad(f *testing.F) {
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

func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		texts := synthtext.Segments(n, 225) // ~300 tiktoken tokens, the chunker's budget
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("doc%05d:%d", i/20, i%20)
		}
		b.Run(fmt.Sprintf("segments=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Build(ids, texts)
			}
		})
	}
}

// BenchmarkLoad compares building the index from 100,000 texts with
// loading the saved one and reconciling it with the same texts.
func BenchmarkLoad(b *testing.B) {
	const n = 100_000
	texts := synthtext.Segments(n, 225)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("doc%05d:%d", i/20, i%20)
	}
	path := filepath.Join(b.TempDir(), "bm25.idx")
	if err := Build(ids, texts).Save(path); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.Logf("%.1f MB for %d segments", float64(fi.Size())/1e6, n)
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			Build(ids, texts)
		}
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			x, err := Load(path)
			if err != nil || !x.Reconcile(ids, texts) || x.Len() != n {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSearchLoaded compares a search of an index as built (postings
// decoded) with the same index saved and loaded (postings packed), on
// 50,000 synthetic segments.
func BenchmarkSearchLoaded(b *testing.B) {
	texts := synthtext.Segments(50_000, 180)
	ids := make([]string, len(texts))
	for i := range ids {
		ids[i] = "d:" + strconv.Itoa(i)
	}
	built := Build(ids, texts)
	path := filepath.Join(b.TempDir(), "bm25.idx")
	if err := built.Save(path); err != nil {
		b.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		b.Fatal(err)
	}
	var queries []string
	for i := range 16 {
		w := strings.Fields(texts[i*97])
		queries = append(queries, strings.Join(w[:4], " "))
	}
	for _, c := range []struct {
		name string
		x    *BM25
	}{{"built", built}, {"loaded", loaded}} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				c.x.Search(queries[i%len(queries)], 10, nil)
				i++
			}
		})
	}
}

// TestLoadUnchecked: an index loaded without its checksum answers as one
// loaded with it, and says it is intact; with any byte flipped it either
// does not decode or says it is not intact, and its searches never fail.
func TestLoadUnchecked(t *testing.T) {
	queries := []string{"random effects hospitals", "folding", "patients", "機械学習", "plain words", "unicorn"}
	ids, texts := idsTexts(persistTexts)
	x := Build(ids, texts)
	path := filepath.Join(t.TempDir(), "bm25.idx")
	if err := x.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, intact, err := LoadUnchecked(path)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, x, loaded, queries...)
	if !intact() {
		t.Fatal("an intact file fails its checksum")
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for at := range good {
		b := slices.Clone(good)
		b[at] ^= 0x41
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		y, intact, err := LoadUnchecked(path)
		if err != nil {
			continue
		}
		if intact() {
			t.Fatalf("byte %d flipped: the file says it is intact", at)
		}
		for _, q := range queries {
			y.Search(q, 100, nil)
		}
	}
}

// TestLoadFormat1: an index saved before the postings' lengths were
// written (format 1) loads and answers as the index it was saved from.
func TestLoadFormat1(t *testing.T) {
	queries := []string{"random effects hospitals", "folding", "patients", "機械学習", "plain words", "unicorn"}
	ids, texts := idsTexts(persistTexts)
	x := Build(ids, texts)
	v1 := toFormat1(t, x.appendBinary(nil))
	path := filepath.Join(t.TempDir(), "bm25.idx")
	if err := os.WriteFile(path, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, x, loaded, queries...)
	if !loaded.OldFormat() {
		t.Fatal("a format 1 index does not say so")
	}
	if x, _ := Load(writeIndex(t, x)); x.OldFormat() {
		t.Fatal("a format 2 index says it is old")
	}
}

// writeIndex saves x in a temporary folder and returns the file's path.
func writeIndex(t *testing.T, x *BM25) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bm25.idx")
	if err := x.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// toFormat1 rewrites a saved index of format 2 as format 1: without the
// postings' lengths.
func toFormat1(t *testing.T, b []byte) []byte {
	t.Helper()
	d := wire.Decoder{B: b[len(bm25Magic) : len(b)-4]}
	out := []byte(bm25MagicV1)
	n := d.Count()
	out = binary.AppendUvarint(out, uint64(n))
	for range n {
		out = wire.AppendBytes(out, d.Bytes())
		out = binary.AppendUvarint(out, d.Uvarint())
		out = binary.LittleEndian.AppendUint32(out, d.Uint32())
	}
	terms := d.Count()
	out = binary.AppendUvarint(out, uint64(terms))
	for range terms {
		out = wire.AppendBytes(out, d.Bytes())
		out = binary.AppendUvarint(out, uint64(d.Count()))
		k := d.Count()
		out = append(out, d.B[:k]...)
		d.B = d.B[k:]
	}
	if d.Err() != nil || len(d.B) != 0 {
		t.Fatal("not a format 2 index")
	}
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}
