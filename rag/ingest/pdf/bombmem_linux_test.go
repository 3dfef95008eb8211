//go:build linux

package pdf

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
)

// The compressed-stream bomb (2 GiB of spaces from 2 MB of file) is
// refused in bounded memory: the process that reads it, pdfium started,
// peaks far below the 2.9 GB it reached when pdfium inflated it (its
// memory grows by copying). The bomb is read in a child process so its
// peak is its own. A measurement test (TestPDFBomb checks the refusal in
// every run).
func TestPDFBombMemory(t *testing.T) {
	figures.Require(t)
	if os.Getenv("IBID_BOMB_CHILD") != "" {
		e := NewEngine(testCacheDir())
		defer e.Close()
		if _, err := e.Read(context.Background(), pdftest.Tiny()); err != nil {
			t.Fatal(err) // starts pdfium
		}
		_, err := e.Read(context.Background(), bombPDF(2048))
		t.Logf("bomb: %v", err)
		if err == nil {
			t.Fatal("the bomb was read")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPDFBombMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "IBID_BOMB_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	if peakMB := peak >> 10; peakMB > 600 {
		t.Errorf("reading the bomb peaked at %d MB; want under 600 MB\n%s", peakMB, out)
	} else {
		t.Logf("reading the bomb peaked at %d MB", peakMB)
	}
}
