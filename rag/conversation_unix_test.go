//go:build unix

package rag

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe where a saved conversation belongs is refused at once by
// LoadConversation and listed as damaged by ListConversations: reading it
// used to wait for a writer for ever.
func TestConversationFIFO(t *testing.T) {
	dir := t.TempDir()
	conv := answered(t)
	if err := conv.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "feedface.json"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := LoadConversation(dir, "feedface"); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("loading a pipe: %v", err)
		}
		list, err := ListConversations(dir)
		if err != nil || len(list) != 2 {
			t.Errorf("list = %+v, %v", list, err)
		}
		for _, s := range list {
			if (s.ID == "feedface") != (s.Err != nil) {
				t.Errorf("listed %s with error %v", s.ID, s.Err)
			}
		}
		if got, err := LoadConversation(dir, ""); err != nil || got.ID != conv.ID {
			t.Errorf("latest: %v, %v", got, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("reading saved conversations hangs on a named pipe")
	}
}
