package embedded

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/fifotest"
	"github.com/ibid-dev/ibid/store"
)

// damageLibrary writes n documents of 3 segments, one commit each, and
// closes the library (which saves its keyword index).
func damageLibrary(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	for d := range n {
		put(t, s, fmt.Sprintf("d%03d", d), 3, 1)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func sizes(t testing.TB, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, name := range []string{manifestName, logName(1), vectorName(1), keywordName, lockName} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil {
			out[name] = fi.Size()
		}
	}
	return out
}

// intactDocs returns the ids of the documents of s that are whole and
// intact (text and vectors as written), failing on any document that is
// present but not whole, and on any NaN returned.
func intactDocs(t testing.TB, s *Store) (intact, lostVectors []string) {
	t.Helper()
	ctx := context.Background()
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		_, want := makeDoc(d.ID, 3, testInfo.Dimension, 1)
		segs, err := s.Segments(ctx, d.ID, 0, -1)
		if err != nil || len(segs) != 3 {
			t.Fatalf("document %s: %d segments, %v", d.ID, len(segs), err)
		}
		for i := range segs {
			if segs[i].Text != want[i].Text {
				t.Fatalf("segment %s has text %q", segs[i].ID, segs[i].Text)
			}
		}
		vecs, err := s.Vectors(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		ok := true
		for i, v := range vecs {
			for _, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("document %s: NaN loaded", d.ID)
				}
			}
			ok = ok && close32(v, want[i].Vector)
		}
		if ok {
			intact = append(intact, d.ID)
		} else {
			lostVectors = append(lostVectors, d.ID)
			// A document whose vectors were lost is never a dense hit.
			hits, err := s.Dense(ctx, want[0].Vector, 1000, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if h.Segment.DocumentID == d.ID {
					t.Fatalf("document %s with damaged vectors returned by Dense", d.ID)
				}
			}
		}
	}
	return intact, lostVectors
}

// TestDamageMidLog flips a byte at 1% of a 300-document log: the damage is
// reported (file, offset, what to do), the library opens read-only with
// every other document, nothing is truncated, and Repair rebuilds it with
// the damaged files kept aside.
func TestDamageMidLog(t *testing.T) {
	t.Parallel()
	const n = 300
	dir := damageLibrary(t, n)
	logPath := filepath.Join(dir, logName(1))
	at := fileSize(t, logPath) / 100
	flipByte(t, logPath, at)
	before := sizes(t, dir)

	s := mustOpen(t, dir, testInfo)
	err := s.Damage()
	if err == nil {
		t.Fatal("a flipped byte in the middle of the log was not reported")
	}
	for _, want := range []string{logName(1), "ibid doctor --repair", "read-only"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("damage report %q does not say %q", err, want)
		}
	}
	var de *DamageError
	if !errors.As(err, &de) || len(de.Problems) != 1 || de.Problems[0].Offset > at || de.Problems[0].Offset+de.Problems[0].Length <= at {
		t.Fatalf("damage report %+v does not locate byte %d", de, at)
	}
	intact, lost := intactDocs(t, s)
	if len(intact) < n-1 || len(lost) != 0 {
		t.Fatalf("%d documents intact, %d with lost vectors; want at least %d and 0", len(intact), len(lost), n-1)
	}
	kept := len(intact)
	wantErr(t, s.Update(context.Background(), []store.Put{putOf("new", 1, 1)}, nil), store.ErrReadOnly)
	s.Close()
	if after := sizes(t, dir); !mapsEqual(before, after) {
		t.Fatalf("opening a damaged library changed its files: %v → %v", before, after)
	}

	rep, err := Check(dir)
	if err != nil || rep.OK() || rep.Documents != kept {
		t.Fatalf("Check = %+v, %v", rep, err)
	}
	rep, err = Repair(dir)
	if err != nil || rep.MovedTo == "" {
		t.Fatalf("Repair = %+v, %v", rep, err)
	}
	if got := fileSize(t, filepath.Join(rep.MovedTo, logName(1))); got != before[logName(1)] {
		t.Fatalf("the damaged log kept aside has %d bytes, want %d", got, before[logName(1)])
	}
	s = mustOpen(t, dir, testInfo)
	if err := s.Damage(); err != nil {
		t.Fatalf("after Repair: %v", err)
	}
	if intact, _ := intactDocs(t, s); len(intact) != kept {
		t.Fatalf("after Repair: %d documents, want %d", len(intact), kept)
	}
	put(t, s, "new", 2, 1)
	s.Close()
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	checkDoc(t, s, "new", 2, 1)
	if rep, err := Check(dir); err != nil || !rep.OK() || rep.Documents != kept+1 {
		t.Fatalf("Check after Repair and a write = %+v, %v", rep, err)
	}
}

