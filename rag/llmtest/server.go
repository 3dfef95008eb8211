// Package llmtest is a fake OpenAI-compatible server for tests: an
// httptest server that speaks the real wire protocols (streaming chat as
// `data: {chat.completion.chunk}` lines, keep-alive `: ping` comments and
// `data: [DONE]`; non-streaming chat as one `chat.completion` object with
// an optional `usage`; /v1/embeddings; /v1/models) and plays scripted
// replies, or answers by request content (Server.Handle).
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Reply scripts one answer of the server.
type Reply struct {
	// Status, when not 0 or 200, answers with that HTTP status and an
	// OpenAI error body instead of a stream.
	Status int
	// Chunks are the content pieces, one chat.completion.chunk each.
	Chunks []string
	// Pings is the number of keep-alive comment lines sent before each
	// chunk.
	Pings int
	// Cut, when > 0, aborts the connection after that many chunks: no
	// finish_reason, no [DONE].
	Cut int
	// Unfinished ends the body cleanly after the chunks, but with no
	// finish_reason and no [DONE] (a stream some proxy cut between two
	// events).
	Unfinished bool
	// Hang keeps the stream open after the chunks until the client goes
	// away (for cancellation tests).
	Hang bool
	// Delay is slept before each chunk.
	Delay time.Duration
	// RefuseSchema answers 400 to a request that asks for a json_schema
	// response format (like servers without structured outputs).
	RefuseSchema bool
	// Header is sent with the reply (e.g. Retry-After with a 429).
	Header map[string]string
	// Body replaces the OpenAI error body of a Status reply.
	Body string
	// Silent accepts the request and never answers, not even headers,
	// until the client goes away.
	Silent bool
	// Usage, when not nil, is sent as the `usage` of a non-streaming
	// chat answer, and of a streamed one whose request asked for it
	// (stream_options.include_usage: a last chunk without choices).
	Usage *Usage
	// RefuseStreamOptions answers 400 to a request that sends
	// stream_options (like servers that know nothing of it).
	RefuseStreamOptions bool
}

// Usage is the token accounting of a non-streaming chat answer, as OpenAI
// sends it (`prompt_tokens_details.cached_tokens` only when Cached > 0).
type Usage struct {
	Prompt, Completion, Cached int
}

// Request is what the server received.
type Request struct {
	Path           string            `json:"-"` // "/v1/chat/completions" or "/v1/embeddings"
	Authorization  string            `json:"-"` // the Authorization header
	Model          string            `json:"model"`
	Input          []string          `json:"input"`      // embeddings
	Dimensions     int               `json:"dimensions"` // embeddings
	Messages       []json.RawMessage `json:"messages"`
	Stream         bool              `json:"stream"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	MaxTokens           int `json:"max_tokens"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Chat decodes the request's messages (a message whose content is not a
// plain string has Content "").
func (r Request) Chat() []Message {
	out := make([]Message, len(r.Messages))
	for i, raw := range r.Messages {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(raw, &m)
		out[i].Role = m.Role
		json.Unmarshal(m.Content, &out[i].Content)
	}
	return out
}

// Server is the fake. Replies are played in order, one per chat or
// embeddings request; the last one repeats; a handler set with Handle
// answers instead of the script. An embeddings request answered
// by a reply without a Status gets, for each input text t, the vector
// [len(t), 1, 0, 0, …] of length Dim (default 4), listed in reverse order
// (clients must sort by index).
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	replies  []Reply
	requests []Request
	handle   func(Request) Reply
	latency  time.Duration
	// Gone receives one value each time a client went away (its request
	// context ended) while the server was still streaming.
	Gone chan struct{}
	// Before, when not nil, is called right before chunk i of an answer
	// is written (benchmarks measure latency from it).
	Before func(i int)
	// Wrote, when not nil, is called after each chunk was written and
	// flushed, with its index.
	Wrote func(i int)
	// Dim is the length of embedding vectors; 0 means 4. Set it before
	// the first request.
	Dim int
}

