package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// TestAskFailOnUnsupported: a model that cites a passage for a claim it
// does not make fails ask --fail-on-unsupported (status 1, the footnote
// named); the same answer citing the right passage passes; the text marks
// the unsupported footnote either way.
func TestAskFailOnUnsupported(t *testing.T) {
	docs := askEnv(t)
	if code, out, errs := runCmd(t, "add", docs); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	for _, c := range []struct {
		name, reply string
		code        int
	}{
		// source_1 is the tides note (the question's best match).
		{"wrong passage", "Wild yeast makes sourdough bread rise [source_1].", exitError},
		{"right passage", "The Moon's gravity raises two tidal bulges [source_1].", exitOK},
	} {
		srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(c.reply, 4)})
		code, out, errs := runCmd(t, "ask", "--base-url", srv.BaseURL(), "--model", "fake-model", "--fail-on-unsupported",
			"what raises the tides on the Moon's side?")
		srv.Close()
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", c.name, code, c.code, out, errs)
		}
		marked := strings.Contains(out, "[1] Unsupported: the passage does not say this.")
		if marked != (c.code != 0) {
			t.Errorf("%s: marked %v:\n%s", c.name, marked, out)
		}
		if c.code != 0 && !strings.Contains(errs, "footnote [1] is not supported by the passage cited (--fail-on-unsupported)") {
			t.Errorf("%s: stderr %q", c.name, errs)
		}
	}
}

// TestVerifyCatchesEditsAndRemovals: an answer saved by ask verifies as it
// is; after its document is edited and added again, verify reports the
// change; after it is removed, the removal; both with status 1. A file
// that is not an answer, and an unknown conversation, are status 2.
func TestVerifyCatchesEditsAndRemovals(t *testing.T) {
	docs := askEnv(t)
	if code, out, errs := runCmd(t, "add", docs); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	code, out, errs := runCmd(t, "ask", "--format", "ndjson", "what raises the tides?")
	if code != 0 {
		t.Fatalf("ask: %d %s", code, errs)
	}
	if !strings.Contains(out, `"segment_hash":"`) || !strings.Contains(out, `"type":"support"`) {
		t.Fatalf("the saved answer lacks hashes or verdicts:\n%s", out)
	}
	out0 := out
	answer := filepath.Join(t.TempDir(), "answer.ndjson")
	if err := os.WriteFile(answer, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCmd(t, "verify", answer)
	if code != 0 || !strings.Contains(out, "[1] ok: unchanged, supported") {
		t.Fatalf("verify of a fresh answer: exit %d\n%s\n%s", code, out, errs)
	}
	// The same answer saved as a conversation: by id, and as the latest.
	saved, err := rag.ReadAnswers(strings.NewReader(out0))
	if err != nil {
		t.Fatal(err)
	}
	conv := rag.NewConversation("default")
	conv.Turns = append(conv.Turns, rag.Turn{Question: "what raises the tides?", Events: saved[0].Events})
	dir, err := rag.ConversationsDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := conv.Save(dir); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{conv.ID, "latest"} {
		code, out, errs = runCmd(t, "verify", id)
		if code != 0 || !strings.Contains(out, id+", answer 1 (what raises the tides?) [1] ok") {
			t.Errorf("verify %s: exit %d\n%s\n%s", id, code, out, errs)
		}
	}

	tides := filepath.Join(docs, "tides.md")
	if err := os.WriteFile(tides, []byte("# Tides\n\nTides are caused by the wind alone, says this edited note.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd(t, "add", tides); code != 0 {
		t.Fatalf("add again: %s", errs)
	}
	code, out, errs = runCmd(t, "verify", answer)
	if code != exitError || !strings.Contains(out, "[1] changed: "+tides+" changed since the answer") || !strings.Contains(errs, "1 of 1 footnotes need a look") {
		t.Errorf("verify after an edit: exit %d\n%s\n%s", code, out, errs)
	}

	if code, _, errs := runCmd(t, "rm", tides); code != 0 {
		t.Fatalf("rm: %s", errs)
	}
	code, out, _ = runCmd(t, "verify", "--format", "ndjson", answer)
	var f map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &f); err != nil {
		t.Fatalf("ndjson %q: %v", out, err)
	}
	if code != exitError || f["status"] != "deleted" || f["display_number"] != float64(1) || f["input"] != answer {
		t.Errorf("verify after removal: exit %d, %v", code, f)
	}

	for _, bad := range []string{filepath.Join(docs, "bread.txt"), "no-such-conversation", filepath.Join(docs, "missing.ndjson")} {
		if code, _, errs := runCmd(t, "verify", bad); code != exitBadInput || !strings.Contains(errs, "verify: ") {
			t.Errorf("verify %s: exit %d, %q", bad, code, errs)
		}
	}
}