// TestDamageAttacks damages each file of a library each way and checks what
// every case must keep: Open never panics, never truncates, never returns a
// half document or a NaN; damage a crash cannot explain (a log cut short
// included) is reported and makes the library read-only, with files left
// as they were; a cache (the keyword index), the lock file or the commit
// file is simply rebuilt. Then Repair makes every damaged library whole
// and writable, counting each document once: readable (its vectors, if
// lost, to be embedded again) or lost.
func TestDamageAttacks(t *testing.T) {
	t.Parallel()
	const n = 30
	base := damageLibrary(t, n)
	all := func() []string {
		var ids []string
		for d := range n {
			ids = append(ids, fmt.Sprintf("d%03d", d))
		}
		return ids
	}()
	type attack struct {
		name string
		do   func(t testing.TB, path string)
	}
	flipAt := func(frac float64) func(t testing.TB, path string) {
		return func(t testing.TB, path string) {
			if size := fileSize(t, path); size > 0 { // the lock file is empty
				flipByte(t, path, int64(float64(size)*frac))
			}
		}
	}
	attacks := []attack{
		{"truncate to 0", func(t testing.TB, p string) { os.Truncate(p, 0) }},
		{"truncate to half", func(t testing.TB, p string) { os.Truncate(p, fileSize(t, p)/2) }},
		{"truncate by one byte", func(t testing.TB, p string) {
			if size := fileSize(t, p); size > 0 {
				os.Truncate(p, size-1)
			}
		}},
		{"append garbage", func(t testing.TB, p string) { appendFile(t, p, []byte("\x07garbage\x00\xff after the end")) }},
		{"flip at 1%", flipAt(0.01)},
		{"flip at 10%", flipAt(0.10)},
		{"flip at 50%", flipAt(0.50)},
		{"delete", func(t testing.TB, p string) { os.Remove(p) }},
		{"replace with a FIFO", func(t testing.TB, p string) {
			os.Remove(p)
			fifotest.MakeOrSkip(t, p)
		}},
	}
	// Attacks that leave the library as it was: caches and evidence that
	// the next write rebuilds, and bytes after the ends.
	harmless := func(file, attack string) bool {
		switch file {
		case keywordName, lockName, markName(1):
			return true
		case manifestName:
			return attack == "append garbage" || attack == "truncate by one byte" // its last byte is a newline
		case logName(1), vectorName(1):
			return attack == "append garbage"
		}
		return false
	}
	files := []string{logName(1), vectorName(1), manifestName, markName(1), keywordName, lockName}
	for _, file := range files {
		for _, a := range attacks {
			t.Run(file+"/"+a.name, func(t *testing.T) {
				ctx := context.Background()
				dir := copyDir(t, base)
				a.do(t, filepath.Join(dir, file))
				before := sizes(t, dir)
				var s *Store
				var err error
				within(t, 20*time.Second, func() { s, err = OpenDir(ctx, dir, store.Options{Info: testInfo}) })
				if err != nil {
					// Only the manifest may make a library unreadable, and
					// the message says what to do.
					if file != manifestName {
						t.Fatalf("Open: %v", err)
					}
					var me *ManifestError
					if !errors.As(err, &me) && !errors.Is(err, store.ErrEmbedderMismatch) || errors.As(err, &me) && !strings.Contains(err.Error(), "ibid doctor --repair") {
						t.Fatalf("refused with %v", err)
					}
					if a.name == "delete" {
						_, err = OpenDir(ctx, dir, store.Options{Info: testInfo, Create: true})
						if !errors.As(err, &me) || !me.Missing || !strings.Contains(err.Error(), "ibid doctor --repair") {
							t.Fatalf("re-creating over a library without its manifest: %v", err)
						}
					}
					if after := sizes(t, dir); !mapsEqual(before, after) {
						t.Fatalf("a refused Open changed the files: %v → %v", before, after)
					}
					repairAttacked(t, dir, n, all)
					return
				}
				intact, lost := intactDocs(t, s)
				damage := s.Damage()
				if harmless(file, a.name) {
					if damage != nil || !slices.Equal(intact, all) {
						t.Fatalf("%d intact, damage %v; want all %d, none", len(intact), damage, n)
					}
					hits, err := s.Keyword(ctx, "segment 2 of d017", 1, store.Filter{})
					if err != nil || len(hits) != 1 || hits[0].Segment.ID != "d017:2" {
						t.Fatalf("keyword search after the attack: %v, %v", hits, err)
					}
					put(t, s, "new", 1, 1)
					if _, err := readMark(dir, 1); err != nil {
						t.Fatalf("the commit file after a write: %v", err)
					}
					s.Close()
					return
				}
				// Damage: reported, read-only, and only the documents it
				// touched are missing or without vectors.
				if damage == nil {
					t.Fatalf("not reported; %d intact, %d lost", len(intact), len(lost))
				}
				if !strings.Contains(damage.Error(), "ibid doctor --repair") {
					t.Fatalf("report does not say what to do: %v", damage)
				}
				wantErr(t, s.Update(ctx, []store.Put{putOf("new", 1, 1)}, nil), store.ErrReadOnly)
				if strings.HasPrefix(a.name, "flip") && len(intact) < n-1 {
					t.Fatalf("one flipped byte cost %d documents (lost vectors: %v)", n-len(intact), lost)
				}
				if file == logName(1) && (len(lost) != 0 || !slices.Equal(intact, all[:len(intact)]) && !strings.HasPrefix(a.name, "flip")) {
					t.Fatalf("a log cut short: intact %v, lost vectors %v; want a prefix", intact, lost)
				}
				if file == vectorName(1) && len(intact)+len(lost) != n {
					t.Fatalf("vector damage lost documents' texts: %d intact, %d lost vectors", len(intact), len(lost))
				}
				s.Close()
				if after := sizes(t, dir); !mapsEqual(before, after) {
					t.Fatalf("a damaged library's files changed: %v → %v", before, after)
				}
				rep := repairAttacked(t, dir, n, all)
				if file == vectorName(1) && (rep.Documents != n || len(rep.Unembedded) != len(lost)) {
					t.Fatalf("after Repair %d documents, %d to embed again; want %d and %d", rep.Documents, len(rep.Unembedded), n, len(lost))
				}
				if file == logName(1) && rep.Documents != len(intact) {
					t.Fatalf("after Repair %d documents, want the %d readable", rep.Documents, len(intact))
				}
			})
		}
	}
}

