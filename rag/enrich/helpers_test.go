package enrich

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/store"
)

// fast is a retry policy that waits milliseconds.
var fast = llm.Policy{Retries: 2, Base: time.Millisecond, Max: 2 * time.Millisecond}

var loader = ingest.NewLoader("")

// paragraph is about words words of prose that name their section and
// paragraph, so each chunk's text is its own.
func paragraph(sec, par, words int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Paragraph s%dp%d opens here.", sec, par)
	for w := 4; w < words; w += 8 {
		fmt.Fprintf(&b, " The sample s%dp%d cools slowly in the chamber.", sec, par)
	}
	return b.String()
}

// document loads, with the real loader, a Markdown file of secs sections
// of pars paragraphs of words words each (a paragraph of 200 words or more
// is a chunk of its own). name tells documents apart.
func document(t testing.TB, name string, secs, pars, words int) *ingest.Loaded {
	t.Helper()
	var b strings.Builder
	for s := range secs {
		fmt.Fprintf(&b, "## %s section %d\n\n", name, s)
		for p := range pars {
			b.WriteString(paragraph(s, p, words) + "\n\n")
		}
	}
	path := filepath.Join(t.TempDir(), name+".md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := loader.Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// fake is the fake model's behaviour: it answers each kind of prompt by
// its content, with usage (a token per 4 bytes), counting as cached the
// prompt's head before the chunk or passage when a request with the same
// head came before (as a server's prefix cache would).
type fake struct {
	mu       sync.Mutex
	prefixes map[string]bool
	// fail, when it returns a reply, answers instead.
	fail func(user string) *llmtest.Reply
}

func newFake() *fake { return &fake{prefixes: map[string]bool{}} }

func (f *fake) reply(req llmtest.Request) llmtest.Reply {
	msgs := req.Chat()
	user := msgs[len(msgs)-1].Content
	if f.fail != nil {
		if r := f.fail(user); r != nil {
			return *r
		}
	}
	var text string
	switch {
	case strings.Contains(user, "<chunk>"):
		text = "Context of " + firstWords(between(user, "<chunk>\n", "\n</chunk>"))
	case strings.Contains(user, "<section_summaries>"):
		text = "Document summary."
	case strings.Contains(user, "<section title="):
		text = "Summary of " + between(user, "<section title=\"", "\"")
	case strings.Contains(user, "<previous_summary>"):
		text = "Summary of " + firstWords(between(user, "<passage>\n", "\n</passage>"))
	case strings.Contains(user, "questions"):
		w := firstWords(between(user, "<passage>\n", "\n</passage>"))
		text = "Here are the questions:\n1. What does " + w + " say?\n2) Why does " + w + " cool?\n- How slowly does " + w + " cool?"
	default:
		text = "?"
	}
	prompt := 0
	for _, m := range msgs {
		prompt += len(m.Content)/4 + 4
	}
	head := user
	for _, mark := range []string{"Here is the chunk", "<passage>"} {
		if i := strings.Index(head, mark); i >= 0 {
			head = head[:i]
		}
	}
	head = msgs[0].Content + head
	f.mu.Lock()
	cached := 0
	if f.prefixes[head] {
		cached = len(head) / 4
	}
	f.prefixes[head] = true
	f.mu.Unlock()
	return llmtest.Reply{Chunks: []string{text}, Usage: &llmtest.Usage{Prompt: prompt, Completion: len(text) / 4, Cached: cached}}
}

// between is the text of s between the first start and the next end.
func between(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	s = s[i+len(start):]
	if j := strings.Index(s, end); j >= 0 {
		s = s[:j]
	}
	return s
}

// firstWords is the second word of s, which names a chunk's section and
// paragraph ("s1p0").
func firstWords(s string) string {
	f := strings.Fields(s)
	if len(f) < 2 {
		return s
	}
	return f[1]
}

// server starts the fake model.
func server(t testing.TB, f *fake) (*llmtest.Server, *llm.Model) {
	t.Helper()
	srv := llmtest.New()
	t.Cleanup(srv.Close)
	srv.Handle(f.reply)
	return srv, modelNamed(srv, "fake-model")
}

// modelNamed is the model called name on srv, with the fast policy.
func modelNamed(srv *llmtest.Server, name string) *llm.Model {
	return llm.NewModel(llm.New(llm.Config{BaseURL: srv.BaseURL(), Policy: fast}), name)
}

// chats is the messages of the server's chat requests.
func chats(srv *llmtest.Server) [][]llmtest.Message {
	var out [][]llmtest.Message
	for _, r := range srv.Requests() {
		out = append(out, r.Chat())
	}
	return out
}

// texts is the Text of every segment.
func texts(segs []store.Segment) []string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = s.Text
	}
	return out
}
