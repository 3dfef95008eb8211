package embedded

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/ibid-dev/ibid/internal/unprivileged"
	"github.com/ibid-dev/ibid/store"
)

// TestUpdateWaitsForLock: while another process holds the library's lock,
// Update waits; a context that ends first gets an error wrapping ErrBusy
// (and the context's error) promptly, and nothing is written.
func TestUpdateWaitsForLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	defer s.Close()
	put(t, s, "a", 1, 1)
	other := flock.New(filepath.Join(dir, lockName)) // another open file: as another process
	if err := other.Lock(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.Update(ctx, []store.Put{putOf("b", 2, 1)}, nil)
	if !errors.Is(err, store.ErrBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Update while locked: %v; want ErrBusy and DeadlineExceeded", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("a cancelled Update took %v to return", d)
	}
	if _, err := s.Document(context.Background(), "b"); err == nil {
		t.Fatal("a refused Update was written")
	}
	// Released while it waits, the Update goes through.
	go func() {
		time.Sleep(100 * time.Millisecond)
		other.Unlock()
	}()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if err := s.Update(ctx2, []store.Put{putOf("b", 2, 1)}, nil); err != nil {
		t.Fatalf("Update after the lock was released: %v", err)
	}
	checkDoc(t, s, "b", 2, 1)
}

// TestReadOnly: a store opened read-only refuses writes with ErrReadOnly,
// writes nothing, and still follows what a writer commits.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	w := mustOpen(t, dir, testInfo)
	defer w.Close()
	put(t, w, "a", 2, 1)
	r, err := OpenDir(ctx, dir, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Info() != testInfo {
		t.Fatalf("read-only Info = %v", r.Info())
	}
	wantErr(t, r.Update(ctx, []store.Put{putOf("x", 1, 1)}, nil), store.ErrReadOnly)
	wantErr(t, r.Compact(ctx), store.ErrReadOnly)
	put(t, w, "b", 3, 1)
	checkDoc(t, r, "b", 3, 1)
	checkDoc(t, r, "a", 2, 1)
	_, err = OpenDir(ctx, filepath.Join(dir, "none"), store.Options{ReadOnly: true, Create: true, Info: testInfo})
	wantErr(t, err, store.ErrNoLibrary)
}

// envUnwritable hands TestUnwritableFolder's library to the copy of the
// test that runs as an unprivileged user.
const envUnwritable = "IBID_TEST_UNWRITABLE_DIR"

// TestUnwritableFolder: a library in a folder this user cannot write opens
// read-only instead of failing. Root may write anyway, so as root (as in
// CI) the test runs its checks in a copy of itself as user nobody.
func TestUnwritableFolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := os.Getenv(envUnwritable)
	if dir == "" {
		dir = t.TempDir()
		w := mustOpen(t, dir, testInfo)
		put(t, w, "a", 2, 1)
		w.Close()
		os.Remove(filepath.Join(dir, lockName))
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		if unprivileged.Rerun(t, []string{envUnwritable + "=" + dir}, dir) {
			return
		}
	}
	s, err := OpenDir(ctx, dir, store.Options{Info: testInfo})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkDoc(t, s, "a", 2, 1)
	wantErr(t, s.Update(ctx, []store.Put{putOf("b", 1, 1)}, nil), store.ErrReadOnly)
	if _, err := os.Stat(filepath.Join(dir, lockName)); err == nil {
		t.Fatal("a read-only open created the lock file")
	}
}