// repairAttacked checks a damaged library (of the n documents all, damaged
// by TestDamageAttacks) as doctor sees it, repairs it, checks the result
// holds every document the report promised, embeds again what is to be
// embedded, and returns the repair's report.
func repairAttacked(t *testing.T, dir string, n int, all []string) Report {
	t.Helper()
	ctx := context.Background()
	chk, err := Check(dir)
	if err != nil || chk.OK() {
		t.Fatalf("Check = %+v, %v; want the damage", chk, err)
	}
	rep, err := Repair(dir)
	if err != nil || rep.MovedTo == "" {
		t.Fatalf("Repair = %+v, %v", rep, err)
	}
	// Every document counted once: readable or lost.
	if rep.Documents+rep.LostDocuments != n || chk.Documents != rep.Documents || chk.LostDocuments != rep.LostDocuments {
		t.Fatalf("Check says %d readable, %d lost; Repair %d readable, %d lost; want them equal, summing to %d",
			chk.Documents, chk.LostDocuments, rep.Documents, rep.LostDocuments, n)
	}
	s := mustOpen(t, dir, testInfo)
	defer s.Close()
	if err := s.Damage(); err != nil {
		t.Fatalf("after Repair: %v", err)
	}
	intact, lost := intactDocs(t, s)
	if len(intact)+len(lost) != rep.Documents || len(lost) != len(rep.Unembedded) {
		t.Fatalf("after Repair %d intact, %d without vectors; report says %d documents, %d to embed again", len(intact), len(lost), rep.Documents, len(rep.Unembedded))
	}
	ids, err := s.Unembedded(ctx)
	if err != nil || !slices.Equal(ids, lost) {
		t.Fatalf("Unembedded = %v, %v; want %v", ids, err, lost)
	}
	// What Reembed does: put them again, with vectors.
	for _, id := range ids {
		put(t, s, id, 3, 1)
	}
	if intact, lost = intactDocs(t, s); len(intact) != rep.Documents || len(lost) != 0 {
		t.Fatalf("after embedding again: %d intact, %d without vectors", len(intact), len(lost))
	}
	for _, id := range intact {
		if !slices.Contains(all, id) {
			t.Fatalf("document %s came from nowhere", id)
		}
	}
	put(t, s, "new", 1, 1)
	if rep, err := Check(dir); err != nil || !rep.OK() {
		t.Fatalf("Check after Repair = %+v, %v", rep, err)
	}
	return rep
}

