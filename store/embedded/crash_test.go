package embedded

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// TestTornLastRecord cuts the log throughout its last record, as a
// crash in the middle of writing it would (before the commit file
// recorded it), and flips a byte in it; each time the library must open as
// it was before that record, report no damage, and take writes again. The
// same cuts of a record the commit file recorded are damage (see
// TestCutLog).
func TestTornLastRecord(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	s := mustOpen(t, base, testInfo)
	put(t, s, "a", 3, 1)
	put(t, s, "b", 2, 1)
	logPath := filepath.Join(base, logName(1))
	l0 := fileSize(t, logPath)
	committed, err := os.ReadFile(filepath.Join(base, markName(1)))
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "c", 4, 1)
	l1 := fileSize(t, logPath)
	s.Close()
	// torn is a copy of the library as a writer killed while it wrote c's
	// record leaves it: the commit file still says b's.
	torn := func(t *testing.T) string {
		dir := copyDir(t, base)
		if err := os.WriteFile(filepath.Join(dir, markName(1)), committed, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	before := map[string][2]int{"a": {3, 1}, "b": {2, 1}}
	after := map[string][2]int{"a": {3, 1}, "b": {2, 1}, "c": {4, 1}}

	check := func(t *testing.T, dir string, want map[string][2]int) {
		t.Helper()
		s := mustOpen(t, dir, testInfo)
		if err := s.Damage(); err != nil {
			t.Fatalf("a torn last record reported as damage: %v", err)
		}
		sameDocs(t, s, want)
		// Writing after recovery works and survives a reopen.
		put(t, s, "d", 2, 1)
		s.Close()
		s = mustOpen(t, dir, testInfo)
		defer s.Close()
		w := map[string][2]int{"d": {2, 1}}
		for k, v := range want {
			w[k] = v
		}
		sameDocs(t, s, w)
	}
	// Every byte of the header, then every 11th of the payload, and the
	// last one.
	var cuts []int64
	for cut := l0; cut < l1; cut++ {
		if cut < l0+recordHeader+2 || (cut-l0)%11 == 0 || cut == l1-1 {
			cuts = append(cuts, cut)
		}
	}
	for _, cut := range cuts {
		dir := torn(t)
		if err := os.Truncate(filepath.Join(dir, logName(1)), cut); err != nil {
			t.Fatal(err)
		}
		check(t, dir, before)
	}
	// A flipped header byte leaves no trustworthy length: the record reads
	// as a write cut short.
	for _, at := range []int64{l0, l0 + 2, l0 + 5} {
		dir := torn(t)
		flipByte(t, filepath.Join(dir, logName(1)), at)
		check(t, dir, before)
	}
	// A whole last record (intact header, every byte present) that fails
	// its checksum was committed and damaged since: it is reported, the
	// store opens read-only with what is intact, and nothing is cut.
	for _, at := range []int64{l0 + recordHeader + 3, l1 - 1} {
		dir := copyDir(t, base)
		flipByte(t, filepath.Join(dir, logName(1)), at)
		s := mustOpen(t, dir, testInfo)
		if err := s.Damage(); err == nil {
			t.Fatalf("byte %d of a whole last record flipped: no damage reported", at)
		}
		docs, err := s.Documents(context.Background())
		if err != nil || len(docs) < 2 {
			t.Fatalf("byte %d flipped: %d documents (%v), want a and b at least", at, len(docs), err)
		}
		s.Close()
		if got := fileSize(t, filepath.Join(dir, logName(1))); got != l1 {
			t.Fatalf("byte %d flipped: the log was cut to %d bytes of %d", at, got, l1)
		}
	}
	// Vectors written without their record, and garbage after the log.
	dir := copyDir(t, base)
	appendFile(t, filepath.Join(dir, vectorName(1)), make([]byte, 4*testInfo.Dimension*5+3))
	appendFile(t, filepath.Join(dir, logName(1)), []byte{9, 0, 0, 0, 1, 2})
	check(t, dir, after)
	if got := fileSize(t, filepath.Join(base, vectorName(1))); got != int64(9*testInfo.Dimension*4) {
		t.Fatalf("vector file of the original is %d bytes", got)
	}
}

// TestInterruptedCompaction leaves behind what a compaction killed before
// its manifest rename would: the next generation's files and a manifest
// temp file. The library opens as it was, and the next writer removes them.
func TestInterruptedCompaction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	put(t, s, "a", 3, 1)
	put(t, s, "b", 2, 1)
	s.Close()
	leftovers := []string{logName(2), vectorName(2), ".manifest.json123", ".bm25.idx456"}
	for _, name := range leftovers {
		appendFile(t, filepath.Join(dir, name), []byte("half-written"))
	}
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	sameDocs(t, s, map[string][2]int{"a": {3, 1}, "b": {2, 1}})
	put(t, s, "c", 1, 1)
	for _, name := range leftovers {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s not removed", name)
		}
	}
}

