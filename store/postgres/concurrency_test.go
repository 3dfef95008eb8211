package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/store"
)

// TestConcurrentWriters has writers in two "processes" (stores with pools of
// their own) update one library at once; they serialise, and every batch
// lands whole.
func TestConcurrentWriters(t *testing.T) {
	s := openTest(t, 4)
	o := reopen(t, s)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for w := range errs {
		st := s
		if w%2 == 1 {
			st = o
		}
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 15))
			for i := range 5 {
				puts := []store.Put{makePut(rng, fmt.Sprintf("w%d-%d", w, i), 20, 4), makePut(rng, "shared", 1+rng.IntN(30), 4)}
				if err := st.Update(ctx, puts, nil); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	docs, _ := s.Documents(ctx)
	if len(docs) != 8*5+1 {
		t.Fatalf("%d documents, want 41", len(docs))
	}
	checkWhole(t, s)
}

// TestBusyWriterIsTold holds a library's writer lock elsewhere: a writer
// that cannot wait long enough gets ErrBusy with a message saying to retry,
// and succeeds once the lock is free.
func TestBusyWriterIsTold(t *testing.T) {
	s := openTest(t, 2)
	ctx := context.Background()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := lockCollection(ctx, tx, s.coll, time.Second); err != nil {
		t.Fatal(err)
	}
	s.lockWait = 200 * time.Millisecond
	rng := rand.New(rand.NewPCG(16, 17))
	err = s.Update(ctx, []store.Put{makePut(rng, "a", 2, 2)}, nil)
	if !errors.Is(err, store.ErrBusy) || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("update while locked: %v, want ErrBusy saying to try again", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, []store.Put{makePut(rng, "a", 2, 2)}, nil)
}

// crashEnv names the library a child process writes to until it is killed.
const crashEnv = "IBID_PG_CRASH_LIBRARY"

// TestCrashChild is the child of TestCrashMidCopy: it writes one large
// batch and never returns (the parent kills it).
func TestCrashChild(t *testing.T) {
	name := os.Getenv(crashEnv)
	if name == "" {
		t.Skip("only run as the child of TestCrashMidCopy")
	}
	s, err := Open(context.Background(), testLocation(t), store.Options{Library: name, Info: store.Info{Embedder: "test", Dimension: 8}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(18, 19))
	var puts []store.Put
	for i := range 1000 {
		puts = append(puts, makePut(rng, fmt.Sprintf("crash%04d", i), 100, 8))
	}
	err = s.Update(context.Background(), puts, []string{"old"})
	t.Fatalf("update finished before the kill: %v", err)
}

// TestCrashMidCopy kills a process in the middle of its COPY: the library
// holds what it held before, whole.
func TestCrashMidCopy(t *testing.T) {
	s := openTest(t, 8)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(20, 21))
	mustUpdate(t, s, []store.Put{makePut(rng, "old", 7, 8), makePut(rng, "other", 3, 8)}, nil)

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), crashEnv+"="+s.name)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForCopy(t, s)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if strings.Contains(out.String(), "finished before the kill") {
		t.Fatalf("the child was not killed in time:\n%s", out)
	}
	// The server notices the dead client and rolls back; wait for that.
	for range 600 {
		var n int
		err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'copy%'||$1||'%' AND state <> 'idle'`, s.chunks).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || checkWhole(t, s) != 10 {
		t.Fatalf("after the kill: %d documents, want the 2 from before", len(docs))
	}
	// The library is writable again at once: the lock died with the child.
	mustUpdate(t, s, nil, []string{"old"})
}
