package ui

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/ui/backend"
)

// realAnswer cites three offered passages and one never offered; the
// server splits it into 3-byte chunks, so every token is cut across
// chunks.
const realAnswer = "## Summary\n\nFootnotes are numbered by first appearance [source_2] and never change [source_2][source_1].\n\n" +
	"- Restart per answer [source_3].\n- Unknown ids are marked [source_99].\n\nDone [source_1]."

// realEnv is a library over pages of the project's docs/ in a temporary data
// directory and a model served by llmtest; the subtests of
// TestRealPipeline share it (adding documents is the slow part), and the
// welcome suggestions of its library, which no subtest changes: the first
// chat opened computes them (rag.Suggest asks 24 questions, about a second
// under -race), the others offer the same.
type realEnv struct {
	lib *library.Library
	srv *llmtest.Server
	m   *llm.Model

	mu          sync.Mutex
	suggestions map[int][]string // by how many were asked
}

func (e *realEnv) backend(reply llmtest.Reply, opt rag.PipelineOptions) backend.Backend {
	e.srv.SetReplies(reply)
	return e.chat(backend.NewRAG(e.lib, rag.ModelAnswerer(e.m), opt, nil, nil))
}

// chat is b with the library's suggestions computed once for all chats.
func (e *realEnv) chat(b *backend.RAG) backend.Backend { return sharedSuggestions{b, e} }

// sharedSuggestions is a real backend whose Suggestions are its
// environment's, asked of the library the first time only.
type sharedSuggestions struct {
	*backend.RAG
	env *realEnv
}

func (s sharedSuggestions) Suggestions(n int) []string {
	s.env.mu.Lock()
	defer s.env.mu.Unlock()
	if q, ok := s.env.suggestions[n]; ok {
		return q
	}
	if s.env.suggestions == nil {
		s.env.suggestions = map[int][]string{}
	}
	s.env.suggestions[n] = s.RAG.Suggestions(n)
	return s.env.suggestions[n]
}

// realDocs are the pages of docs/ that TestRealPipeline's library holds.
var realDocs = []string{"../docs/citations.md", "../docs/answers.md", "../docs/tui.md"}

func TestRealPipeline(t *testing.T) {
	for _, p := range realDocs {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("TestRealPipeline's library: %v", err)
		}
	}
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", pdftest.CacheHome(t)) // pdfium compiled once, not per test
	ctx := context.Background()
	lib, err := library.Open(ctx, library.Options{Name: "uitest"})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	// the three pages on numbering and the chat: what the subtests ask about
	// (all of docs/ is five times the text, and its ingest was a tenth of
	// the package's CPU under -race)
	if _, err := lib.Add(ctx, realDocs, func(library.AddProgress) {}); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New()
	defer srv.Close()
	m, err := llm.Connect(ctx, llm.ModelConfig{Config: llm.Config{BaseURL: srv.BaseURL()}, NoOllama: true})
	if err != nil {
		t.Fatal(err)
	}
	env := &realEnv{lib: lib, srv: srv, m: m}
	t.Run("flow", func(t *testing.T) { testRealFlow(t, env) })
	t.Run("cancel", func(t *testing.T) { testRealCancel(t, env) })
	t.Run("conversation numbering", func(t *testing.T) { testRealConversationNumbering(t, env) })
}

