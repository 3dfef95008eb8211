package headless

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/store"
)

// metricsLibrary holds a definition of citation recall and one of
// citation precision in another section, and records what is searched.
func metricsLibrary() *ragtest.Library {
	return ragtest.New().Add(store.Document{ID: "m", Title: "Metrics", Format: store.FormatPDF},
		ragtest.Seg("Citation recall is 1 if and only if the citations entail the statement.", 5, "3 Citation recall"),
		ragtest.Seg("Fluency is measured with MAUVE against human answers.", 5, "3.1 Fluency"),
		ragtest.Seg("Citation precision is 1 if the citation supports the statement.", 15, "E.3 Citation precision"),
		ragtest.Seg("Other precision figures of the retrieval are in Table 4.", 16, "F Retrieval"))
}

// followupQuery is what "And how is precision computed?" is searched as
// after "How is citation recall computed?": with the words it left out.
const followupQuery = "And how is precision computed? citation recall"

// TestServeFollowUp: with no model, a follow-up asked in the same
// conversation of /v1/answers is resolved against the question before it,
// as in the chat and ask --resume (one pipeline): it is searched with the
// words it carries over and answered from the precision section.
func TestServeFollowUp(t *testing.T) {
	t.Parallel()
	lib := metricsLibrary()
	srv := httptest.NewServer(NewServer(ServerConfig{Library: lib, LibraryName: "test", Answerer: rag.NewAnswerer(nil)}))
	defer srv.Close()
	ask := func(q string) string {
		resp := post(t, srv, `{"question": "`+q+`", "conversation_id": "c1"}`)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var text strings.Builder
		for _, e := range parseSSE(t, string(body)) {
			var ev rag.Event
			if err := json.Unmarshal([]byte(e.data), &ev); err != nil {
				t.Fatalf("%s: %v", e.data, err)
			}
			if ev.Type == rag.EventText {
				text.WriteString(ev.Text)
			}
		}
		return text.String()
	}
	ask("How is citation recall computed?")
	got := ask("And how is precision computed?")
	if qs := lib.Queries(); len(qs) != 2 || qs[1] != followupQuery {
		t.Errorf("searched %q, want the follow-up searched as %q", qs, followupQuery)
	}
	if !strings.HasPrefix(got, "Citation precision is 1 if the citation supports the statement.") {
		t.Errorf("follow-up answered %q", got)
	}
	// In a conversation of its own, the same words carry nothing over.
	resp := post(t, srv, `{"question": "And how is precision computed?", "conversation_id": "c2"}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if qs := lib.Queries(); qs[len(qs)-1] != "And how is precision computed?" {
		t.Errorf("a new conversation searched %q", qs[len(qs)-1])
	}
}

// TestChatFollowUp: /v1/chat/completions reads the conversation from its
// messages, so a follow-up there is resolved against the user's question
// before it too.
func TestChatFollowUp(t *testing.T) {
	t.Parallel()
	lib := metricsLibrary()
	srv := httptest.NewServer(NewServer(ServerConfig{Library: lib, LibraryName: "test", Answerer: rag.NewAnswerer(nil)}))
	defer srv.Close()
	body := `{"model": "ibid/test", "messages": [
		{"role": "user", "content": "How is citation recall computed?"},
		{"role": "assistant", "content": "Citation recall is 1 if and only if the citations entail the statement. [1]"},
		{"role": "user", "content": "And how is precision computed?"}]}`
	r, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var resp struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(r.Body).Decode(&resp); err != nil {
		t.Fatal(err)
	}
	if qs := lib.Queries(); len(qs) == 0 || qs[len(qs)-1] != followupQuery {
		t.Errorf("searched %q, want the follow-up searched as %q", qs, followupQuery)
	}
	if len(resp.Choices) != 1 || !strings.HasPrefix(resp.Choices[0].Message.Content, "Citation precision is 1 if the citation supports the statement.") {
		t.Errorf("follow-up answered %+v", resp.Choices)
	}
}
