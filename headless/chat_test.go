package headless

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// newChatServe is `ibid serve` over the fake library, answering with
// model (nil: the extractive answerer), and an openai client for it.
func newChatServe(t *testing.T, model *llmtest.Server, cfg ServerConfig) (*httptest.Server, *openai.Client) {
	t.Helper()
	var m *llm.Model
	if model != nil {
		m = connect(t, model)
	}
	cfg.Library, cfg.LibraryName, cfg.Answerer = newFakeLibrary(), "test", rag.NewAnswerer(m)
	srv := httptest.NewServer(NewServer(cfg))
	t.Cleanup(srv.Close)
	oc := openai.DefaultConfig(cfg.Token)
	oc.BaseURL = srv.URL + "/v1"
	return srv, openai.NewClientWithConfig(oc)
}

func userAsks(q string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{Model: "ibid/test", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: q}}}
}

// The fake library's sources as the answer cites them ([1] bees p. 3,
// [2] mites p. 4), and the reply's text with its sources list.
const (
	chatAnswer      = "Honey bees pollinate almonds [1]. Mites collapse colonies [2][1]. Unknown [?]."
	chatSourcesList = "\n\n**Sources**\n\n" +
		"- [1] Bees and Flowers, p. 3, § 2 Methods › 2.1 Sites, /papers/bees.pdf: “Honey bees pollinate almond orchards in California.”\n" +
		"- [2] Bees and Flowers, p. 4, § 3 Results, /papers/bees.pdf: “Mites spread viruses that collapse bee colonies.”\n"
)

// TestChatCompletion asks with the Go openai client, not streaming: the
// text carries the footnotes and the sources list, and the body's
// citations field the footnotes, each with the passage's words.
func TestChatCompletion(t *testing.T) {
	t.Parallel()
	model := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(inlineAnswer, 4)})
	defer model.Close()
	srv, client := newChatServe(t, model, ServerConfig{})
	resp, err := client.CreateChatCompletion(context.Background(), userAsks("bees?"))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; got != chatAnswer+chatSourcesList {
		t.Errorf("content:\n%q\nwant\n%q", got, chatAnswer+chatSourcesList)
	}
	if resp.Object != "chat.completion" || resp.Model != "ibid/test" || resp.Choices[0].FinishReason != "stop" || resp.Choices[0].Message.Role != "assistant" {
		t.Errorf("response %+v", resp)
	}

	// The same request, raw: the citations field.
	body := `{"model": "ibid/test", "messages": [{"role": "user", "content": "bees?"}]}`
	r, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var raw struct {
		Citations []struct {
			Number    int    `json:"display_number"`
			SegmentID string `json:"segment_id"`
			Title     string `json:"title"`
			PageStart int    `json:"page_start"`
			Quote     string `json:"quote"`
		} `json:"citations"`
	}
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Citations) != 2 {
		t.Fatalf("citations %+v", raw.Citations)
	}
	c1, c2 := raw.Citations[0], raw.Citations[1]
	if c1.Number != 1 || c1.SegmentID != "d1:0" || c1.PageStart != 3 || c2.Number != 2 || c2.SegmentID != "d1:1" {
		t.Errorf("citations %+v", raw.Citations)
	}
	// The model's citing sentences share words with these sentences.
	if c1.Quote != "Honey bees pollinate almond orchards in California." || c2.Quote != "Mites spread viruses that collapse bee colonies." {
		t.Errorf("quotes %q, %q", c1.Quote, c2.Quote)
	}
}