func testRealFlow(t *testing.T, env *realEnv) {
	b := env.backend(llmtest.Reply{Chunks: llmtest.Split(realAnswer, 3), Delay: 2 * time.Millisecond}, rag.PipelineOptions{})
	lib, m := env.lib, env.m
	tm := newTM(t, b, 160, 48)
	tm.Type("how are footnotes numbered?")
	tm.Send(press("enter"))
	waitScreen(t, tm, "Done [2]", "Sources (3)", "[?]")
	tm.Send(press("tab"))
	tm.Send(press("]"))
	tm.Send(press("]"))
	tm.Send(press("enter"))
	scr := waitScreen(t, tm, "segment ")
	tm.Send(press("esc"))
	tm.Send(press("ctrl+c"))
	fm := final(t, tm)

	tu := fm.tr.turns[0]
	var nums []int
	for _, n := range tu.doc.nodes {
		nums = append(nums, n.num)
	}
	if want := []int{1, 1, 2, 3, 0, 2}; !equalInts(nums, want) {
		t.Errorf("node numbers %v, want %v", nums, want)
	}
	// node 1 is the second [1]: the viewer shows source 1's passage
	seg, _, err := lib.Segment(context.Background(), tu.sources[0].SegmentID)
	if err != nil {
		t.Fatalf("segment %s not in the library", tu.sources[0].SegmentID)
	}
	first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(seg.Text), "\n", 2)[0])
	if !strings.Contains(scr, first) || !strings.Contains(scr, "segment ") {
		t.Errorf("viewer does not show the cited passage %q:\n%s", first, scr)
	}

	// saved, and a resumed conversation draws the same numbers
	dir, err := rag.ConversationsDir()
	if err != nil {
		t.Fatal(err)
	}
	conv, err := rag.LoadConversation(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	rb := env.chat(backend.NewRAG(lib, rag.ModelAnswerer(m), rag.PipelineOptions{}, conv, nil))
	d := newDrive(t, rb, 160, 48)
	var again []int
	for _, n := range d.m.tr.turns[0].doc.nodes {
		again = append(again, n.num)
	}
	if !equalInts(again, nums) {
		t.Errorf("resumed numbers %v, want %v", again, nums)
	}
	if !strings.Contains(d.screen(), "Done [2]") {
		t.Errorf("resumed screen:\n%s", d.screen())
	}
}

func testRealCancel(t *testing.T, env *realEnv) {
	b := env.backend(llmtest.Reply{Chunks: llmtest.Split(realAnswer[:80], 3), Hang: true}, rag.PipelineOptions{})
	tm := newTM(t, b, 80, 24)
	tm.Type("how are footnotes numbered?")
	tm.Send(press("enter"))
	// The cancel comes after the first citation is drawn: on a busy
	// machine "Summary" shows chunks before it, and a cancel then left
	// no source to count.
	waitScreen(t, tm, "Summary", "answering", "[1]")
	tm.Send(press("ctrl+c"))
	waitScreen(t, tm, "interrupted")
	tm.Send(tea.WindowSizeMsg{Width: 160, Height: 48})
	waitScreen(t, tm, "Sources (1)", "interrupted")
	tm.Send(press("ctrl+c"))
	fm := final(t, tm)
	if tu := fm.tr.turns[0]; !tu.interrupted || tu.streaming {
		t.Errorf("turn interrupted=%v streaming=%v", tu.interrupted, tu.streaming)
	}
}

func testRealConversationNumbering(t *testing.T, env *realEnv) {
	for _, c := range []struct {
		numbering rag.Numbering
		want      []int
	}{{rag.NumberingConversation, []int{3, 2, 4}}, {rag.NumberingAnswer, []int{1, 2, 3}}} {
		t.Run(c.numbering.String(), func(t *testing.T) {
			env.srv.SetReplies(llmtest.Reply{Chunks: llmtest.Split(realAnswer, 5)},
				llmtest.Reply{Chunks: llmtest.Split("Again [source_3] and [source_1], and new [source_4].", 4)})
			b := env.chat(backend.NewRAG(env.lib, rag.ModelAnswerer(env.m), rag.PipelineOptions{Numbering: c.numbering}, nil, nil))
			d := newDrive(t, b, 120, 40)
			d.typeText("how are footnotes numbered?")
			d.send(press("enter"))
			d.typeText("and how are citation numbers kept?")
			d.send(press("enter"))
			if len(d.m.tr.turns) != 2 {
				t.Fatalf("%d turns", len(d.m.tr.turns))
			}
			var got []int
			for _, n := range d.m.tr.turns[1].doc.nodes {
				got = append(got, n.num)
			}
			if !equalInts(got, c.want) {
				t.Errorf("second answer's numbers %v, want %v", got, c.want)
			}
		})
	}
}
