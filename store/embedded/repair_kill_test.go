package embedded

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/figures"
)

const envRepairChild = "IBID_EMBEDDED_REPAIR_CHILD"

// repairChild is the process TestKillDuringRepair kills: it repairs the
// library it is given, saying when it starts and when it is done.
func repairChild() {
	dir := os.Getenv(envRepairChild)
	if dir == "" {
		return
	}
	fmt.Println("start")
	if _, err := Repair(dir); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println("done")
	os.Exit(0)
}

// TestKillDuringRepair kills `doctor --repair` at moments spread over its
// work on a library with a damaged record and damaged vectors: whatever the
// moment, the library then reads as before the repair (still damaged) or
// as after it, never with fewer documents, and a second repair finishes.
// Four moments by default, eleven with IBID_FIGURES=1 as CI runs it.
func TestKillDuringRepair(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	delays := []time.Duration{0, 10, 80, 640}
	if figures.Enabled() {
		delays = []time.Duration{0, 2, 5, 10, 20, 40, 80, 160, 320, 640, 1280}
	}
	const n = 400
	base := damageLibrary(t, n)
	flipByte(t, filepath.Join(base, logName(1)), fileSize(t, filepath.Join(base, logName(1)))*3/10)
	vec := filepath.Join(base, vectorName(1))
	flipByte(t, vec, fileSize(t, vec)*6/10)
	flipByte(t, vec, fileSize(t, vec)*8/10)
	want, err := Check(base)
	if err != nil || want.OK() || len(want.Unembedded) != 2 || want.Documents+want.LostDocuments != n || want.Documents < n-1 {
		t.Fatalf("Check of the damaged library = %d documents, %d lost, %d without vectors, %v; want %d in all, 2 without vectors",
			want.Documents, want.LostDocuments, len(want.Unembedded), err, n)
	}
	before, after := 0, 0
	for _, delay := range delays {
		dir := copyDir(t, base)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envRepairChild+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		if !sc.Scan() || sc.Text() != "start" {
			cmd.Process.Kill()
			t.Fatalf("child: %q", sc.Text())
		}
		time.Sleep(delay * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()

		got, err := Check(dir)
		if err != nil {
			t.Fatalf("killed after %d ms: Check: %v", delay, err)
		}
		if got.Documents != want.Documents || len(got.Unembedded) != len(want.Unembedded) {
			t.Fatalf("killed after %d ms: %d documents, %d without vectors; want %d and %d",
				delay, got.Documents, len(got.Unembedded), want.Documents, len(want.Unembedded))
		}
		if got.OK() {
			after++
		} else {
			before++
		}
		if _, err := Repair(dir); err != nil {
			t.Fatalf("killed after %d ms: the next Repair: %v", delay, err)
		}
		s := mustOpen(t, dir, testInfo)
		if err := s.Damage(); err != nil {
			t.Fatalf("killed after %d ms, repaired again: %v", delay, err)
		}
		intact, lost := intactDocs(t, s)
		if len(intact) != want.Documents-2 || len(lost) != 2 {
			t.Fatalf("killed after %d ms, repaired again: %d intact, %d without vectors", delay, len(intact), len(lost))
		}
		ids, _ := s.Unembedded(context.Background())
		for _, id := range ids {
			put(t, s, id, 3, 1)
		}
		s.Close()
	}
	t.Logf("%d kills before the repair's commit, %d after", before, after)
	if before == 0 {
		t.Error("no kill came before the repair committed: the test proves little")
	}
}