// TestChatCompletionStream streams with the Go openai client: the text
// arrives in pieces while the model writes, equals the text of the
// non-streamed answer, each source comes as Open WebUI's source event
// before the text that cites it, and the last chunk carries the citations.
func TestChatCompletionStream(t *testing.T) {
	t.Parallel()
	model := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(inlineAnswer, 4)})
	defer model.Close()
	_, client := newChatServe(t, model, ServerConfig{})
	req := userAsks("bees?")
	req.Stream = true
	stream, err := client.CreateChatCompletionStream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var text strings.Builder
	var sources []string // segment ids of the source events, in order
	var chunks int
	var last map[string]json.RawMessage
	for {
		b, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		chunks++
		var c openai.ChatCompletionStreamResponse
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		if c.Object != "chat.completion.chunk" || c.Model != "ibid/test" || len(c.Choices) != 1 {
			t.Fatalf("chunk %s", b)
		}
		var ev struct {
			Event *struct {
				Type string `json:"type"`
				Data struct {
					Metadata []struct {
						Source string `json:"source"`
						Page   *int   `json:"page"`
					} `json:"metadata"`
					Document []string `json:"document"`
				} `json:"data"`
			} `json:"event"`
		}
		json.Unmarshal(b, &ev)
		if e := ev.Event; e != nil {
			if e.Type != "source" || len(e.Data.Metadata) != 1 || len(e.Data.Document) != 1 || e.Data.Document[0] == "" {
				t.Fatalf("source event %s", b)
			}
			n := len(sources) + 1
			if strings.Contains(text.String(), "["+string(rune('0'+n))+"]") {
				t.Errorf("source %d came after the text that cites it", n)
			}
			sources = append(sources, e.Data.Metadata[0].Source)
		}
		text.WriteString(c.Choices[0].Delta.Content)
		if c.Choices[0].FinishReason != "" {
			if c.Choices[0].FinishReason != "stop" {
				t.Errorf("finish reason %q", c.Choices[0].FinishReason)
			}
			json.Unmarshal(b, &last)
		}
	}
	if text.String() != chatAnswer+chatSourcesList {
		t.Errorf("streamed text\n%q\nwant\n%q", text.String(), chatAnswer+chatSourcesList)
	}
	if chunks < 6 {
		t.Errorf("%d chunks: the answer did not stream", chunks)
	}
	if strings.Join(sources, " ") != "d1:0 d1:1" {
		t.Errorf("source events %v", sources)
	}
	var cites []Footnote
	if err := json.Unmarshal(last["citations"], &cites); err != nil || len(cites) != 2 || cites[0].Number != 1 || cites[1].SegmentID != "d1:1" {
		t.Errorf("last chunk's citations %s (%v)", last["citations"], err)
	}
}

// TestChatCompletionFollowUp: a client sends the conversation back. With
// the reply ibid sent, the model sees its earlier answer as it wrote it
// (aliases, no sources list); with a reply edited by the client, the
// earlier answer's text without the sources list.
func TestChatCompletionFollowUp(t *testing.T) {
	t.Parallel()
	model := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(inlineAnswer, 4)})
	defer model.Close()
	_, client := newChatServe(t, model, ServerConfig{})
	first, err := client.CreateChatCompletion(context.Background(), userAsks("bees?"))
	if err != nil {
		t.Fatal(err)
	}
	reply := first.Choices[0].Message.Content
	for _, tc := range []struct {
		name, reply, want string
	}{
		{"remembered", reply, "Honey bees pollinate almonds [source_1]. Mites collapse colonies [source_2][source_1]. Unknown ."},
		{"edited", "Edited: bees [1].\n\n**Sources**\n\n- [1] x\n", "Edited: bees [1]."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := userAsks("bees?")
			req.Messages = append([]openai.ChatCompletionMessage{{Role: "system", Content: "Be nice."}}, req.Messages...)
			req.Messages = append(req.Messages,
				openai.ChatCompletionMessage{Role: "assistant", Content: tc.reply},
				openai.ChatCompletionMessage{Role: "user", Content: "and the mites?"})
			if _, err := client.CreateChatCompletion(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			reqs := model.Requests()
			msgs := reqs[len(reqs)-1].Chat()
			// system (ibid's), the earlier question, its answer, the passages with the question
			if len(msgs) != 4 || msgs[1].Role != "user" || msgs[1].Content != "bees?" || msgs[2].Role != "assistant" {
				t.Fatalf("messages to the model: %+v", msgs)
			}
			if msgs[2].Content != tc.want {
				t.Errorf("earlier answer as the model sees it:\n%q\nwant\n%q", msgs[2].Content, tc.want)
			}
			if strings.Contains(msgs[0].Content, "Be nice") || !strings.HasSuffix(msgs[3].Content, "Question: and the mites?") {
				t.Errorf("system %q, question %q", msgs[0].Content, msgs[3].Content)
			}
		})
	}
}

