package storetest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/figures"
	"github.com/ibid-dev/ibid/store"
)

// Environment of a child process (see Child).
const (
	envMode     = "IBID_STORETEST_CHILD"
	envLocation = "IBID_STORETEST_LOCATION"
	envPrefix   = "IBID_STORETEST_PREFIX"
)

// Child runs the suite's child process when the test binary was started as
// one (a backend's TestMain calls it first); otherwise it returns at once.
// A child opens the library "lib" at the location it is given and either
// runs the kill script until it is killed, or writes a series of
// documents, printing a line per commit.
func Child() {
	mode := os.Getenv(envMode)
	if mode == "" {
		return
	}
	ctx := context.Background()
	st, err := store.Open(ctx, os.Getenv(envLocation), store.Options{Library: "lib", Info: testInfo, Create: true})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	switch mode {
	case "kill":
		want := map[string]docState{}
		deadline := time.Now().Add(time.Minute) // in case the parent died first
		for i := 0; time.Now().Before(deadline); i++ {
			if err := killOp(ctx, st, i, want); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
			fmt.Println("committed", i)
		}
	case "settings": // the settings kill script (testSettingsKill)
		s, ok := st.(store.Settings)
		if !ok {
			fmt.Println("error: no settings")
			os.Exit(2)
		}
		prev := -1
		if v, err := s.Settings(ctx); err == nil && v["a"] != "" {
			prev, _ = strconv.Atoi(v["a"])
		}
		for i := prev + 1; i < prev+100000; i++ {
			if err := settingsOp(ctx, s, i); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
			fmt.Println("committed", i)
		}
	case "write":
		prefix := os.Getenv(envPrefix)
		for i := range writerDocs {
			err := st.Update(ctx, []store.Put{doc(prefix+strconv.Itoa(i), 2, 1)}, nil)
			switch {
			case errors.Is(err, store.ErrBusy):
				fmt.Println("busy", i)
			case err != nil:
				fmt.Println("error", err)
				os.Exit(2)
			default:
				fmt.Println("committed", i)
			}
		}
	}
	st.Close()
	os.Exit(0)
}

// childTimeout bounds how long the suite waits for a child's next line.
const childTimeout = time.Minute

// child starts the test binary as a child in mode on loc; its output
// lines arrive on the channel, which is closed when the child's output
// ends.
func child(t *testing.T, mode, loc string, env ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot re-execute the test binary: %v", err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, envMode+"="+mode, envLocation+"="+loc)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return cmd, lines
}

// next returns the child's next line; ok is false at the end of its
// output. A child silent for childTimeout fails the test.
func next(t *testing.T, lines <-chan string) (line string, ok bool) {
	t.Helper()
	select {
	case line, ok = <-lines:
		return line, ok
	case <-time.After(childTimeout):
		t.Fatalf("the child process printed nothing for %v", childTimeout)
		return "", false
	}
}

func needProcesses(t *testing.T, h Harness) {
	if !h.Processes {
		t.Skip("the backend's harness runs no child processes")
	}
	if os.Getenv(envMode) != "" {
		t.Skip("in a child")
	}
}

// docState is what the kill script expects of one document.
type docState struct{ n, version int }

// killOp performs op i of the kill script on st (when st is not nil) and
// applies it to want. Ops: single puts, batches that add two documents and
// replace an earlier one in one commit, and deletes.
func killOp(ctx context.Context, st store.Store, i int, want map[string]docState) error {
	id := func(j int) string { return "k" + strconv.Itoa(j) }
	n1 := func(j int) int { return 1 + (j*7)%40 }
	n2 := func(j int) int { return 1 + (j*11)%40 }
	var puts []store.Put
	var deletes []string
	switch {
	case i%5 == 4:
		victim := id(i - 3)
		delete(want, victim)
		deletes = []string{victim}
	case i%5 == 2:
		plan := []struct {
			id      string
			n, vers int
		}{{id(i), n1(i), 1}, {id(i) + "b", n2(i), 1}, {id(i - 1), n2(i - 1), 2}}
		for _, p := range plan {
			want[p.id] = docState{p.n, p.vers}
			puts = append(puts, doc(p.id, p.n, p.vers))
		}
	default:
		want[id(i)] = docState{n1(i), 1}
		puts = []store.Put{doc(id(i), n1(i), 1)}
	}
	if st == nil {
		return nil
	}
	return st.Update(ctx, puts, deletes)
}

// expected is the library the kill script leaves after ops 0..last.
func expected(last int) map[string][]string {
	want := map[string]docState{}
	for i := 0; i <= last; i++ {
		killOp(context.Background(), nil, i, want)
	}
	out := map[string][]string{}
	for id, s := range want {
		texts := make([]string, s.n)
		for i := range texts {
			texts[i] = segText(id, i, s.version)
		}
		out[id] = texts
	}
	return out
}

