package rag

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

// answered returns a conversation with two answered turns, numbered by
// conversation.
func answered(t *testing.T) *Conversation {
	t.Helper()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"A [source_1] B [source_2]."}}, llmtest.Reply{Chunks: []string{"C [source_2] D [source_3]."}})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{Numbering: NumberingConversation})
	conv := NewConversation("papers")
	for _, q := range []string{"honey bees almond mites", "honey bees almond mites gulf stream"} {
		if _, err := collect(t, p, conv, q); err != nil {
			t.Fatal(err)
		}
	}
	return conv
}

func TestSaveAndLoadConversation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "conversations") // created by Save
	if err := NewConversation("papers").Save(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty conversation was saved: %v", err)
	}
	conv := answered(t)
	if err := conv.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadConversation(dir, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if back.Markdown() != conv.Markdown() || back.Library != "papers" || len(back.Turns) != 2 {
		t.Errorf("loaded conversation differs:\n%s\n---\n%s", back.Markdown(), conv.Markdown())
	}
	// The registry came back: the next answer goes on numbering.
	if back.Registry == nil || back.Registry.Len() != 3 {
		t.Errorf("registry %+v", back.Registry)
	}
	// Saving again replaces the file and leaves nothing else behind.
	if err := back.Save(dir); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != conv.ID+".json" {
		t.Errorf("folder holds %v", ents)
	}
}

func TestLoadConversationErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadConversation(dir, ""); err == nil || !strings.Contains(err.Error(), "ask a question first") {
		t.Errorf("empty folder: %v", err)
	}
	if _, err := LoadConversation(dir, "0123abcd"); err == nil || !strings.Contains(err.Error(), `no saved conversation "0123abcd"`) ||
		!strings.Contains(err.Error(), "none yet") {
		t.Errorf("unknown id in an empty folder: %v", err)
	}
	conv := answered(t)
	if err := conv.Save(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConversation(dir, "0123abcd"); err == nil || !strings.Contains(err.Error(), conv.ID) {
		t.Errorf("unknown id does not name the saved ones: %v", err)
	}
	for _, bad := range []string{"../x", "a/b", "x.json", strings.Repeat("a", 200)} {
		if _, err := LoadConversation(dir, bad); err == nil || !strings.Contains(err.Error(), "is not a conversation id") {
			t.Errorf("id %q: %v", bad, err)
		}
	}
	// A damaged file is reported, listed, and left alone.
	damaged := filepath.Join(dir, "deadbeef.json")
	garbage := []byte(`{"id": "deadbeef", "turns": [`)
	os.WriteFile(damaged, garbage, 0o644)
	if _, err := LoadConversation(dir, "deadbeef"); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Errorf("damaged: %v", err)
	}
	if data, _ := os.ReadFile(damaged); string(data) != string(garbage) {
		t.Errorf("damaged file changed")
	}
	// The most recent readable conversation is picked when no id is given.
	future := time.Now().Add(time.Hour)
	os.Chtimes(damaged, future, future)
	got, err := LoadConversation(dir, "")
	if err != nil || got.ID != conv.ID {
		t.Errorf("latest: %v, %v", got, err)
	}
	// A file renamed by hand is refused with the way back.
	data, _ := os.ReadFile(filepath.Join(dir, conv.ID+".json"))
	os.WriteFile(filepath.Join(dir, "renamed.json"), data, 0o644)
	if _, err := LoadConversation(dir, "renamed"); err == nil || !strings.Contains(err.Error(), "rename it back to "+conv.ID+".json") {
		t.Errorf("renamed: %v", err)
	}
}

func TestListConversations(t *testing.T) {
	dir := t.TempDir()
	if list, err := ListConversations(filepath.Join(dir, "none")); err != nil || len(list) != 0 {
		t.Errorf("missing folder: %v, %v", list, err)
	}
	a, b := answered(t), answered(t)
	for _, c := range []*Conversation{a, b} {
		if err := c.Save(dir); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, a.ID+".json"), old, old)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	list, err := ListConversations(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != "bad" && list[0].ID != b.ID || list[2].ID != a.ID {
		t.Fatalf("list %+v", list)
	}
	for _, s := range list {
		switch s.ID {
		case "bad":
			if s.Err == nil {
				t.Errorf("damaged file listed without its error")
			}
		default:
			if s.Err != nil || s.Turns != 2 || s.Library != "papers" || s.First != "honey bees almond mites" || s.Created.IsZero() {
				t.Errorf("entry %+v", s)
			}
		}
	}
}

func TestConversationsDirFollowsXDG(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	d, err := ConversationsDir()
	if err != nil || d != filepath.Join(data, "ibid", "conversations") {
		t.Errorf("ConversationsDir = %q, %v", d, err)
	}
}

// TestSaveWhileAnswering is the regression test of a race: with numbering
// by conversation, a background save marshalled the citation registry
// while the next answer assigned numbers. Run with -race.
func TestSaveWhileAnswering(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split("A [source_1] B [source_2] C [source_3] D [source_4].", 3)})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{Numbering: NumberingConversation})
	conv := NewConversation("t")
	dir := t.TempDir()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var saves int
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := conv.Save(dir); err != nil {
				t.Error(err)
				return
			}
			if _, err := json.Marshal(conv.Snapshot()); err != nil {
				t.Error(err)
				return
			}
			saves++
		}
	}()
	questions := []string{"honey bees almond", "gulf stream ocean currents", "mites colonies pollen", "honey bees ocean climate"}
	for _, q := range questions {
		if _, err := collect(t, p, conv, q); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if saves == 0 {
		t.Fatal("no save ran alongside the answers")
	}
	if err := conv.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadConversation(dir, conv.ID)
	if err != nil || len(back.Turns) != len(questions) || back.Registry.Len() != conv.Registry.Len() {
		t.Fatalf("saved %+v, %v", back, err)
	}
}

// TestSnapshotDoesNotWaitForAnswer: reading a conversation while an answer
// streams returns at once, without the unfinished turn.
func TestSnapshotDoesNotWaitForAnswer(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Bees [source_1]", " pollinate."}, Hang: true})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
	conv := NewConversation("t")
	ctx, cancel := context.WithCancel(context.Background())
	streaming := make(chan struct{})
	done := make(chan error)
	go func() {
		var once sync.Once
		done <- p.Answer(ctx, conv, "honey bees", func(e Event) {
			if e.Type == EventText && strings.Contains(e.Text, "pollinate") {
				once.Do(func() { close(streaming) })
			}
		})
	}()
	<-streaming
	got := make(chan *Conversation)
	go func() { got <- conv.Snapshot() }()
	select {
	case snap := <-got:
		if len(snap.Turns) != 0 {
			t.Errorf("snapshot holds a turn still being answered: %+v", snap.Turns)
		}
	case <-time.After(5 * time.Second):
		t.Error("Snapshot waited for the running answer")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("answer: %v", err)
	}
	if snap := conv.Snapshot(); len(snap.Turns) != 1 || !snap.Turns[0].Interrupted {
		t.Errorf("after the answer: %+v", snap.Turns)
	}
}
