package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

func TestAddStrategyRecordedAndRefused(t *testing.T) {
	docs := cmdEnv(t)
	if code, _, errs := runCmd(t, "add", "--library", "h", "--strategy", "hierarchical", docs); code != 0 {
		t.Fatalf("add --strategy hierarchical: exit %d: %s", code, errs)
	}
	if _, out, _ := runCmd(t, "ls", "--library", "h"); !strings.Contains(out, "strategy hierarchical") {
		t.Errorf("ls does not show the strategy:\n%s", out)
	}
	// Another strategy is refused with the command that re-indexes.
	code, _, errs := runCmd(t, "add", "--library", "h", "--strategy", "semantic", docs)
	if code == 0 || !strings.Contains(errs, "--strategy semantic --reindex") || !strings.Contains(errs, "hierarchical") {
		t.Fatalf("other strategy: exit %d, %q; want a refusal naming the re-index command", code, errs)
	}
	code, out, errs := runCmd(t, "add", "--library", "h", "--strategy", "semantic", "--reindex")
	if code != 0 || !strings.Contains(out, "2 re-indexed") {
		t.Fatalf("--reindex: exit %d\n%s%s", code, out, errs)
	}
	if _, out, _ := runCmd(t, "ls", "--library", "h"); !strings.Contains(out, "strategy semantic") {
		t.Errorf("ls after the re-index:\n%s", out)
	}
	if code, _, errs := runCmd(t, "add", "--strategy", "sematic", docs); code == 0 || !strings.Contains(errs, "window-summary") {
		t.Errorf("unknown strategy: exit %d, %q", code, errs)
	}
	if code, _, errs := runCmd(t, "add", "--reindex"); code == 0 || !strings.Contains(errs, "--strategy") {
		t.Errorf("--reindex without --strategy: exit %d, %q", code, errs)
	}
}

func TestAddStrategyNeedsModel(t *testing.T) {
	docs := cmdEnv(t)
	t.Setenv("IBID_NO_OLLAMA", "1")
	t.Setenv("OPENAI_BASE_URL", "")
	code, _, errs := runCmd(t, "add", "--library", "c", "--strategy", "contextual", docs)
	if code == 0 || !strings.Contains(errs, "needs a chat model") || !strings.Contains(errs, "--base-url") {
		t.Fatalf("contextual without a model: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_DATA_HOME"), "ibid", "libraries", "c")); !os.IsNotExist(err) {
		t.Errorf("the refused add created the library (%v)", err)
	}
}

func TestAddContextualWithModel(t *testing.T) {
	docs := cmdEnv(t)
	t.Setenv("IBID_NO_OLLAMA", "1")
	srv := llmtest.New()
	defer srv.Close()
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: []string{"zeppelin almanac entry"}, Usage: &llmtest.Usage{Prompt: 100, Completion: 4}}
	})
	args := []string{"add", "--library", "c", "--strategy", "contextual", "--base-url", srv.BaseURL(), "--model", "fake-model", docs}
	code, out, errs := runCmd(t, args...)
	if code != 0 || !strings.Contains(out, "enrichment: 2 calls, 0 cache hits") {
		t.Fatalf("contextual add: exit %d\n%s%s", code, out, errs)
	}
	// The same files in another library pay nothing: the model's work is
	// cached.
	args[2] = "c2"
	code, out, errs = runCmd(t, args...)
	if code != 0 || !strings.Contains(out, "enrichment: 0 calls, 2 cache hits") {
		t.Fatalf("second add: exit %d\n%s%s", code, out, errs)
	}
	// Nothing to re-index is not an error.
	if code, out, errs := runCmd(t, "add", "--library", "c", "--strategy", "contextual", "--reindex", "--base-url", srv.BaseURL(), "--model", "fake-model"); code != 0 {
		t.Fatalf("re-index of an up-to-date library: exit %d\n%s%s", code, out, errs)
	}
	// The generated context finds the passage, is shown by --explain, and
	// is never the passage's text.
	code, out, errs = runCmd(t, "search", "--library", "c", "--explain", "--base-url", srv.BaseURL(), "zeppelin almanac")
	if code != 0 || !strings.Contains(out, "indexed as: zeppelin almanac entry") {
		t.Fatalf("search --explain: exit %d\n%s%s", code, out, errs)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "zeppelin") && !strings.Contains(l, "indexed as:") {
			t.Errorf("generated text shown as the passage: %q", l)
		}
	}
}