func TestCompact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	for v := 1; v <= 3; v++ {
		put(t, s, "a", 50, v)
		put(t, s, "b", 10, v)
	}
	put(t, s, "c", 7, 1)
	if err := s.Update(ctx, nil, []string{"c"}); err != nil {
		t.Fatal(err)
	}
	before := s.disk.man.Generation
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if s.disk.man.Generation != before+1 || s.disk.rows != 60 || s.disk.deadRows != 0 {
		t.Fatalf("after compact: generation %d, rows %d, dead %d", s.disk.man.Generation, s.disk.rows, s.disk.deadRows)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-*"))
	if want := []string{codesName(2), markName(2), logName(2), vectorName(2)}; len(files) != len(want) ||
		filepath.Base(files[0]) != want[0] || filepath.Base(files[1]) != want[1] ||
		filepath.Base(files[2]) != want[2] || filepath.Base(files[3]) != want[3] {
		t.Fatalf("files after compact: %v, want %v", files, want)
	}
	put(t, s, "d", 3, 1)
	s.Close()
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	sameDocs(t, s, map[string][2]int{"a": {50, 3}, "b": {10, 3}, "d": {3, 1}})
}

func TestAutoCompact(t *testing.T) {
	t.Parallel()
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

// TestCompactionSeenByOtherStore: a store that did not compact follows the
// other's new generation without reopening.
func TestCompactionSeenByOtherStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s1 := mustOpen(t, dir, testInfo)
	defer s1.Close()
	s2 := mustOpen(t, dir, testInfo)
	defer s2.Close()
	put(t, s1, "a", 4, 1)
	put(t, s1, "a", 4, 2)
	if err := s1.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	put(t, s1, "b", 2, 1)
	sameDocs(t, s2, map[string][2]int{"a": {4, 2}, "b": {2, 1}})
	put(t, s2, "c", 1, 1)
	sameDocs(t, s1, map[string][2]int{"a": {4, 2}, "b": {2, 1}, "c": {1, 1}})
}

// TestFormat1 opens a library written in format 1 (no record magic, no
// vector checksums, no index text) and converts it on the first write.
func TestFormat1(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	writeFormat1(t, dir, []store.Put{putOf("a", 3, 1), putOf("b", 2, 1)})
	s := mustOpen(t, dir, testInfo)
	if err := s.Damage(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		segs, err := s.Segments(ctx, id, 0, -1)
		if err != nil || len(segs) == 0 || segs[0].Text != segText(id, 0, 1) {
			t.Fatalf("format 1 document %s: %v, %v", id, segs, err)
		}
	}
	put(t, s, "c", 2, 1)
	if s.disk.man.Format != formatVersion {
		t.Fatalf("format after a write = %d", s.disk.man.Format)
	}
	s.Close()
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	checkDoc(t, s, "c", 2, 1)
	if n, _ := s.Len(ctx); n != 7 {
		t.Fatalf("Len = %d after conversion, want 7", n)
	}
}

// TestTailOfDeadWriter: a writer of another process died mid-record after
// this store had tidied the files; this store's next commit cuts the dead
// writer's tail, so that nothing uncommitted follows its record.
func TestTailOfDeadWriter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	defer s.Close()
	put(t, s, "a", 2, 1)
	appendFile(t, filepath.Join(dir, logName(1)), append([]byte(recordMagic), make([]byte, 500)...))
	appendFile(t, filepath.Join(dir, vectorName(1)), make([]byte, 4*testInfo.Dimension*7))
	put(t, s, "b", 1, 1)
	if got, want := fileSize(t, filepath.Join(dir, logName(1))), s.disk.logEnd; got != want {
		t.Fatalf("log is %d bytes after the commit, its committed end %d", got, want)
	}
	if got, want := fileSize(t, filepath.Join(dir, vectorName(1))), int64(3*testInfo.Dimension*4); got != want {
		t.Fatalf("vector file is %d bytes, want %d", got, want)
	}
	r := mustOpen(t, dir, testInfo)
	defer r.Close()
	if err := r.Damage(); err != nil {
		t.Fatal(err)
	}
	sameDocs(t, r, map[string][2]int{"a": {2, 1}, "b": {1, 1}})
}
