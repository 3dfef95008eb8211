package embedded

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
	"github.com/ibid-dev/ibid/internal/testmain"
	"github.com/ibid-dev/ibid/store/storetest"
)

func TestMain(m *testing.M) {
	snapshotsChild()
	storetest.Child()
	snapshotChild()
	compactChild()
	repairChild()
	codesChild()
	code := testmain.Run(m)
	cleanupBench()
	testmain.Exit(code)
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, harness)
}

// TestConformanceSnapshots runs the suite with every library, of any
// size, keeping a snapshot and opening from it (in the suite's child
// processes too), so that its crash and damage cases cover the snapshot.
// It doubles the suite's time, so it runs with IBID_FIGURES=1, as CI runs
// it; the snapshot's own tests (snapshot_test.go) always run.
func TestConformanceSnapshots(t *testing.T) {
	figures.Require(t)
	withSnapshots(t)
	t.Setenv(envSnapshots, "1")
	storetest.Run(t, harness)
}

var harness = storetest.Harness{
	Location:  func(t testing.TB) string { return t.TempDir() },
	Processes: true,
	Damage:    damageFiles,
	Repair: func(t testing.TB, loc, name string) error {
		_, err := Repair(filepath.Join(loc, name))
		return err
	},
}

// damageFiles damages library name's files at loc as the suite asks.
func damageFiles(t testing.TB, loc, name string, kind storetest.Damage) bool {
	t.Helper()
	dir := filepath.Join(loc, name)
	m := readManifestFile(t, dir)
	logPath := filepath.Join(dir, logName(m.Generation))
	vecPath := filepath.Join(dir, vectorName(m.Generation))
	var err error
	switch kind {
	case storetest.CutHalf:
		err = os.Truncate(logPath, fileSize(t, logPath)/2)
	case storetest.CutToZero:
		err = os.Truncate(logPath, 0)
	case storetest.CutLastByte:
		err = os.Truncate(logPath, fileSize(t, logPath)-1)
	case storetest.CutLastCommit:
		ends := recordEnds(t, logPath)
		err = os.Truncate(logPath, ends[len(ends)-2])
	case storetest.LoseVectors:
		err = os.Remove(vecPath)
	case storetest.ZeroVectors:
		err = os.WriteFile(vecPath, make([]byte, fileSize(t, vecPath)), 0o644)
	case storetest.CutInfo:
		err = os.Truncate(filepath.Join(dir, manifestName), 20)
	default:
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// recordEnds lists the offsets at which the records of a format-2+ log
// end.
func recordEnds(t testing.TB, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ends []int64
	for off := 0; off < len(b); {
		h, ok := parseHeader(b[off:], formatVersion)
		if !ok {
			t.Fatalf("%s: no record at byte %d", path, off)
		}
		off += h.size + int(h.n)
		ends = append(ends, int64(off))
	}
	return ends
}
