package embedded

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/store"
)

const envCompactChild = "IBID_EMBEDDED_COMPACT_CHILD"

// compactChild is the writer TestKillDuringCompaction kills: it replaces
// document "r" and adds document "n<i>", then compacts, over and over,
// printing each op it finished.
func compactChild() {
	dir := os.Getenv(envCompactChild)
	if dir == "" {
		return
	}
	ctx := context.Background()
	s, err := OpenDir(ctx, dir, store.Options{Info: testInfo, Create: true})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	deadline := time.Now().Add(time.Minute)
	for i := 0; time.Now().Before(deadline); i++ {
		err := s.Update(ctx, []store.Put{putOf("r", 20, i), putOf("n"+strconv.Itoa(i), 3, 1)}, nil)
		if err == nil {
			err = s.Compact(ctx)
		}
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("done", i)
	}
	os.Exit(0)
}

// TestKillDuringCompaction kills a writer that compacts after every write,
// at random moments, and checks that the library then holds the commits,
// whole, whichever generation was in force.
func TestKillDuringCompaction(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
	for round := range 3 {
		dir := t.TempDir()
		cmd, sc := startCompactChild(t, dir)
		last := killAfterDone(t, cmd, sc, 2+r.IntN(15), time.Duration(r.IntN(5000))*time.Microsecond)

		s := mustOpen(t, dir, testInfo)
		if err := s.Damage(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		checkOpsAfterKill(t, s, round, last)
		put(t, s, "after", 1, 1) // and it takes writes again
		s.Close()
	}
}

// TestOpenWhileCompacting opens and reads a library again and again while
// another process writes and compacts it after every write: no open or
// read may take the vanishing old generation for damage, or see a
// document half.
func TestOpenWhileCompacting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cmd, sc := startCompactChild(t, dir)
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if !sc.Scan() { // the library exists
		t.Fatal("child printed nothing")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	follower := mustOpen(t, dir, testInfo)
	defer follower.Close()
	for i := range 25 {
		s, err := OpenDir(ctx, dir, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Damage(); err != nil {
			t.Fatalf("open %d during compactions: %v", i, err)
		}
		if err := wholeR(s); err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		s.Close()
		if err := wholeR(follower); err != nil {
			t.Fatalf("follower, read %d: %v", i, err)
		}
	}
	if err := follower.Damage(); err != nil {
		t.Fatalf("a store following the compactions: %v", err)
	}
}

// wholeR checks that document r (20 segments, all of one version) is whole.
func wholeR(s *Store) error {
	segs, err := s.Segments(context.Background(), "r", 0, -1)
	if err != nil {
		return err
	}
	if len(segs) != 20 {
		return fmt.Errorf("r has %d segments", len(segs))
	}
	_, v, _ := strings.Cut(segs[0].Text, "version ")
	for _, sg := range segs {
		if !strings.HasSuffix(sg.Text, "version "+v) {
			return fmt.Errorf("r read half-replaced: %q and %q", segs[0].Text, sg.Text)
		}
	}
	return nil
}

// startCompactChild starts this test binary as compactChild on the
// library in dir, and returns it with a scanner over its progress lines.
func startCompactChild(t *testing.T, dir string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	return startChild(t, envCompactChild+"="+dir)
}

// startChild starts this test binary with env added to its environment
// (which names the child to be and its library), and returns it with a
// scanner over its progress lines.
func startChild(t *testing.T, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}

// killAfterDone reads a child's "done N" lines (a commit it made) until it
// has reported commit stopAt, lets it go on for pause, kills it, and
// returns the last commit it reported (-1 for none), counting the lines it
// wrote before it died.
func killAfterDone(t *testing.T, cmd *exec.Cmd, sc *bufio.Scanner, stopAt int, pause time.Duration) int {
	t.Helper()
	last := -1
	for last < stopAt && sc.Scan() {
		n, ok := strings.CutPrefix(sc.Text(), "done ")
		if !ok {
			cmd.Process.Kill()
			t.Fatalf("child: %s", sc.Text())
		}
		last, _ = strconv.Atoi(n)
	}
	time.Sleep(pause)
	cmd.Process.Kill()
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "done "); ok {
			last, _ = strconv.Atoi(n)
		}
	}
	cmd.Wait()
	return last
}

// checkOpsAfterKill checks a library whose child (the compaction or the
// snapshot kill test's, which run the same ops) was killed after
// reporting op last: ops 0..last are whole, op last+1 is whole if it
// committed its write, and nothing else is there.
func checkOpsAfterKill(t *testing.T, s *Store, round, last int) {
	t.Helper()
	docs, err := s.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != last+2 && len(docs) != last+3 {
		t.Fatalf("round %d: %d documents after op %d", round, len(docs), last)
	}
	rv := last
	if len(docs) == last+3 {
		rv = last + 1
	}
	checkDoc(t, s, "r", 20, rv)
	for i := 0; i <= rv; i++ {
		checkDoc(t, s, "n"+strconv.Itoa(i), 3, 1)
	}
}