// testKill kills a writer at a random moment, several times, and checks
// that the library then holds exactly what was committed: the state after
// the last op reported, or after the one in flight, never a part of it.
// Two rounds by default, four with IBID_FIGURES=1 as CI runs it.
func testKill(t *testing.T, h Harness) {
	needProcesses(t, h)
	rounds := 2
	if figures.Enabled() && !testing.Short() {
		rounds = 4 // as CI runs it
	}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for round := range rounds {
		loc := h.Location(t)
		cmd, out := child(t, "kill", loc)
		last := -1
		stopAt := 3 + r.IntN(25+60*rounds/4) // far enough, sometimes, for a compaction
		for last < stopAt {
			line, ok := next(t, out)
			if !ok {
				t.Fatal("the child ended before it was killed")
			}
			if n, ok := strings.CutPrefix(line, "committed "); ok {
				last, _ = strconv.Atoi(n)
				continue
			}
			t.Fatalf("child: %s", line)
		}
		time.Sleep(time.Duration(r.IntN(3000)) * time.Microsecond) // somewhere inside the next op
		cmd.Process.Kill()
		for { // lines printed before the kill (Wait would close the pipe)
			line, ok := next(t, out)
			if !ok {
				break
			}
			if n, ok := strings.CutPrefix(line, "committed "); ok {
				last, _ = strconv.Atoi(n)
			}
		}
		cmd.Wait()

		st := open(t, loc, "lib")
		got, err := state(context.Background(), st)
		if err != nil {
			t.Fatalf("round %d: reading the library after the kill: %v", round, err)
		}
		if !maps.EqualFunc(got, expected(last), equalTexts) && !maps.EqualFunc(got, expected(last+1), equalTexts) {
			t.Fatalf("round %d: after a kill past op %d the library is neither the state after op %d nor after op %d: %s",
				round, last, last, last+1, diff(got, expected(last+1)))
		}
		// And it takes writes again.
		update(t, st, []store.Put{doc("after", 2, 1)})
		st.Close()
	}
}

func equalTexts(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// writerDocs is how many documents each concurrent writer adds.
const writerDocs = 30

// testOtherProcess: another process writes while this one does, one
// document per commit. Every commit lands, or is refused with an error
// wrapping ErrBusy; and this process's open store sees the other's commits
// without reopening.
func testOtherProcess(t *testing.T, h Harness) {
	needProcesses(t, h)
	ctx := context.Background()
	loc := h.Location(t)
	st := open(t, loc, "lib")
	update(t, st, []store.Put{doc("first", 1, 1)})
	cmd, out := child(t, "write", loc, envPrefix+"=c")
	mine := map[int]bool{}
	for i := range writerDocs {
		err := st.Update(ctx, []store.Put{doc("p"+strconv.Itoa(i), 2, 1)}, nil)
		if err != nil && !errors.Is(err, store.ErrBusy) {
			t.Fatal(err)
		}
		mine[i] = err == nil
	}
	theirs := map[int]bool{}
	for {
		line, ok := next(t, out)
		if !ok {
			break
		}
		f := strings.Fields(line)
		if len(f) != 2 || f[0] == "error" {
			t.Fatalf("child: %s", line)
		}
		i, _ := strconv.Atoi(f[1])
		theirs[i] = f[0] == "committed"
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	for i := range writerDocs {
		for who, ok := range map[string]bool{"p": mine[i], "c": theirs[i]} {
			_, err := st.Document(ctx, who+strconv.Itoa(i))
			switch {
			case ok && err != nil:
				t.Fatalf("committed %s%d not visible without reopening: %v", who, i, err)
			case !ok && err == nil:
				t.Fatalf("refused %s%d is in the library", who, i)
			}
		}
	}
	if hits, err := st.Keyword(ctx, "segment 1 of c7", 1, store.Filter{}); theirs[7] && (err != nil || len(hits) != 1 || hits[0].Segment.ID != "c7:1") {
		t.Fatalf("keyword search misses the other process's commit: %v, %v", hits, err)
	}
}

// diff says how library a differs from b, briefly.
func diff(a, b map[string][]string) string {
	var out []string
	for id, x := range a {
		if y, ok := b[id]; !ok {
			out = append(out, "+"+id)
		} else if !equalTexts(x, y) {
			out = append(out, fmt.Sprintf("~%s (%d segments, want %d)", id, len(x), len(y)))
		}
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			out = append(out, "-"+id)
		}
	}
	return strings.Join(out, " ")
}
