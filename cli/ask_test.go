package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

// askEnv is cmdEnv with no model configured and no look for Ollama, so
// answers are deterministic.
func askEnv(t *testing.T) string {
	t.Helper()
	docs := cmdEnv(t)
	for _, v := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "IBID_MODEL", "IBID_CITE_FORMAT"} {
		t.Setenv(v, "")
	}
	t.Setenv("IBID_NO_OLLAMA", "1")
	return docs
}

// TestAskNothingConfigured: on a fresh library of the project's own docs/,
// with no model anywhere, ask prints a cited extractive answer, its source
// list, and how to configure a model.
func TestAskNothingConfigured(t *testing.T) {
	askEnv(t)
	docs, _ := filepath.Abs("../docs")
	if code, out, errs := runCmd(t, "add", docs); code != 0 {
		t.Fatalf("add docs/: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := runCmd(t, "ask", "how does ibid keep a library safe when a crash happens?")
	if code != 0 {
		t.Fatalf("ask: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("ibid ask printed:\n%s", out)
	for _, want := range []string{"[1]", "\nSources:\n[1] ", "docs/", "Note: This answer is extractive", "OPENAI_BASE_URL"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestAskEmptyLibrary(t *testing.T) {
	askEnv(t)
	code, _, errs := runCmd(t, "ask", "anything?")
	if code == 0 || !strings.Contains(errs, `the library "default" is empty: add documents with ibid add PATH`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestAskFormats runs ask against a fake OpenAI server in every output
// format and every cite format; the server splits tokens across chunks.
func TestAskFormats(t *testing.T) {
	docs := askEnv(t)
	if code, out, errs := runCmd(t, "add", docs); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	replies := map[string]string{
		"inline":   "Spring tides come at new and full moon [source_1]. Yeast ferments dough [source_2][source_9].",
		"json":     `{"body": "Spring tides come at new and full moon [source_1]. Yeast ferments dough [source_2][source_9].", "citedSourceIds": ["source_1", "source_2"]}`,
		"sections": `{"sections": [{"text": "Spring tides come at new and full moon.", "source_ids": ["source_1"]}, {"text": " Yeast ferments dough.", "source_ids": ["source_2", "source_9"]}]}`,
	}
	for _, cite := range []string{"inline", "json", "sections"} {
		for _, format := range []string{"text", "markdown", "ndjson"} {
			t.Run(format+"/"+cite, func(t *testing.T) {
				srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(replies[cite], 3), Pings: 1})
				defer srv.Close()
				code, out, errs := runCmd(t, "ask", "--base-url", srv.BaseURL(), "--model", "fake-model",
					"--format", format, "--cite-format", cite, "when are spring tides? how does bread rise?")
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				switch format {
				case "text":
					if !strings.Contains(out, "moon") || !strings.Contains(out, "[1]") || !strings.Contains(out, "[?]") ||
						!strings.Contains(out, "\nSources:\n[1] ") || !strings.Contains(out, "\n[2] ") {
						t.Errorf("text:\n%s", out)
					}
				case "markdown":
					if !strings.Contains(out, "[^1]") || !strings.Contains(out, "\n[^1]: ") || !strings.Contains(out, "\n[^2]: ") {
						t.Errorf("markdown:\n%s", out)
					}
				case "ndjson":
					lines := strings.Split(strings.TrimSpace(out), "\n")
					var last map[string]any
					for _, l := range lines {
						last = nil
						if err := json.Unmarshal([]byte(l), &last); err != nil {
							t.Fatalf("line %q: %v", l, err)
						}
					}
					if last["type"] != "done" || last["total_citations"].(float64) != 2 {
						t.Errorf("last line %v", last)
					}
				}
			})
		}
	}
}

func TestAskModelFailure(t *testing.T) {
	docs := askEnv(t)
	runCmd(t, "add", docs)
	srv := llmtest.New(llmtest.Reply{Status: http.StatusUnauthorized})
	defer srv.Close()
	code, _, errs := runCmd(t, "ask", "--base-url", srv.BaseURL(), "--model", "fake-model", "tides?")
	if code == 0 || !strings.Contains(errs, "refused") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCmd(t, "ask", "--format", "xml", "tides?")
	if code == 0 || !strings.Contains(errs, "unknown format") {
		t.Errorf("bad format: exit %d, stderr %q", code, errs)
	}
}

func TestServeRefusesOpenAddressWithoutToken(t *testing.T) {
	askEnv(t)
	code, _, errs := runCmd(t, "serve", "--addr", "0.0.0.0:0")
	if code == 0 || !strings.Contains(errs, "--token") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestServeEndToEnd runs `ibid serve` on a free loopback port over a real
// library and a fake model, asks with a token, and follows a citation to
// its passage.
func TestServeEndToEnd(t *testing.T) {
	docs := askEnv(t)
	if code, out, errs := runCmd(t, "add", docs); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	model := llmtest.New(llmtest.Reply{Chunks: llmtest.Split("Spring tides come at new and full moon [source_1].", 4)})
	defer model.Close()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--token", "tok", "--base-url", model.BaseURL(), "--model", "fake-model"},
			Env{In: strings.NewReader(""), Out: io.Discard, Err: pw, Getenv: os.Getenv})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	if err != nil {
		t.Fatalf("serve printed %q: %v", line, err)
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("no address in %q", line)
	}
	base := strings.Fields(line[i:])[0]

	req, _ := http.NewRequest("POST", base+"/v1/answers", strings.NewReader(`{"question": "when are spring tides?"}`))
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var segID string
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "data: ") && strings.Contains(l, `"type":"citation"`) {
			var c struct {
				SegmentID string `json:"segment_id"`
			}
			json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &c)
			segID = c.SegmentID
		}
	}
	if segID == "" || !strings.Contains(string(body), "event: done") {
		t.Fatalf("answer:\n%s", body)
	}
	req, _ = http.NewRequest("GET", base+"/v1/segments/"+segID, nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	seg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(seg), "tidal bulges") {
		t.Errorf("segment %s: %d %s", segID, resp.StatusCode, seg)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// TestAskStreamCut: a stream cut halfway prints the partial answer and its
// sources, then fails with the reason on stderr.
func TestAskStreamCut(t *testing.T) {
	docs := askEnv(t)
	runCmd(t, "add", docs)
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split("Spring tides [source_1] come at new and full moon.", 4), Cut: 7})
	defer srv.Close()
	code, out, errs := runCmd(t, "ask", "--base-url", srv.BaseURL(), "--model", "fake-model", "tides?")
	if code == 0 || !strings.Contains(errs, "cut off") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if !strings.HasPrefix(out, "Spring tides [1] come") || !strings.Contains(out, "\nSources:\n[1] ") {
		t.Errorf("partial answer:\n%s", out)
	}
}

// TestAskShowsRateLimitWait: a model that answers 429 with Retry-After
// first is waited for, the wait is said on standard error, and the answer
// then comes.
func TestAskShowsRateLimitWait(t *testing.T) {
	docs := askEnv(t)
	if code, out, errs := runCmd(t, "add", docs); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	srv := llmtest.New(
		llmtest.Reply{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "1"}},
		llmtest.Reply{Chunks: llmtest.Split("Spring tides come at new and full moon [source_1].", 4)})
	defer srv.Close()
	code, out, errs := runCmd(t, "ask", "--base-url", srv.BaseURL(), "--model", "fake-model", "When are spring tides?")
	if code != 0 || !strings.Contains(out, "Spring tides come at new and full moon [1]") {
		t.Fatalf("ask: %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "rate limited, retrying in 1 s") {
		t.Errorf("the wait was not said: %q", errs)
	}
}
