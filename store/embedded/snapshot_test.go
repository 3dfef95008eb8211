package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/store"
)

// envSnapshots makes a test binary (a child process of a test) keep and
// use a snapshot whatever its library's size.
const envSnapshots = "IBID_EMBEDDED_SNAPSHOTS"

// snapshotsChild reads envSnapshots in a child process.
func snapshotsChild() {
	if os.Getenv(envSnapshots) == "1" {
		snapshotMin = 0
	}
}

// withSnapshots makes every library of the test keep and use a snapshot
// whatever its size.
func withSnapshots(t *testing.T) {
	old := snapshotMin
	snapshotMin = 0
	t.Cleanup(func() { snapshotMin = old })
}

// snapLibrary builds a library whose last close wrote its snapshot: a
// document with boxes, documents with index rows and parents, one
// replaced, one deleted, and one whose vectors were all zeros. It returns
// the folder and the documents it holds (id → segments, version).
func snapLibrary(t *testing.T) (string, map[string][2]int) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	for i := range 6 {
		put(t, s, "d"+strconv.Itoa(i), 3+i, 1)
	}
	put(t, s, "d2", 7, 2)
	if err := s.Update(ctx, nil, []string{"d4"}); err != nil {
		t.Fatal(err)
	}
	doc, segs := makeDoc("boxed", 3, testInfo.Dimension, 1)
	for i := range segs {
		segs[i].Boxes = []store.Box{{Page: i + 1, X0: 1, Y0: 2, X1: 3.5, Y1: float32(4 + i)}, {Page: i + 2, X0: 0, Y0: 0, X1: 1, Y1: 1}}
	}
	zdoc, zsegs := makeDoc("zero", 2, testInfo.Dimension, 1)
	for i := range zsegs {
		zsegs[i].Vector = make([]float32, testInfo.Dimension)
	}
	if err := s.Update(ctx, []store.Put{{Document: doc, Segments: segs}, {Document: zdoc, Segments: zsegs}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, snapshotName(1))); err != nil {
		t.Fatalf("no snapshot after close: %v", err)
	}
	want := map[string][2]int{"d0": {3, 1}, "d1": {4, 1}, "d2": {7, 2}, "d3": {6, 1}, "d5": {8, 1}}
	return dir, want
}

// checkDocs checks that s holds each document of want whole (and, as
// snapLibrary builds it, boxed and zero).
func checkDocs(t *testing.T, s *Store, want map[string][2]int) {
	t.Helper()
	for id, w := range want {
		checkDoc(t, s, id, w[0], w[1])
	}
	for _, id := range []string{"boxed", "zero"} {
		if _, err := s.Document(context.Background(), id); err != nil {
			t.Fatalf("document %s: %v", id, err)
		}
	}
}