// within fails t unless fn returns within d: a hang is what it looks for.
func within(t testing.TB, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestOverlappingRows: a log whose records (checksums intact) claim
// overlapping vector rows, as only a bug or a forged file could, is
// reported as damage without a panic, on open and when caught up with.
func TestOverlappingRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	put(t, s, "a", 3, 1)
	reader := mustOpen(t, dir, testInfo)
	defer reader.Close()
	s.Close()
	b := putOf("b", 3, 1)
	vecs := make([]float32, 0, 3*testInfo.Dimension)
	for _, sg := range b.Segments {
		vecs = append(vecs, sg.Vector...)
	}
	zero := make([]bool, 3)
	payload := binary.AppendUvarint(nil, 1)
	payload, err := appendPut(payload, &b.Document, b.Segments, zero, 1, vecSum(vecs), false) // rows 1..3: a's are 0..2
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(dir, vectorName(1)), floatBytes(vecs))
	appendFile(t, filepath.Join(dir, logName(1)), frame(payload))

	if _, err := reader.Documents(ctx); err != nil { // catches up
		t.Fatal(err)
	}
	if reader.Damage() == nil {
		t.Fatal("overlapping rows not reported when caught up with")
	}
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	if s.Damage() == nil {
		t.Fatal("overlapping rows not reported on open")
	}
	intactDocs(t, s)
	wantErr(t, s.Update(ctx, []store.Put{putOf("c", 1, 1)}, nil), store.ErrReadOnly)
}

// TestDamageInBatch: a byte flipped inside one document of a batch (one
// commit record of many documents) costs that document only: the others
// are read from their own checksums. A flip in the record's header costs
// nothing.
func TestDamageInBatch(t *testing.T) {
	t.Parallel()
	const n = 100
	base := t.TempDir()
	s := mustOpen(t, base, testInfo)
	var puts []store.Put
	for d := range n {
		puts = append(puts, putOf(fmt.Sprintf("d%03d", d), 3, 1))
	}
	if err := s.Update(context.Background(), puts, nil); err != nil {
		t.Fatal(err)
	}
	put(t, s, "after", 3, 1) // an intact record after the batch
	s.Close()
	logPath := filepath.Join(base, logName(1))
	b, _ := os.ReadFile(logPath)
	first, _ := parseHeader(b, 2) // the info record, then the batch
	batch := int64(recordHeader) + int64(first.n)
	h, _ := parseHeader(b[batch:], 2)
	batchEnd := batch + int64(recordHeader) + int64(h.n)
	for _, c := range []struct {
		name string
		at   int64
		want int
	}{
		{"header", batch + 9, n + 1},
		{"middle of a document", (batch + batchEnd) / 2, n},
		{"last document", batchEnd - 3, n},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, base)
			flipByte(t, filepath.Join(dir, logName(1)), c.at)
			s := mustOpen(t, dir, testInfo)
			defer s.Close()
			if s.Damage() == nil {
				t.Fatal("not reported")
			}
			intact, lost := intactDocs(t, s)
			if len(intact) != c.want || len(lost) != 0 {
				t.Fatalf("%d documents intact (lost vectors %v), want %d; %v", len(intact), lost, c.want, s.Damage())
			}
		})
	}
}
