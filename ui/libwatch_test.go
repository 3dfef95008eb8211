package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/ui/backend"
)

// TestStatusCountFollowsAnotherWriter: a second handle on the same library
// folder (as another process running ibid add would be) adds a document;
// the chat's status line shows the new count within a poll, without any
// key pressed.
func TestStatusCountFollowsAnotherWriter(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", pdftest.CacheHome(t)) // pdfium compiled once, not per test
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *library.Library {
		lib, err := library.Open(ctx, library.Options{Name: "watched", Store: filepath.Join(dir, "store")})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { lib.Close() })
		return lib
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	chatLib, other := open(), open()
	if _, err := chatLib.Add(ctx, []string{write("tides.md", "# Tides\n\nSpring tides come at new and full moon.\n")}, nil); err != nil {
		t.Fatal(err)
	}
	b := backend.NewRAG(chatLib, nil, rag.PipelineOptions{}, nil, nil)
	opt := darkOpt()
	opt.LibraryPoll = 50 * time.Millisecond
	tm := newTMOpt(t, b, opt, 120, 30)
	waitScreen(t, tm, "1 docs")

	moon := write("moon.md", "# Moon\n\nThe moon raises the tides.\n")
	if _, err := other.Add(ctx, []string{moon, write("sun.md", "# Sun\n\nThe sun raises smaller tides.\n")}, nil); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, tm, "3 docs")
	if _, err := other.Remove(ctx, moon); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, tm, "2 docs")
	tm.Send(press("ctrl+c"))
	if m := final(t, tm); m.lib.size != 2 {
		t.Errorf("the model's count is %d; want 2", m.lib.size)
	}
}

// countingBackend is a fake whose library count a test sets, and which
// says when the count cannot be read.
type countingBackend struct {
	*fakeBackend
	name string
	docs int
	err  error
}

func (b *countingBackend) LibraryCount() (string, int, error) { return b.name, b.docs, b.err }

// TestLibCountMsg: a poll changes the count only for the library shown
// and only when it was read; every poll schedules the next.
func TestLibCountMsg(t *testing.T) {
	t.Parallel()
	b := &countingBackend{fakeBackend: newFakeBackend(sampleAnswer), name: "default", docs: 3}
	m := New(b, darkOpt())
	if m.pollEvery != libPollEvery {
		t.Errorf("default poll every %v; want %v", m.pollEvery, libPollEvery)
	}
	for _, c := range []struct {
		msg  libCountMsg
		want int
	}{
		{libCountMsg{"default", 5, true}, 5},
		{libCountMsg{"default", 0, false}, 5}, // not read: kept
		{libCountMsg{"thesis", 9, true}, 5},   // a library switched away from
		{libCountMsg{"default", 4, true}, 4},
	} {
		if cmd := m.onLibCount(c.msg); cmd == nil {
			t.Errorf("%+v: no next poll", c.msg)
		}
		if m.lib.size != c.want {
			t.Errorf("%+v: size %d; want %d", c.msg, m.lib.size, c.want)
		}
	}
	// the poll reads the backend through LibraryCount
	b.err = errors.New("disk gone")
	if msg := pollLibrary(b, time.Millisecond)(); msg != (libCountMsg{"default", 3, false}) {
		t.Errorf("a failed read: %+v", msg)
	}
	if pollLibrary(b, -1) != nil {
		t.Error("a negative interval polls")
	}
	off := New(b, Options{Theme: "dark", LibraryPoll: -1})
	if cmd := off.onLibCount(libCountMsg{"default", 3, true}); cmd != nil {
		t.Error("polling off still schedules polls")
	}
}