// viewOf is everything a reader can learn from s: each document with its
// segments (texts, sections, pages, parents, boxes) and vectors, and the
// answers of dense and keyword queries.
func viewOf(t *testing.T, s *Store) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out["documents"] = docs
	for _, d := range docs {
		segs, err := s.Segments(ctx, d.ID, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		vecs, err := s.Vectors(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		out["segments "+d.ID], out["vectors "+d.ID] = segs, vecs
	}
	for i, q := range []string{"segment", "version 2", "generated context", "ünïcode d3"} {
		hits, err := s.Keyword(ctx, q, 20, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		out["keyword "+q] = hits
		hits, err = s.Dense(ctx, vec("d"+strconv.Itoa(i)+"/1", 1, testInfo.Dimension), 20, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		out["dense "+q] = hits
	}
	n, err := s.Len(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out["len"] = n
	return out
}

// replayed is the view of the library in dir read from its log alone (a
// copy without its snapshot, opened read-only).
func replayed(t *testing.T, dir string) map[string]any {
	t.Helper()
	c := copyDir(t, dir)
	os.Remove(filepath.Join(c, snapshotName(readManifestFile(t, c).Generation)))
	s, err := OpenDir(context.Background(), c, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if snapshotUsed(s) != 0 {
		t.Fatal("a library without a snapshot was read from one")
	}
	return viewOf(t, s)
}

// snapshotUsed reports how far into the log the snapshot s's open read
// reaches (0: it replayed the whole log).
// holdChecks holds the background passes of the stores opened from now
// until release is called back: a pass that finds damage loads the
// library again, and the view it checked, snapshot and all, is gone.
func holdChecks() (release func()) {
	gate := make(chan struct{})
	checkGate.Store(&gate)
	return func() {
		checkGate.Store(nil)
		close(gate)
	}
}

func snapshotUsed(s *Store) int64 {
	s.wsem <- struct{}{}
	defer s.unlock()
	if s.check == nil || s.check.log == nil {
		return 0
	}
	return s.check.log.end
}

// snapshotSound reports whether dir's snapshot is one an open would use,
// and how far into the log it reaches.
func snapshotSound(t *testing.T, dir string) (int64, bool) {
	t.Helper()
	m := readManifestFile(t, dir)
	d := &disk{dir: dir, man: m}
	lf, err := os.Open(filepath.Join(dir, logName(m.Generation)))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	st, _ := lf.Stat()
	sn := d.readSnapshot(lf, st.Size())
	if sn == nil {
		return 0, false
	}
	if _, err := walkLog(lf, sn.mark.end, true); err != nil {
		t.Fatalf("a snapshot that opens vouches for a log that does not check: %v", err)
	}
	return sn.mark.end, true
}

// TestSnapshotOpen: a library whose snapshot reaches the end of its log
// opens from it (replaying nothing), and one whose snapshot reaches only
// part of the log replays the rest; either reads exactly as the log read
// whole does, takes writes, and its background pass finds the log sound.
func TestSnapshotOpen(t *testing.T) {
	withSnapshots(t)
	ctx := context.Background()
	dir, want := snapLibrary(t)
	whole := replayed(t, dir)

	s := mustOpen(t, dir, testInfo)
	if end := snapshotUsed(s); end != fileSize(t, filepath.Join(dir, logName(1))) {
		t.Fatalf("the open read the snapshot up to byte %d of the log, want all %d", end, fileSize(t, filepath.Join(dir, logName(1))))
	}
	if got := viewOf(t, s); !reflect.DeepEqual(got, whole) {
		t.Fatalf("read from the snapshot:\n%v\nfrom the log:\n%v", got, whole)
	}
	checkDocs(t, s, want)
	settled(t, s)
	if err := s.Damage(); err != nil {
		t.Fatal(err)
	}

	// A snapshot of an earlier state: the open replays what follows it.
	old, err := os.ReadFile(filepath.Join(dir, snapshotName(1)))
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "d1", 5, 3)
	put(t, s, "late", 2, 1)
	if err := s.Update(ctx, nil, []string{"d0"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.WriteFile(filepath.Join(dir, snapshotName(1)), old, 0o644); err != nil {
		t.Fatal(err)
	}
	delete(want, "d0")
	want["d1"], want["late"] = [2]int{5, 3}, [2]int{2, 1}
	whole = replayed(t, dir)
	s = mustOpen(t, dir, testInfo)
	if end := snapshotUsed(s); end == 0 || end >= fileSize(t, filepath.Join(dir, logName(1))) {
		t.Fatalf("the open read the snapshot up to byte %d, want part of the log", end)
	}
	if got := viewOf(t, s); !reflect.DeepEqual(got, whole) {
		t.Fatalf("read from the snapshot and the log's tail:\n%v\nfrom the log:\n%v", got, whole)
	}
	checkDocs(t, s, want)
	settled(t, s)
	if err := s.Damage(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Close wrote the snapshot again: it reaches the log's end.
	if end, ok := snapshotSound(t, dir); !ok || end != fileSize(t, filepath.Join(dir, logName(1))) {
		t.Fatalf("after close the snapshot reaches byte %d (usable %v), want the log's end", end, ok)
	}

	// A compaction writes the new generation's snapshot; the old one goes.
	s = mustOpen(t, dir, testInfo)
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, snapshotName(1))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("generation 1's snapshot outlived its generation: %v", err)
	}
	if end, ok := snapshotSound(t, dir); !ok || end != fileSize(t, filepath.Join(dir, logName(2))) {
		t.Fatalf("after a compaction the snapshot reaches byte %d (usable %v), want the log's end", end, ok)
	}
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	if snapshotUsed(s) == 0 {
		t.Fatal("the compacted library did not open from its snapshot")
	}
	checkDocs(t, s, want)
}

// TestSnapshotSmallLibrary: a library whose log is shorter than
// snapshotMin neither writes nor reads a snapshot.
func TestSnapshotSmallLibrary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	put(t, s, "a", 4, 1)
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, snapshotName(1))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a small library wrote a snapshot: %v", err)
	}
}

// TestSnapshotDamage: a snapshot that is missing, cut, flipped, of another
// generation or library, or that no longer fits its log is never used: the
// library reads exactly as its log says, is not reported damaged for it
// (the snapshot is a cache), and a writable open or close writes a sound
// one again.
func TestSnapshotDamage(t *testing.T) {
	withSnapshots(t)
	base, want := snapLibrary(t)
	whole := replayed(t, base)
	snap, err := os.ReadFile(filepath.Join(base, snapshotName(1)))
	if err != nil {
		t.Fatal(err)
	}

	// Another library of the same generation, facts and log length.
	otherDir := t.TempDir()
	o := mustOpen(t, otherDir, testInfo)
	for i := range 6 {
		put(t, o, "e"+strconv.Itoa(i), 3+i, 1)
	}
	o.Close()
	other, err := os.ReadFile(filepath.Join(otherDir, snapshotName(1)))
	if err != nil {
		t.Fatal(err)
	}

	type attack struct {
		name string
		do   func(t *testing.T, dir string)
	}
	write := func(b []byte) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, snapshotName(1)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	attacks := []attack{
		{"missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, snapshotName(1))) }},
		{"empty", write(nil)},
		{"another library's", write(other)},
		{"a folder", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, snapshotName(1)))
			os.Mkdir(filepath.Join(dir, snapshotName(1)), 0o755)
		}},
		{"another generation's", func(t *testing.T, dir string) {
			// Compacted to generation 2, whose snapshot is replaced by
			// generation 1's.
			s := mustOpen(t, dir, testInfo)
			if err := s.Compact(context.Background()); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if err := os.WriteFile(filepath.Join(dir, snapshotName(2)), snap, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, cut := range []int{1, len(snapshotMagic), len(snap) / 2, len(snap) - snapshotTrailer, len(snap) - 1} {
		attacks = append(attacks, attack{"cut to " + strconv.Itoa(cut), write(snap[:cut])})
	}
	for at := 0; at < len(snap); at += 1 + at/5 {
		b := slices.Clone(snap)
		b[at] ^= 0x10
		attacks = append(attacks, attack{"byte " + strconv.Itoa(at) + " flipped", write(b)})
	}
	attacks = append(attacks, attack{"a byte appended", write(append(slices.Clone(snap), 0))})

	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			dir := copyDir(t, base)
			a.do(t, dir)
			s, err := OpenDir(context.Background(), dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			settled(t, s)
			if err := s.Damage(); err != nil {
				t.Fatalf("reported as damage: %v", err)
			}
			if got := viewOf(t, s); !reflect.DeepEqual(got, whole) {
				t.Fatalf("read:\n%v\nthe log says:\n%v", got, whole)
			}
			checkDocs(t, s, want)
			s.Close()
			logLen := fileSize(t, filepath.Join(dir, logName(readManifestFile(t, dir).Generation)))
			if end, ok := snapshotSound(t, dir); !ok || end != logLen {
				t.Fatalf("the snapshot was not written again (reaches %d of %d, usable %v)", end, logLen, ok)
			}
		})
	}
}

// TestSnapshotLogDamage: damage to the log that its snapshot would hide
// is found all the same. A log cut short is found at open (the snapshot
// reaches past its end); a record in the part the snapshot stands for that
// fails its checksum, or a log whose records are not those the snapshot
// was written from, is found by the background pass, which loads the
// library again from the log alone: damage is then reported as without a
// snapshot, and a write waits for the pass and is refused.
func TestSnapshotLogDamage(t *testing.T) {
	withSnapshots(t)
	ctx := context.Background()
	base, want := snapLibrary(t)
	logPath := func(dir string) string { return filepath.Join(dir, logName(1)) }

	for _, kind := range []string{"cut by its last byte", "cut at its last commit"} {
		t.Run(kind, func(t *testing.T) {
			dir := copyDir(t, base)
			size := fileSize(t, logPath(dir))
			if kind == "cut by its last byte" {
				size--
			} else {
				ends := recordEnds(t, logPath(dir))
				size = ends[len(ends)-2]
			}
			if err := os.Truncate(logPath(dir), size); err != nil {
				t.Fatal(err)
			}
			s := mustOpen(t, dir, testInfo)
			defer s.Close()
			var de *DamageError
			if err := s.Damage(); !errors.As(err, &de) {
				t.Fatalf("a log cut short under its snapshot: damage = %v", err)
			}
			if snapshotUsed(s) != 0 {
				t.Fatal("the snapshot was used for a log shorter than it")
			}
		})
	}

	t.Run("a record flipped", func(t *testing.T) {
		dir := copyDir(t, base)
		ends := recordEnds(t, logPath(dir))
		flipByte(t, logPath(dir), ends[2]+40) // inside the fourth record, which intact ones follow
		// The log read whole reports it.
		c := copyDir(t, dir)
		os.Remove(filepath.Join(c, snapshotName(1)))
		r := mustOpen(t, c, testInfo)
		wantErr := r.Damage()
		r.Close()
		if wantErr == nil {
			t.Fatal("the flipped record is not damage without a snapshot either")
		}

		release := holdChecks()
		s := mustOpen(t, dir, testInfo)
		used := snapshotUsed(s)
		release()
		defer s.Close()
		if used == 0 {
			t.Fatal("the snapshot was not used")
		}
		err := s.Update(ctx, []store.Put{putOf("new", 2, 1)}, nil)
		if !errors.Is(err, store.ErrReadOnly) {
			t.Fatalf("a write after the open: %v, want it refused once the pass finds the damage", err)
		}
		settled(t, s)
		if err := s.Damage(); err == nil || strings.ReplaceAll(err.Error(), dir, c) != wantErr.Error() {
			t.Fatalf("damage = %v\nwant %v", err, wantErr)
		}
		if _, err := s.Document(ctx, "new"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the refused write's document: %v", err)
		}
	})

	t.Run("the snapshot of other records", func(t *testing.T) {
		// A snapshot whose digest names other records than the log holds
		// (its end and last header match): the pass finds it out, the
		// library is read from its log alone, and it is not damage.
		dir := copyDir(t, base)
		whole := replayed(t, dir)
		s := mustOpen(t, dir, testInfo)
		settled(t, s)
		s.wsem <- struct{}{}
		entries := make([]*entry, 0, len(s.docs))
		for _, e := range s.docs {
			entries = append(entries, e)
		}
		slices.SortFunc(entries, func(a, b *entry) int { return a.row - b.row })
		// A view that differs from the log: one document dropped.
		entries = slices.DeleteFunc(entries, func(e *entry) bool { return e.doc.ID == "d3" })
		lm, err := walkLog(s.lf, s.disk.logEnd, false)
		if err != nil {
			s.unlock()
			t.Fatal(err)
		}
		lm.digest++
		err = s.disk.replaceFile(snapshotName(1), func(w io.Writer) error { return s.disk.encodeSnapshot(w, entries, lm) })
		s.unlock()
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		release := holdChecks()
		s = mustOpen(t, dir, testInfo)
		used := snapshotUsed(s)
		release()
		defer s.Close()
		if used == 0 {
			t.Fatal("the snapshot was not used")
		}
		settled(t, s)
		if err := s.Damage(); err != nil {
			t.Fatal(err)
		}
		if got := viewOf(t, s); !reflect.DeepEqual(got, whole) {
			t.Fatalf("after the pass:\n%v\nthe log says:\n%v", got, whole)
		}
		checkDocs(t, s, want)
	})
}

const envSnapshotChild = "IBID_EMBEDDED_SNAPSHOT_CHILD"

// snapshotChild is the writer TestKillWhileWritingSnapshots kills: over
// and over it opens the library, replaces document "r" and adds document
// "n<i>", compacts every third time, and closes it (each close and
// compaction writing the snapshot when it is due), printing each op it
// finished.
func snapshotChild() {
	dir := os.Getenv(envSnapshotChild)
	if dir == "" {
		return
	}
	snapshotMin = 0
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for i := 0; time.Now().Before(deadline); i++ {
		s, err := OpenDir(ctx, dir, store.Options{Info: testInfo, Create: true})
		if err == nil {
			err = s.Update(ctx, []store.Put{putOf("r", 20, i), putOf("n"+strconv.Itoa(i), 3, 1)}, nil)
			if err == nil && i%3 == 2 {
				err = s.Compact(ctx)
			}
			if cerr := s.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("done", i)
	}
	os.Exit(0)
}

// TestKillWhileWritingSnapshots kills a writer at random moments while it
// writes, compacts and closes (writing snapshots): the library then opens
// undamaged with exactly the commits, reads as its log alone says, and its
// next close leaves a snapshot an open can use.
func TestKillWhileWritingSnapshots(t *testing.T) {
	withSnapshots(t)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	for round := range 4 {
		dir := t.TempDir()
		cmd, sc := startChild(t, envSnapshotChild+"="+dir)
		last := killAfterDone(t, cmd, sc, 2+r.IntN(12), time.Duration(r.IntN(8000))*time.Microsecond)

		whole := replayed(t, dir)
		s := mustOpen(t, dir, testInfo)
		settled(t, s)
		if err := s.Damage(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got := viewOf(t, s); !reflect.DeepEqual(got, whole) {
			t.Fatalf("round %d: read:\n%v\nthe log says:\n%v", round, got, whole)
		}
		checkOpsAfterKill(t, s, round, last)
		put(t, s, "after", 1, 1)
		s.Close()
		if _, ok := snapshotSound(t, dir); !ok {
			t.Fatalf("round %d: no usable snapshot after a close", round)
		}
		whole = replayed(t, dir)
		s = mustOpen(t, dir, testInfo)
		if snapshotUsed(s) == 0 {
			t.Fatalf("round %d: the open did not use the snapshot", round)
		}
		if got := viewOf(t, s); !reflect.DeepEqual(got, whole) {
			t.Fatalf("round %d: read:\n%v\nthe log says:\n%v", round, got, whole)
		}
		s.Close()
	}
}

// TestSnapshotChunks: a snapshot of many documents (several chunks,
// decoded on all cores) reads as the log does.
func TestSnapshotChunks(t *testing.T) {
	withSnapshots(t)
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	var puts []store.Put
	for i := range 2*snapChunkEntries + 7 {
		puts = append(puts, putOf("c"+strconv.Itoa(i), 1+i%3, 1))
	}
	if err := s.Update(context.Background(), puts, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	whole := replayed(t, dir)
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	if snapshotUsed(s) == 0 {
		t.Fatal("the open did not use the snapshot")
	}
	if got := viewOf(t, s); !reflect.DeepEqual(got, whole) {
		t.Fatalf("read:\n%v\nthe log says:\n%v", got, whole)
	}
}

// TestKeywordCheckedAfterOpen: a saved keyword index large enough to be
// checked after the open is used at once; with a byte of its postings
// flipped the background pass finds it, the library is loaded again and
// its index built afresh: keyword search answers as the intact library's,
// and the library is not reported damaged (the index is a cache).
func TestKeywordCheckedAfterOpen(t *testing.T) {
	defer func(v int64) { keywordCheckLater = v }(keywordCheckLater)
	keywordCheckLater = 0
	withSnapshots(t)
	base, _ := snapLibrary(t)
	whole := replayed(t, base)
	for _, flip := range []bool{false, true} {
		dir := copyDir(t, base)
		path := filepath.Join(dir, keywordName)
		if flip {
			flipByte(t, path, fileSize(t, path)-6) // the last term's postings
		}
		release := holdChecks() // a pass done before the look would leave nothing to see
		s := mustOpen(t, dir, testInfo)
		s.wsem <- struct{}{}
		later := s.check != nil && s.check.kwIntact != nil
		s.unlock()
		release()
		if !later {
			t.Fatal("the keyword index's checksum was not left to the background pass")
		}
		settled(t, s)
		if err := s.Damage(); err != nil {
			t.Fatal(err)
		}
		s.wsem <- struct{}{}
		rebuilt := s.disk.kwDirty
		s.unlock()
		if rebuilt != flip {
			t.Fatalf("flipped %v: the index was built again: %v", flip, rebuilt)
		}
		if got := viewOf(t, s); !reflect.DeepEqual(got, whole) {
			t.Fatalf("flipped %v: read:\n%v\nthe log says:\n%v", flip, got, whole)
		}
		s.Close()
	}
}