// New starts a fake server; Close it when done.
func New(replies ...Reply) *Server {
	s := &Server{replies: replies, Gone: make(chan struct{}, 16)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the API base URL to configure a client with.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// SetReplies replaces the script.
func (s *Server) SetReplies(r ...Reply) {
	s.mu.Lock()
	s.replies = r
	s.mu.Unlock()
}

// Handle makes fn answer every later chat or embeddings request, in place
// of the script (nil restores the script). fn may be called from several
// goroutines at once; requests are still recorded.
func (s *Server) Handle(fn func(Request) Reply) {
	s.mu.Lock()
	s.handle = fn
	s.mu.Unlock()
}

// SetLatency makes the server wait d before answering each later chat or
// embeddings request (a client that goes away ends the wait).
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	s.latency = d
	s.mu.Unlock()
}

// next records req and returns its reply and the latency to play first.
func (s *Server) next(req Request) (Reply, time.Duration) {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	handle, latency := s.handle, s.latency
	if handle != nil {
		s.mu.Unlock()
		return handle(req), latency
	}
	defer s.mu.Unlock()
	return s.scripted(), latency
}

// scripted pops the next scripted reply; s.mu is held.
func (s *Server) scripted() Reply {
	if len(s.replies) == 0 {
		return Reply{Chunks: []string{"ok"}}
	}
	r := s.replies[0]
	if len(s.replies) > 1 {
		s.replies = s.replies[1:]
	}
	return r
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"fake-model","object":"model","owned_by":"test"}]}`)
		return
	case "/v1/chat/completions", "/v1/embeddings":
	default:
		http.NotFound(w, r)
		return
	}
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Path, req.Authorization = r.URL.Path, r.Header.Get("Authorization")
	reply, latency := s.next(req)
	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			s.gone()
			return
		}
	}
	if reply.RefuseSchema && req.ResponseFormat != nil && req.ResponseFormat.Type == "json_schema" ||
		reply.RefuseStreamOptions && req.StreamOptions != nil {
		reply = Reply{Status: http.StatusBadRequest}
	}
	if reply.Silent {
		<-r.Context().Done()
		s.gone()
		return
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		if reply.Body != "" {
			io.WriteString(w, reply.Body)
		} else {
			fmt.Fprintf(w, `{"error":{"message":"scripted status %d","type":"test","code":null}}`, reply.Status)
		}
		return
	}
	if req.Path == "/v1/embeddings" {
		s.embeddings(w, req)
		return
	}
	if !req.Stream {
		completion(w, req, reply)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl := w.(http.Flusher)
	write := func(s string) bool {
		if _, err := io.WriteString(w, s); err != nil {
			return false
		}
		fl.Flush()
		return true
	}
	gone := s.gone
	write(chunk("", "assistant", ""))
	for i, c := range reply.Chunks {
		if reply.Cut > 0 && i == reply.Cut {
			panic(http.ErrAbortHandler) // the connection is cut
		}
		if reply.Delay > 0 {
			select {
			case <-time.After(reply.Delay):
			case <-r.Context().Done():
				gone()
				return
			}
		}
		for range reply.Pings {
			write(": ping\n\n")
		}
		if s.Before != nil {
			s.Before(i)
		}
		if !write(chunk(c, "", "")) {
			gone()
			return
		}
		if s.Wrote != nil {
			s.Wrote(i)
		}
	}
	if reply.Cut > 0 {
		panic(http.ErrAbortHandler)
	}
	if reply.Hang {
		<-r.Context().Done()
		gone()
		return
	}
	if reply.Unfinished {
		return
	}
	write(chunk("", "", "stop"))
	if u := reply.Usage; u != nil && req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		write("data: " + usageChunk(u) + "\n\n")
	}
	write("data: [DONE]\n\n")
}

// usageChunk is the last chunk of a stream that asked for its usage: no
// choices, and the usage.
func usageChunk(u *Usage) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": "fake-model",
		"choices": []any{}, "usage": usageObject(u),
	})
	return string(b)
}

// usageObject is OpenAI's usage object (prompt_tokens_details only when
// Cached > 0).
func usageObject(u *Usage) map[string]any {
	usage := map[string]any{"prompt_tokens": u.Prompt, "completion_tokens": u.Completion,
		"total_tokens": u.Prompt + u.Completion}
	if u.Cached > 0 {
		usage["prompt_tokens_details"] = map[string]int{"cached_tokens": u.Cached}
	}
	return usage
}

// gone tells Gone that a client went away.
func (s *Server) gone() {
	select {
	case s.Gone <- struct{}{}:
	default:
	}
}

// embeddings answers an embeddings request (see Server).
func (s *Server) embeddings(w http.ResponseWriter, req Request) {
	dim := s.Dim
	if dim <= 0 {
		dim = 4
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []datum
	for i := len(req.Input) - 1; i >= 0; i-- {
		v := make([]float32, dim)
		v[0], v[1] = float32(len(req.Input[i])), 1
		data = append(data, datum{"embedding", i, v})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 0, "total_tokens": 0}})
}

// completion answers a non-streaming chat request with one chat.completion
// object: the reply's chunks joined, and its Usage when set.
func completion(w http.ResponseWriter, req Request, reply Reply) {
	var content strings.Builder
	for _, c := range reply.Chunks {
		content.WriteString(c)
	}
	obj := map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]string{"role": "assistant", "content": content.String()}}},
	}
	if u := reply.Usage; u != nil {
		obj["usage"] = usageObject(u)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(obj)
}

// chunk is one `data:` line of a chat.completion.chunk.
func chunk(content, role, finish string) string {
	delta := map[string]string{}
	if role != "" {
		delta["role"] = role
	}
	if content != "" || role == "" && finish == "" {
		delta["content"] = content
	}
	var fin any
	if finish != "" {
		fin = finish
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": "fake-model",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}},
	})
	return "data: " + string(b) + "\n\n"
}

// Split cuts text into pieces of about n bytes, never inside a rune, so
// that citation tokens are split across chunks.
func Split(text string, n int) []string {
	var out []string
	for len(text) > 0 {
		m := min(n, len(text))
		for m < len(text) && !utf8.RuneStart(text[m]) {
			m++
		}
		out = append(out, text[:m])
		text = text[m:]
	}
	return out
}