func TestAddQuestionsFindsTheChunk(t *testing.T) {
	docs := cmdEnv(t)
	t.Setenv("IBID_NO_OLLAMA", "1")
	srv := llmtest.New()
	defer srv.Close()
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		msgs := r.Chat()
		if strings.Contains(msgs[len(msgs)-1].Content, "Moon") {
			return llmtest.Reply{Chunks: []string{"1. Why do oceans bulge twice a day?\n2. When are the highest tides?\n3. What pulls the sea?"}}
		}
		return llmtest.Reply{Chunks: []string{"- What makes dough rise?\n- Which microbes ferment sourdough?\n- Why is sourdough sour?"}}
	})
	code, out, errs := runCmd(t, "add", "--library", "q", "--strategy", "questions", "--base-url", srv.BaseURL(), "--model", "fake-model", docs)
	if code != 0 || !strings.Contains(out, "enrichment: 2 calls") {
		t.Fatalf("questions add: exit %d\n%s%s", code, out, errs)
	}
	// "bulge twice" is only in a generated question: it finds its chunk,
	// once, shown with its own text.
	code, out, errs = runCmd(t, "search", "--library", "q", "--explain", "-k", "3", "--base-url", srv.BaseURL(), "oceans bulge twice a day")
	if code != 0 || !strings.Contains(out, "matched question: Why do oceans bulge twice a day?") {
		t.Fatalf("search --explain: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "matched: the passage's own text") {
		t.Errorf("the chunk's own row is not explained as such:\n%s", out)
	}
	if n := strings.Count(out, "tides.md"); n != 1 {
		t.Errorf("the tides chunk came back %d times, want once:\n%s", n, out)
	}
	first := strings.SplitN(out, "\n", 4)
	if !strings.Contains(first[0], "Tides") || strings.Contains(first[2], "oceans") {
		t.Errorf("first passage is not the tides chunk with its own text:\n%s", out)
	}
}

// A model that fails for good (here its key is refused while the second
// file is enriched) stops the add at once, with the document before it
// added and the way to go on; the same add, once the model answers, adds
// the rest and pays nothing twice.
func TestAddStopsOnFailingModel(t *testing.T) {
	docs := cmdEnv(t)
	t.Setenv("IBID_NO_OLLAMA", "1")
	srv := llmtest.New()
	defer srv.Close()
	var refuse atomic.Bool
	refuse.Store(true)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		msgs := r.Chat()
		if refuse.Load() && strings.Contains(msgs[len(msgs)-1].Content, "Moon") {
			return llmtest.Reply{Status: 401}
		}
		return llmtest.Reply{Chunks: []string{"zeppelin almanac entry"}}
	})
	args := []string{"add", "--library", "c", "--strategy", "contextual", "--base-url", srv.BaseURL(), "--model", "fake-model", docs}
	code, out, errs := runCmd(t, args...)
	if code == 0 || !strings.Contains(out, "1 added") || !strings.Contains(errs, "not asked again") ||
		!strings.Contains(errs, "run the same ibid add") || strings.Contains(out, "not enriched") {
		t.Fatalf("add with a failing model: exit %d\n%s%s", code, out, errs)
	}
	refuse.Store(false)
	code, out, errs = runCmd(t, args...)
	if code != 0 || !strings.Contains(out, "1 added, 1 unchanged") || !strings.Contains(out, "enrichment: 1 call, 0 cache hits") {
		t.Fatalf("the same add again: exit %d\n%s%s", code, out, errs)
	}
}
