package headless

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

// nodeOpenAI is the folder of the official openai npm package the Node
// test uses (pinned in its package.json and package-lock.json).
const nodeOpenAI = "testdata/openai-node"

// TestChatCompletionNodeClient asks ibid serve with the official Node
// openai package, streaming and not, lists the models, and reads an
// error. It needs node; the package is installed from the lock file
// (npm ci) on first use, and the test skips when it cannot be (no npm, no
// network). .ci/run installs it.
func TestChatCompletionNodeClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(nodeOpenAI, "node_modules", "openai", "package.json")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Skip("the openai package is not installed and there is no npm to install it")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = nodeOpenAI
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("couldn't install the openai package (npm ci in %s): %v\n%s", nodeOpenAI, err, out)
		}
	}
	model := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(inlineAnswer, 4)})
	defer model.Close()
	srv, _ := newChatServe(t, model, ServerConfig{Token: "s3cret"})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "chat.mjs", srv.URL+"/v1", "s3cret", "ibid/test", "bees?")
	cmd.Dir = nodeOpenAI
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var got struct {
		Models []string
		Whole  struct {
			Content, Finish string
			Citations       []Footnote
		}
		Streamed struct {
			Content, Finish string
			Chunks          int
			Sources         []string
			Citations       []Footnote
		}
		Error struct {
			Status        int
			Code, Message string
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	want := chatAnswer + chatSourcesList
	if strings.Join(got.Models, " ") != "ibid/test" {
		t.Errorf("models %v", got.Models)
	}
	for name, r := range map[string]struct {
		content, finish string
		cites           []Footnote
	}{
		"whole":    {got.Whole.Content, got.Whole.Finish, got.Whole.Citations},
		"streamed": {got.Streamed.Content, got.Streamed.Finish, got.Streamed.Citations},
	} {
		if r.content != want || r.finish != "stop" {
			t.Errorf("%s: content\n%q\nwant\n%q, finish %q", name, r.content, want, r.finish)
		}
		if len(r.cites) != 2 || r.cites[0].SegmentID != "d1:0" || r.cites[1].Number != 2 || r.cites[0].Quote == "" {
			t.Errorf("%s: citations %+v", name, r.cites)
		}
	}
	if got.Streamed.Chunks < 6 || strings.Join(got.Streamed.Sources, " ") != "d1:0 d1:1" {
		t.Errorf("streamed %d chunks, source events %v", got.Streamed.Chunks, got.Streamed.Sources)
	}
	if got.Error.Status != 404 || got.Error.Code != "model_not_found" || !strings.Contains(got.Error.Message, "ibid/test") {
		t.Errorf("error %+v", got.Error)
	}
}
