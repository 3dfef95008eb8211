package storetest

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/store"
)

// settingsOf returns st's store.Settings, failing the test when the
// backend has none (both backends of this repository keep settings).
func settingsOf(t testing.TB, st store.Store) store.Settings {
	t.Helper()
	s, ok := st.(store.Settings)
	if !ok {
		t.Fatalf("%T keeps no library settings (store.Settings)", st)
	}
	return s
}

func wantSettings(t testing.TB, step string, want map[string]string, stores ...store.Store) {
	t.Helper()
	for i, st := range stores {
		got, err := settingsOf(t, st).Settings(context.Background())
		if err != nil {
			t.Fatalf("%s: Settings (store %d): %v", step, i, err)
		}
		if !maps.Equal(got, want) {
			t.Fatalf("%s: store %d has settings %v, want %v", step, i, got, want)
		}
	}
}

// testSettings: a library keeps named values of its own (store.Settings),
// apart from its documents: puts replace, deletes remove (a missing key
// is no error, a key put and deleted at once is removed), bad keys and
// values change nothing, another store on the library sees them without
// reopening, another library never does, a reopened library keeps them,
// documents never see them, a dropped library's are gone, and a read-only
// or closed store refuses to change them.
func testSettings(t *testing.T, h Harness) {
	ctx := context.Background()
	loc := h.Location(t)
	st := open(t, loc, "lib")
	other := open(t, loc, "lib")
	s := settingsOf(t, st)
	wantSettings(t, "a new library", map[string]string{}, st, other)

	long := strings.Repeat("é", 3000) // UTF-8 over several kilobytes
	if err := s.SetSettings(ctx, map[string]string{"roots/a": `{"path":"/a"}`, "roots/b": long, "x": ""}, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"roots/a": `{"path":"/a"}`, "roots/b": long, "x": ""}
	wantSettings(t, "three put", want, st, other)

	if err := settingsOf(t, other).SetSettings(ctx, map[string]string{"roots/a": "2", "y": "new", "z": "put and deleted"},
		[]string{"x", "never-was", "z"}); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"roots/a": "2", "roots/b": long, "y": "new"}
	wantSettings(t, "replaced, added and deleted by the other store", want, st, other)

	for _, bad := range []struct {
		put map[string]string
		del []string
	}{
		{map[string]string{"ok": "1", "": "empty key"}, nil},
		{map[string]string{"ok": "1", "nul\x00key": "v"}, nil},
		{map[string]string{"ok": "1", "k": "nul\x00value"}, nil},
		{map[string]string{"ok": "1", "k": string([]byte{0xff, 0xfe})}, nil},
		{map[string]string{"ok": "1", "k": strings.Repeat("v", store.MaxSettingSize+1)}, nil},
		{map[string]string{"ok": "1", strings.Repeat("k", store.MaxSettingKey+1): "v"}, nil},
		{map[string]string{"ok": "1"}, []string{"y", ""}},
	} {
		if err := s.SetSettings(ctx, bad.put, bad.del); err == nil {
			t.Fatalf("SetSettings(%.60q, %q) was not refused", fmt.Sprint(bad.put), bad.del)
		}
	}
	wantSettings(t, "refused changes", want, st, other)

	// Settings are not documents, and documents leave them alone.
	if n, err := store.CountDocuments(ctx, st); err != nil || n != 0 {
		t.Fatalf("settings made %d documents (%v)", n, err)
	}
	update(t, st, []store.Put{doc("a", 2, 1), doc("b", 1, 1)})
	update(t, other, nil, "b")
	wantSettings(t, "after documents came and went", want, st, other)
	if docs, err := st.Documents(ctx); err != nil || len(docs) != 1 {
		t.Fatalf("Documents = %d, %v; want the one document", len(docs), err)
	}

	// Another library at the same location has its own.
	another := open(t, loc, "another")
	wantSettings(t, "another library", map[string]string{}, another)
	if err := settingsOf(t, another).SetSettings(ctx, map[string]string{"roots/a": "theirs"}, nil); err != nil {
		t.Fatal(err)
	}
	wantSettings(t, "another library's change", want, st, other)

	// Reopened, the library keeps them; read-only, it shows them and
	// refuses changes.
	st.Close()
	other.Close()
	again := open(t, loc, "lib")
	wantSettings(t, "reopened", want, again)
	r, err := store.Open(ctx, loc, store.Options{Library: "lib", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	wantSettings(t, "read-only", want, r)
	wantErr(t, settingsOf(t, r).SetSettings(ctx, map[string]string{"k": "v"}, nil), store.ErrReadOnly)
	wantSettings(t, "refused by a read-only store", want, again)

	// Closed, a store refuses.
	c := settingsOf(t, again)
	again.Close()
	_, err = c.Settings(ctx)
	wantErr(t, err, store.ErrClosed)
	wantErr(t, c.SetSettings(ctx, map[string]string{"k": "v"}, nil), store.ErrClosed)

	// Dropped and created again, the library has none.
	r.Close()
	if err := store.Drop(ctx, loc, "lib"); err != nil {
		t.Fatal(err)
	}
	wantSettings(t, "created again after a drop", map[string]string{}, open(t, loc, "lib"))
	wantSettings(t, "the other library after the drop", map[string]string{"roots/a": "theirs"}, another)
}

// settingsOp is op i of the settings kill script: keys a and b both set
// to i, key "c<i>" put and "c<i-1>" removed, in one change.
func settingsOp(ctx context.Context, s store.Settings, i int) error {
	v := strconv.Itoa(i)
	return s.SetSettings(ctx, map[string]string{"a": v, "b": v, "c" + v: strings.Repeat(v, 1+i%500)},
		[]string{"c" + strconv.Itoa(i-1)})
}

// testSettingsKill kills a process changing settings at random moments:
// the library then holds the settings of the last change reported or of
// the one in flight, whole, never a mix.
func testSettingsKill(t *testing.T, h Harness) {
	needProcesses(t, h)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	loc := h.Location(t)
	for round := range 3 {
		cmd, out := child(t, "settings", loc)
		last := -1
		stopAt := 2 + r.IntN(30)
		for last < stopAt {
			line, ok := next(t, out)
			if !ok {
				t.Fatal("the child ended before it was killed")
			}
			n, ok := strings.CutPrefix(line, "committed ")
			if !ok {
				t.Fatalf("child: %s", line)
			}
			last, _ = strconv.Atoi(n)
		}
		time.Sleep(time.Duration(r.IntN(2000)) * time.Microsecond)
		cmd.Process.Kill()
		for {
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
		got, err := settingsOf(t, st).Settings(context.Background())
		if err != nil {
			t.Fatalf("round %d: reading settings after the kill: %v", round, err)
		}
		i, err := strconv.Atoi(got["a"])
		if err != nil || got["b"] != got["a"] || (i != last && i != last+1) || len(got) != 3 ||
			got["c"+got["a"]] != strings.Repeat(got["a"], 1+i%500) {
			t.Fatalf("round %d: after a kill past change %d the settings are %.200v", round, last, got)
		}
		st.Close()
	}
}
