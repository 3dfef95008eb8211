package embedded

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

var killInfo = Info{Embedder: "kill-test", Dimension: 256}

// docState is what the kill script expects of one document.
type docState struct{ n, version int }

// killOp performs op i of the kill script on s (when s is not nil) and
// applies it to want. Ops: single puts, batches that add two documents and
// replace an earlier one in one commit, and deletes.
func killOp(s *Chromem, i int, want map[string]docState) error {
	id := func(j int) string { return "k" + strconv.Itoa(j) }
	n1 := func(j int) int { return 1 + (j*7)%40 }
	n2 := func(j int) int { return 1 + (j*11)%40 }
	ctx := context.Background()
	switch {
	case i%5 == 4:
		victim := id(i - 3)
		delete(want, victim)
		if s != nil {
			return s.DeleteDocument(ctx, victim)
		}
	case i%5 == 2:
		plan := []struct {
			id      string
			n, vers int
		}{{id(i), n1(i), 1}, {id(i) + "b", n2(i), 1}, {id(i - 1), n2(i - 1), 2}}
		var puts []Put
		for _, p := range plan {
			want[p.id] = docState{p.n, p.vers}
			doc, segs := makeDoc(p.id, p.n, killInfo.Dimension, p.vers)
			puts = append(puts, Put{doc, segs})
		}
		if s != nil {
			return s.PutDocuments(ctx, puts)
		}
	default:
		want[id(i)] = docState{n1(i), 1}
		if s != nil {
			doc, segs := makeDoc(id(i), n1(i), killInfo.Dimension, 1)
			return s.PutDocument(ctx, doc, segs)
		}
	}
	return nil
}

// TestKillChild is the writer that TestKillDuringAdd kills; on its own it
// does nothing.
func TestKillChild(t *testing.T) {
	dir := os.Getenv("IBID_STORE_KILL_DIR")
	if dir == "" {
		t.Skip("run by TestKillDuringAdd")
	}
	s, err := Open(dir, killInfo)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	want := map[string]docState{}
	deadline := time.Now().Add(time.Minute) // in case the parent died first
	for i := 0; time.Now().Before(deadline); i++ {
		if err := killOp(s, i, want); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("committed", i)
	}
}

// TestKillDuringAdd runs a writer in a child process, SIGKILLs it in the
// middle of adding, and checks that the library opens cleanly and holds
// exactly what the writer had committed (the op in flight either whole or
// not at all), with every document whole.
func TestKillDuringAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for round := range 3 {
		t.Run(strconv.Itoa(round), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "IBID_STORE_KILL_DIR="+dir)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer cmd.Process.Kill() // if the test fails before it kills (runs first)
			lines := bufio.NewScanner(out)
			last := -1
			killAt := 40 + 25*round
			for last < killAt && lines.Scan() {
				last = scanCommitted(t, lines.Text(), last)
			}
			// Let it get into the middle of something, then kill it.
			time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
			cmd.Process.Signal(syscall.SIGKILL)
			for lines.Scan() { // what it printed before dying was committed
				last = scanCommitted(t, lines.Text(), last)
			}
			io.Copy(io.Discard, out)
			cmd.Wait()
			if last < killAt {
				t.Fatalf("child stopped after op %d", last)
			}

			before := map[string]docState{}
			for i := 0; i <= last; i++ {
				killOp(nil, i, before)
			}
			after := maps.Clone(before)
			killOp(nil, last+1, after)

			s, err := Open(dir, killInfo)
			if err != nil {
				t.Fatalf("library does not open after the kill: %v", err)
			}
			defer s.Close()
			errBefore, errAfter := sameState(s, before), sameState(s, after)
			if errBefore != nil && errAfter != nil {
				t.Fatalf("after kill following op %d the library is neither as before op %d (%v) nor after it (%v)",
					last, last+1, errBefore, errAfter)
			}
			t.Logf("killed after op %d; op %d committed: %v", last, last+1, errAfter == nil)

			// And the library goes on working.
			put(t, s, "after-kill", 3, 1)
			s.Close()
			s = mustOpen(t, dir, killInfo)
			checkDoc(t, s, "after-kill", 3, 1)
		})
	}
}

