package embedded

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// TestDefaultLocation: the empty location keeps libraries in the XDG data
// folder, one subfolder each.
func TestDefaultLocation(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	ctx := context.Background()
	st, err := store.Open(ctx, "", store.Options{Library: "papers", Info: testInfo, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	put(t, st.(*Store), "a", 2, 1)
	st.Close()
	dir := filepath.Join(data, "ibid", "libraries", "papers")
	if _, err := os.Stat(filepath.Join(dir, manifestName)); err != nil {
		t.Fatalf("library not in %s: %v", dir, err)
	}
	libs, err := store.Libraries(ctx, "")
	if err != nil || len(libs) != 1 || libs[0].Name != "papers" || libs[0].Segments != 2 {
		t.Fatalf("Libraries(\"\") = %+v, %v", libs, err)
	}
	s, err := OpenDir(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkDoc(t, s, "a", 2, 1)
}

// TestDropLeftover: a Drop killed after its rename leaves a renamed folder;
// the library is gone, and the next listing removes the leftover.
func TestDropLeftover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	loc := t.TempDir()
	st, err := store.Open(ctx, loc, store.Options{Library: "x", Info: testInfo, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	put(t, st.(*Store), "a", 2, 1)
	st.Close()
	leftover := filepath.Join(loc, droppedPrefix+"x-123")
	if err := os.Rename(filepath.Join(loc, "x"), leftover); err != nil {
		t.Fatal(err)
	}
	libs, err := store.Libraries(ctx, loc)
	if err != nil || len(libs) != 0 {
		t.Fatalf("Libraries = %+v, %v", libs, err)
	}
	if _, err := os.Stat(leftover); err == nil {
		t.Fatal("the leftover of an interrupted Drop was not removed")
	}
	_, err = store.Open(ctx, loc, store.Options{Library: "x", Info: testInfo})
	wantErr(t, err, store.ErrNoLibrary)
}

// TestMemoryLocation: "memory:" opens a new, empty store each time.
func TestMemoryLocation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, "memory:", store.Options{Info: testInfo, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	put(t, st.(*Store), "a", 2, 1)
	checkDoc(t, st.(*Store), "a", 2, 1)
	st.Close()
	st, err = store.Open(ctx, "memory:", store.Options{Info: testInfo, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, _ := st.Len(ctx); n != 0 {
		t.Fatalf("a new memory store holds %d segments", n)
	}
	_, err = store.Open(ctx, "memory:", store.Options{})
	wantErr(t, err, store.ErrNoLibrary)
}

// TestDroppedAndCreatedAgain: a store open on a library that another
// process drops and creates again (same name, same embedder) follows the
// new library, whatever the sizes of the two logs.
func TestDroppedAndCreatedAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	loc := t.TempDir()
	open := func() *Store { return openLibraryX(t, loc) }
	old := open()
	defer old.Close()
	put(t, old, "a", 2, 1)
	if err := store.Drop(ctx, loc, "x"); err != nil {
		t.Fatal(err)
	}
	fresh := open()
	defer fresh.Close()
	put(t, fresh, "b", 30, 1) // a longer log than the old one
	sameDocs(t, old, map[string][2]int{"b": {30, 1}})
	if err := old.Damage(); err != nil {
		t.Fatal(err)
	}
}

// TestWriterAfterDropAndCreate: a writer whose library was dropped and
// created again since it last wrote writes into the new library, under the
// new library's lock, not into the dropped folder.
func TestWriterAfterDropAndCreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	loc := t.TempDir()
	open := func() *Store { return openLibraryX(t, loc) }
	old := open()
	defer old.Close()
	put(t, old, "a", 2, 1)
	if err := store.Drop(ctx, loc, "x"); err != nil {
		t.Fatal(err)
	}
	if err := old.Update(ctx, []store.Put{putOf("lost", 1, 1)}, nil); err == nil {
		t.Fatal("a write to a dropped library succeeded")
	}
	fresh := open()
	defer fresh.Close()
	put(t, fresh, "b", 3, 1)
	put(t, old, "c", 1, 1)
	sameDocs(t, fresh, map[string][2]int{"b": {3, 1}, "c": {1, 1}})
	if old.disk.dirSeen == nil || !sameFolder(t, old.disk.dirSeen, filepath.Join(loc, "x")) {
		t.Fatal("the writer did not move to the new folder")
	}
}

func sameFolder(t *testing.T, fi os.FileInfo, path string) bool {
	t.Helper()
	now, err := os.Stat(path)
	return err == nil && os.SameFile(fi, now)
}

// TestLibrariesWithDamage: a library whose manifest cannot be read is
// listed (with a zero Info) beside the others, not an error for all.
func TestLibrariesWithDamage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	loc := t.TempDir()
	for _, name := range []string{"good", "bad"} {
		st, err := store.Open(ctx, loc, store.Options{Library: name, Info: testInfo, Create: true})
		if err != nil {
			t.Fatal(err)
		}
		put(t, st.(*Store), "a", 2, 1)
		st.Close()
	}
	if err := os.WriteFile(filepath.Join(loc, "bad", manifestName), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	libs, err := store.Libraries(ctx, loc)
	if err != nil || len(libs) != 2 || libs[0].Name != "bad" || libs[0].Info != (store.Info{}) ||
		libs[1].Name != "good" || libs[1].Segments != 2 {
		t.Fatalf("Libraries = %+v, %v", libs, err)
	}
	// Without its manifest at all, it is listed still, for doctor.
	if err := os.Remove(filepath.Join(loc, "bad", manifestName)); err != nil {
		t.Fatal(err)
	}
	if libs, err := store.Libraries(ctx, loc); err != nil || len(libs) != 2 || libs[0].Name != "bad" {
		t.Fatalf("Libraries without a manifest = %+v, %v", libs, err)
	}
}

// openLibraryX opens (creating) the library "x" at loc through store.Open.
func openLibraryX(t *testing.T, loc string) *Store {
	t.Helper()
	st, err := store.Open(context.Background(), loc, store.Options{Library: "x", Info: testInfo, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	return st.(*Store)
}
