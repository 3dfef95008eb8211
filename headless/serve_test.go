package headless

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

func newServe(t *testing.T, model *llmtest.Server, token string) *httptest.Server {
	t.Helper()
	var m *llm.Model
	if model != nil {
		m = connect(t, model)
	}
	h := NewServer(ServerConfig{Library: newFakeLibrary(), LibraryName: "test", Answerer: rag.NewAnswerer(m), Token: token, MaxBodyBytes: 1024})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, srv *httptest.Server, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(srv.URL+"/v1/answers", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestServeStreamsIncrementally reads the event stream with a real client
// while the model is still writing: the first events arrive before the
// model has finished, and closing the response cancels the model request.
func TestServeStreamsIncrementally(t *testing.T) {
	t.Parallel()
	model := llmtest.New(llmtest.Reply{Chunks: llmtest.Split("Honey bees [source_1] pollinate.", 4), Hang: true})
	defer model.Close()
	srv := newServe(t, model, "")
	resp := post(t, srv, `{"question": "bees?"}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp.Header.Get(ConversationHeader) == "" {
		t.Errorf("no conversation id header")
	}
	r := bufio.NewReader(resp.Body)
	var got []string
	for len(got) == 0 || got[len(got)-1] != "ref" {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		if strings.HasPrefix(line, "event: ") {
			got = append(got, strings.TrimSpace(strings.TrimPrefix(line, "event: ")))
		}
	}
	// The model is still hanging: these events came incrementally.
	if j := strings.Join(got, " "); !strings.HasPrefix(j, "text") || !strings.HasSuffix(j, "citation ref") {
		t.Errorf("first events %v", got)
	}
	resp.Body.Close() // the client goes away
	waitGone(t, model)
}

func TestServeAnswerConversationAndSegments(t *testing.T) {
	t.Parallel()
	model := llmtest.New(
		llmtest.Reply{Chunks: llmtest.Split(inlineAnswer, 5)},
		llmtest.Reply{Chunks: llmtest.Split("Currents [source_3] and bees [source_1].", 5)})
	defer model.Close()
	srv := newServe(t, model, "")
	resp := post(t, srv, `{"question": "bees?", "conversation_id": "c1"}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	evs := parseSSE(t, string(body))
	var text strings.Builder
	for _, e := range evs {
		var ev rag.Event
		if err := json.Unmarshal([]byte(e.data), &ev); err != nil {
			t.Fatalf("%s: %v", e.data, err)
		}
		if string(ev.Type) != e.typ {
			t.Errorf("event %q carries type %q", e.typ, ev.Type)
		}
		switch ev.Type {
		case rag.EventText:
			text.WriteString(ev.Text)
		case rag.EventRef:
			text.WriteString(rag.RefText(ev.Number))
		case rag.EventUnknown:
			text.WriteString(rag.UnknownText)
		}
	}
	if text.String() != plainWant["inline"] {
		t.Errorf("answer %q", text.String())
	}
	if evs[len(evs)-1].typ != "done" {
		t.Errorf("last event %v", evs[len(evs)-1])
	}

	// The same conversation: aliases are stable, so source_1 is the
	// same segment; numbers restart with the answer.
	resp = post(t, srv, `{"question": "currents?", "conversation_id": "c1", "cite_format": "inline"}`)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"segment_id":"d2:0"`) || !strings.Contains(string(body), `"order":["d2:0","d1:0"]`) {
		t.Errorf("second answer:\n%s", body)
	}

	// The passage behind a citation, with its neighbours.
	r, err := http.Get(srv.URL + "/v1/segments/d1:0")
	if err != nil {
		t.Fatal(err)
	}
	var seg map[string]any
	json.NewDecoder(r.Body).Decode(&seg)
	r.Body.Close()
	if seg["page_start"] != 3.0 || seg["title"] != "Bees and Flowers" || seg["next"] == nil || seg["previous"] != nil {
		t.Errorf("segment %v", seg)
	}
	r, _ = http.Get(srv.URL + "/v1/segments/nope:9")
	if r.StatusCode != 404 {
		t.Errorf("missing segment: %d", r.StatusCode)
	}
	r.Body.Close()
}

func TestServeRejects(t *testing.T) {
	t.Parallel()
	srv := newServe(t, nil, "")
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"question": ""}`, 400, `is empty`},
		{`not json`, 400, `must be JSON`},
		{`{"question": "x", "cite_format": "footnotes"}`, 400, `\"cite_format\" must be inline, json or sections`},
		{`{"question": "` + strings.Repeat("x", 2000) + `"}`, 413, `larger than`},
	} {
		resp := post(t, srv, c.body)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.says) {
			t.Errorf("%.40s: status %d %s, want %d saying %s", c.body, resp.StatusCode, body, c.status, c.says)
		}
	}
	// An empty cite_format is the server's own.
	resp := post(t, srv, `{"question": "honey bees", "cite_format": ""}`)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf(`"cite_format": "": status %d`, resp.StatusCode)
	}
}

func TestServeToken(t *testing.T) {
	t.Parallel()
	srv := newServe(t, nil, "s3cret")
	resp := post(t, srv, `{"question": "bees"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", srv.URL+"/v1/answers", strings.NewReader(`{"question": "honey bees"}`))
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "event: done") {
		t.Errorf("with token: %d %s", resp.StatusCode, body)
	}
	// The extractive answerer says so.
	if !strings.Contains(string(body), `"extractive":true`) || !strings.Contains(string(body), "OPENAI_BASE_URL") {
		t.Errorf("extractive answer not marked:\n%s", body)
	}
}

func TestServeConcurrent(t *testing.T) {
	t.Parallel()
	model := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(inlineAnswer, 4), Delay: time.Millisecond})
	defer model.Close()
	srv := newServe(t, model, "")
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(srv.URL+"/v1/answers", "application/json", strings.NewReader(`{"question": "bees?"}`))
			if err != nil {
				errs <- err.Error()
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), `"total_citations":2`) {
				errs <- string(body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