// TestChatCompletionOptions: the sources list can be turned off by the
// server and by the request; the text's own bracketed numerals are
// escaped; an extractive answer ends with its note.
func TestChatCompletionOptions(t *testing.T) {
	t.Parallel()
	model := llmtest.New(llmtest.Reply{Chunks: []string{"As [2] showed, bees pollinate [source_1]."}})
	defer model.Close()
	srv, client := newChatServe(t, model, ServerConfig{NoSourcesBlock: true})
	resp, err := client.CreateChatCompletion(context.Background(), userAsks("bees?"))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; got != `As \[2] showed, bees pollinate [1].` {
		t.Errorf("content %q", got)
	}
	body := `{"model": "test", "messages": [{"role": "user", "content": [{"type": "text", "text": "bees?"}]}], "ibid_sources": true}`
	r, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if !strings.Contains(string(b), `**Sources**`) {
		t.Errorf("ibid_sources true: %s", b)
	}

	_, client = newChatServe(t, nil, ServerConfig{})
	resp, err = client.CreateChatCompletion(context.Background(), userAsks("Which bees pollinate almond orchards?"))
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Choices[0].Message.Content
	if !strings.Contains(got, "[1]") || !strings.Contains(got, "**Sources**") || !strings.Contains(got, "*Note: This answer is extractive") {
		t.Errorf("extractive answer:\n%s", got)
	}
}

// TestChatCompletionErrors: every refusal reaches the Go openai client as
// an API error with the status, type and message of OpenAI's form.
func TestChatCompletionErrors(t *testing.T) {
	t.Parallel()
	model := llmtest.New(llmtest.Reply{Status: http.StatusUnauthorized})
	defer model.Close()
	srv, client := newChatServe(t, model, ServerConfig{Token: "s3cret"})
	wrong := openai.DefaultConfig("wrong")
	wrong.BaseURL = srv.URL + "/v1"
	asks := func(mod func(*openai.ChatCompletionRequest)) openai.ChatCompletionRequest {
		r := userAsks("bees?")
		mod(&r)
		return r
	}
	for _, tc := range []struct {
		name   string
		client *openai.Client
		req    openai.ChatCompletionRequest
		status int
		want   string
	}{
		{"model failed", client, userAsks("bees?"), 502, "OPENAI_API_KEY"},
		{"unknown model", client, asks(func(r *openai.ChatCompletionRequest) { r.Model = "gpt-4o" }), 404, `answers from the library "test" as the model "ibid/test"`},
		{"last is not the user's", client, asks(func(r *openai.ChatCompletionRequest) {
			r.Messages = append(r.Messages, openai.ChatCompletionMessage{Role: "assistant", Content: "x"})
		}), 400, "the last message must be the user's question"},
		{"empty question", client, asks(func(r *openai.ChatCompletionRequest) { r.Messages[0].Content = "  " }), 400, "is empty"},
		{"n", client, asks(func(r *openai.ChatCompletionRequest) { r.N = 2 }), 400, `"n" must be 1`},
		{"wrong token", openai.NewClientWithConfig(wrong), userAsks("bees?"), 401, "bearer token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := tc.client.CreateChatCompletion(context.Background(), tc.req)
			if err == nil {
				t.Logf("answer %q", resp.Choices[0].Message.Content)
			}
			var apiErr *openai.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T), want an API error", err, err)
			}
			if apiErr.HTTPStatusCode != tc.status || !strings.Contains(apiErr.Message, tc.want) {
				t.Errorf("status %d, message %q; want %d, %q", apiErr.HTTPStatusCode, apiErr.Message, tc.status, tc.want)
			}
		})
	}
}

