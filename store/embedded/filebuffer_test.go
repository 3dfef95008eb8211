package embedded

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/quant"
)

// Reading the log and the codes file through windows smaller than the
// file (as a library larger than fileBufferMax is read) finds what one
// buffer for the whole file finds: the same documents and the same damage
// after a flipped byte (resync finds the next record across windows), and
// every block of the codes file, with the same answers.
func TestSmallReadWindows(t *testing.T) { // not parallel: it sets fileBufferMax
	damaged := damageLibrary(t, 20)
	logPath := filepath.Join(damaged, logName(1))
	at := fileSize(t, logPath) * 3 / 10
	flipByte(t, logPath, at)
	ends := recordEnds(t, logPath)
	i := slices.IndexFunc(ends, func(e int64) bool { return e > at }) // the damaged record ends at ends[i]
	damagedStart, nextStart := ends[i-1], ends[i]
	codes, queries, want := codesLibrary(t, 6)
	block := int64(blockHeader + codeBody(50, quant.Stride(codesInfo.Dimension)))

	read := func() (ids []string, damage string) {
		t.Helper()
		s, err := OpenDir(context.Background(), damaged, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		docs, err := s.Documents(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			ids = append(ids, d.ID)
		}
		if err := s.Damage(); err != nil {
			damage = err.Error()
		}
		return ids, damage
	}
	wantIDs, wantDamage := read()
	if wantDamage == "" || len(wantIDs) != 19 {
		t.Fatalf("the damaged library reads as %d documents, damage %q; want 19 and the flipped record reported", len(wantIDs), wantDamage)
	}
	readCodes := func() {
		t.Helper()
		s, err := OpenDir(context.Background(), codes, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if len(s.disk.codesMissing) != 0 || s.disk.codesBroken {
			t.Fatalf("window of %d bytes: %d documents' codes not found in the file (broken %v)", fileBufferMax, len(s.disk.codesMissing), s.disk.codesBroken)
		}
		sameAnswers(t, s, queries, want)
	}

	defer func(v int64) { fileBufferMax = v }(fileBufferMax)
	// The smallest window; one whose end falls inside the magic of the
	// record after the damaged one (resync's first window starts a byte
	// past the damaged record); ones whose ends fall inside the header of
	// the second and the third block of the codes file.
	windows := []int64{blockHeader, nextStart - (damagedStart + 1) + 2, block + 16, 2*block + 31}
	for _, w := range windows {
		fileBufferMax = w
		if ids, damage := read(); !slices.Equal(ids, wantIDs) || damage != wantDamage {
			t.Fatalf("window of %d bytes: %d documents, damage %q; want %d, %q", w, len(ids), damage, len(wantIDs), wantDamage)
		}
		readCodes()
	}
}