func scanCommitted(t *testing.T, line string, last int) int {
	var i int
	if _, err := fmt.Sscanf(line, "committed %d", &i); err != nil {
		t.Fatalf("child: %s", line)
	}
	if i != last+1 {
		t.Fatalf("child reported op %d after %d", i, last)
	}
	return i
}

// sameState reports how s differs from want, or nil.
func sameState(s *Chromem, want map[string]docState) error {
	var got []string
	for _, d := range s.Documents() {
		got = append(got, d.ID)
	}
	slices.Sort(got)
	if w := slices.Sorted(maps.Keys(want)); !slices.Equal(got, w) {
		return fmt.Errorf("documents %v, want %v", got, w)
	}
	total := 0
	for id, st := range want {
		if err := docWhole(s, id, st.n, st.version); err != nil {
			return err
		}
		total += st.n
	}
	if s.Len() != total || s.coll.Count() != total {
		return fmt.Errorf("Len %d, collection %d, want %d", s.Len(), s.coll.Count(), total)
	}
	return nil
}

// TestTornLastRecord cuts the log at every byte of its last record, as a
// crash in the middle of writing it would, and flips a byte in it; each
// time the library must open as it was before that record.
func TestTornLastRecord(t *testing.T) {
	base := t.TempDir()
	s := mustOpen(t, base, testInfo)
	put(t, s, "a", 3, 1)
	put(t, s, "b", 2, 1)
	logPath := filepath.Join(base, logName(1))
	vecPath := filepath.Join(base, vectorName(1))
	l0 := fileSize(t, logPath)
	put(t, s, "c", 4, 1)
	l1 := fileSize(t, logPath)
	s.Close()
	before := map[string]docState{"a": {3, 1}, "b": {2, 1}}
	after := map[string]docState{"a": {3, 1}, "b": {2, 1}, "c": {4, 1}}

	check := func(t *testing.T, dir string, want map[string]docState) {
		t.Helper()
		s, err := Open(dir, testInfo)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		if err := sameState(s, want); err != nil {
			t.Fatal(err)
		}
		// Writing after recovery must work and survive a reopen.
		put(t, s, "d", 2, 1)
		s.Close()
		s = mustOpen(t, dir, testInfo)
		defer s.Close()
		w := maps.Clone(want)
		w["d"] = docState{2, 1}
		if err := sameState(s, w); err != nil {
			t.Fatalf("after writing on the recovered library: %v", err)
		}
	}

	for cut := l0; cut < l1; cut++ {
		dir := copyDir(t, base)
		if err := os.Truncate(filepath.Join(dir, logName(1)), cut); err != nil {
			t.Fatal(err)
		}
		check(t, dir, before)
	}
	for _, at := range []int64{l0 + 2, l0 + 5, l0 + recordHeader + 3, l1 - 1} {
		dir := copyDir(t, base)
		flipByte(t, filepath.Join(dir, logName(1)), at)
		check(t, dir, before)
	}
	// Vectors written without their record, and garbage after the log.
	dir := copyDir(t, base)
	appendFile(t, filepath.Join(dir, vectorName(1)), make([]byte, 4*testInfo.Dimension*5+3))
	appendFile(t, filepath.Join(dir, logName(1)), []byte{9, 0, 0, 0, 1, 2})
	check(t, dir, after)
	if got := fileSize(t, vecPath); got != int64(9*testInfo.Dimension*4) {
		t.Fatalf("vector file of the original is %d bytes", got)
	}
}

// TestInterruptedCompaction leaves behind what a compaction killed before
// its manifest rename would: the next generation's files and a manifest
// temp file. Open must ignore and remove them.
func TestInterruptedCompaction(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	put(t, s, "a", 3, 1)
	put(t, s, "b", 2, 1)
	s.Close()
	for _, name := range []string{logName(2), vectorName(2), manifestTmp()} {
		appendFile(t, filepath.Join(dir, name), []byte("half-written"))
	}
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	if err := sameState(s, map[string]docState{"a": {3, 1}, "b": {2, 1}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{logName(2), vectorName(2), manifestTmp()} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s not removed", name)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	names, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range names {
		b, err := os.ReadFile(filepath.Join(src, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, de.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func flipByte(t *testing.T, path string, at int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[at] ^= 0x55
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}