// TestChatModels: the library is the one model, listed and found by id.
func TestChatModels(t *testing.T) {
	t.Parallel()
	_, client := newChatServe(t, nil, ServerConfig{})
	list, err := client.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 1 || list.Models[0].ID != "ibid/test" || list.Models[0].OwnedBy != "ibid" {
		t.Errorf("models %+v", list.Models)
	}
	m, err := client.GetModel(context.Background(), "ibid/test")
	if err != nil || m.ID != "ibid/test" {
		t.Errorf("model %+v, %v", m, err)
	}
	_, err = client.GetModel(context.Background(), "gpt-4o")
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 404 {
		t.Errorf("unknown model: %v", err)
	}
}

// TestChatCompletionCancel: a client that stops reading a stream cancels
// the model's request.
func TestChatCompletionCancel(t *testing.T) {
	t.Parallel()
	model := llmtest.New(llmtest.Reply{Chunks: llmtest.Split("Honey bees [source_1] pollinate.", 4), Hang: true})
	defer model.Close()
	_, client := newChatServe(t, model, ServerConfig{})
	req := userAsks("bees?")
	req.Stream = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for !strings.Contains(text, "[1]") {
		c, err := stream.Recv()
		if err != nil {
			t.Fatalf("after %q: %v", text, err)
		}
		text += c.Choices[0].Delta.Content
	}
	// The model still hangs: what came, came while it was writing.
	cancel()
	stream.Close()
	waitGone(t, model)
}

// TestChatCompletionBodyLimit: a chat body may be as large as
// MaxChatBodyBytes (it carries the conversation), whatever /v1/answers'
// bound, and no larger; the refusal says the limit.
func TestChatCompletionBodyLimit(t *testing.T) {
	t.Parallel()
	srv, _ := newChatServe(t, nil, ServerConfig{MaxBodyBytes: 100, MaxChatBodyBytes: 4 << 10})
	for _, tc := range []struct {
		size   int
		status int
	}{{4<<10 - 200, 200}, {4<<10 + 1, 413}} {
		pad := strings.Repeat("x", tc.size)
		body := `{"messages": [{"role": "system", "content": "` + pad + `"}, {"role": "user", "content": "Which bees pollinate almond orchards?"}]}`
		r, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != tc.status {
			t.Errorf("%d-byte body: %s %s", len(body), r.Status, b)
		}
		if tc.status == 413 && (!strings.Contains(string(b), `"type":"invalid_request_error"`) || !strings.Contains(string(b), "larger than 4 KiB")) {
			t.Errorf("413 body %s", b)
		}
	}
}

// TestChatCompletionLongConversation: by default a conversation with a
// few megabytes of pasted text is answered (it was refused past 1 MiB);
// the bound is 16 MiB (refusals past a bound: TestChatCompletionBodyLimit).
func TestChatCompletionLongConversation(t *testing.T) {
	t.Parallel()
	if got := NewServer(ServerConfig{}).cfg.MaxChatBodyBytes; got != 16<<20 {
		t.Errorf("the default chat body bound is %s, want 16 MiB", byteSize(got))
	}
	srv, _ := newChatServe(t, nil, ServerConfig{})
	pasted := strings.Repeat("Varroa mites spread deformed wing virus. ", 3<<20/41)
	body := `{"messages": [{"role": "user", "content": "` + pasted + `"}, {"role": "assistant", "content": "Noted."}, {"role": "user", "content": "Which bees pollinate almond orchards?"}]}`
	r, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusOK || !strings.Contains(string(b), "almond") {
		t.Fatalf("a %d-byte conversation: %s %.300s", len(body), r.Status, b)
	}
}

func TestByteSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{16 << 20: "16 MiB", 64 << 10: "64 KiB", 1500: "1500 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
