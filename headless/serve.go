package headless

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// Library is what the server needs of a library: the pipeline's retriever
// and a document's segments in order (for a passage's neighbours).
type Library interface {
	rag.Retriever
	Segments(ctx context.Context, docID string) ([]store.Segment, error)
}

// ServerConfig configures NewServer.
type ServerConfig struct {
	Library     Library
	LibraryName string
	// Answerer answers (rag.NewAnswerer: a model's, or the extractive
	// one).
	Answerer rag.Answerer
	// Options are the pipeline's options; a request's cite_format
	// overrides CiteFormat.
	Options rag.PipelineOptions
	// Token, when set, is required as "Authorization: Bearer <Token>".
	Token string
	// MaxBodyBytes bounds the body of a request to /v1/answers; default
	// 64 KiB.
	MaxBodyBytes int64
	// MaxChatBodyBytes bounds the body of a request to
	// /v1/chat/completions, which carries the whole conversation (pasted
	// text and all); default 16 MiB.
	MaxChatBodyBytes int64
	// MaxConversations bounds the conversations kept in memory; the
	// oldest is forgotten past it. Default 1000.
	MaxConversations int
	// MaxTurns bounds the turns a conversation keeps in memory; older
	// ones are dropped (the model only ever sees the last few). Default 20.
	MaxTurns int
	// BodyTimeout: a request body must arrive within it, or the request
	// is answered 408 and the connection closed. Default 30 s.
	BodyTimeout time.Duration
	// NoSourcesBlock leaves the sources list out of the text of
	// /v1/chat/completions answers (a request may still ask for it with
	// "ibid_sources": true); their citations still come as data.
	NoSourcesBlock bool
}

// Server answers over HTTP:
//
//	POST /v1/answers           {"question", "cite_format", "conversation_id"} → text/event-stream
//	GET  /v1/segments/{id}     the passage, its page and its neighbours, as JSON
//	POST /v1/chat/completions  the OpenAI-compatible face (chat.go)
//	GET  /v1/models
//
// Conversations are kept in memory by id (at most MaxConversations, each
// with its last MaxTurns turns; the model sees no more than those). A
// request with a wrong or missing token is refused before its body is
// read, and its connection closed. Each answer streams as
// server-sent events, "event: <type>" and "data: <the ndjson object>",
// flushed per event. A client that goes away cancels its model request.
// Requests are served concurrently; answers in one conversation take turns.
type Server struct {
	cfg       ServerConfig
	pipelines map[citations.Mode]*rag.Pipeline
	mux       *http.ServeMux

	convs   *Conversations // conversations of /v1/answers
	chat    *chatMemory    // conversations of /v1/chat/completions
	started time.Time
}

// NewServer returns the handler of `ibid serve`.
func NewServer(cfg ServerConfig) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 64 << 10
	}
	if cfg.MaxChatBodyBytes <= 0 {
		cfg.MaxChatBodyBytes = 16 << 20
	}
	if cfg.MaxConversations <= 0 {
		cfg.MaxConversations = 1000
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = 20
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = 30 * time.Second
	}
	s := &Server{cfg: cfg, pipelines: map[citations.Mode]*rag.Pipeline{}, convs: NewConversations(cfg.LibraryName, cfg.MaxConversations, cfg.MaxTurns),
		chat: newChatMemory(cfg.MaxConversations), started: time.Now()}
	for _, mode := range []citations.Mode{citations.ModeInline, citations.ModeJSON, citations.ModeSections} {
		opt := cfg.Options
		opt.CiteFormat = mode
		s.pipelines[mode] = rag.NewPipeline(cfg.Library, cfg.Answerer, opt)
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /v1/answers", s.answer)
	s.mux.HandleFunc("GET /v1/segments/{id}", s.segment)
	s.mux.HandleFunc("POST /v1/chat/completions", s.chatCompletions)
	s.mux.HandleFunc("GET /v1/models", s.models)
	s.mux.HandleFunc("GET /v1/models/{id...}", s.modelByID)
	return s
}

// ServeHTTP checks the token on the headers, before any of the body is
// read: a request without it is answered 401 at once and its connection
// closed, however slowly its body trickles in.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !BearerOK(r, s.cfg.Token) {
		s.unauthorized(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// refuse answers with an error and closes the connection without reading
// what is left of the body (net/http would otherwise wait for up to 256 KiB
// of it before closing).
func refuse(w http.ResponseWriter, status int, msg string) {
	closeAfter(w, func() { jsonError(w, status, msg) })
}

// closeAfter writes an answer with write, sends it, and closes the
// connection without reading what is left of the request's body.
func closeAfter(w http.ResponseWriter, write func()) {
	w.Header().Set("Connection", "close")
	write()
	rc := http.NewResponseController(w)
	rc.Flush()
	rc.SetReadDeadline(time.Now())
}

// answerRequest is the body of POST /v1/answers.
type answerRequest struct {
	Question       string     `json:"question"`
	CiteFormat     citeFormat `json:"cite_format"`
	ConversationID string     `json:"conversation_id"`
}

// citeFormat is a request's cite_format: the mode it names, if it names
// one (absent or "": the server's own).
type citeFormat struct {
	mode citations.Mode
	set  bool
}

func (c *citeFormat) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*c = citeFormat{}
		return nil
	}
	c.set = true
	return c.mode.UnmarshalText(b)
}

// ConversationHeader carries the conversation's id in an answer's response,
// so a client can continue it.
const ConversationHeader = "Ibid-Conversation-Id"

func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	var req answerRequest
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	err := dec.Decode(&req)
	rc.SetReadDeadline(time.Time{}) // the answer may stream for longer
	if err != nil {
		var tooBig *http.MaxBytesError
		var nerr net.Error
		switch {
		case errors.As(err, &tooBig):
			refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %s, this server's limit for a question", byteSize(tooBig.Limit)))
			return
		case errors.As(err, &nerr) && nerr.Timeout():
			refuse(w, http.StatusRequestTimeout, fmt.Sprintf("the body did not arrive within %s: send it whole, at once", s.cfg.BodyTimeout))
			return
		case errors.Is(err, citations.ErrUnknownMode):
			jsonError(w, http.StatusBadRequest, `"cite_format" must be inline, json or sections`)
			return
		}
		jsonError(w, http.StatusBadRequest, "the body must be JSON: {\"question\": \"...\"}: "+err.Error())
		return
	}
	req.Question = strings.TrimSpace(req.Question)
	if req.Question == "" {
		jsonError(w, http.StatusBadRequest, `"question" is empty`)
		return
	}
	p := s.pipelines[s.cfg.Options.CiteFormat]
	if req.CiteFormat.set {
		p = s.pipelines[req.CiteFormat.mode]
	}
	held, _ := s.convs.Open(req.ConversationID, true)
	defer held.Close()
	conv := held.Conv

	fl, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Set(ConversationHeader, conv.ID)
	w.WriteHeader(http.StatusOK)
	if fl != nil {
		fl.Flush()
	}
	sse := &SSEWriter{w: w}
	// r.Context() ends when the client goes away: the model request stops.
	p.Answer(r.Context(), conv, req.Question, func(e rag.Event) {
		sse.Write(e)
	})
}

// Conversation returns a snapshot of the conversation with id, if kept:
// its last MaxTurns turns. It waits for an answer in progress to end.
func (s *Server) Conversation(id string) (*rag.Conversation, bool) {
	return s.convs.Snapshot(id)
}

// segmentJSON is the body of GET /v1/segments/{id}.
type segmentJSON struct {
	SegmentID  string        `json:"segment_id"`
	DocumentID string        `json:"document_id"`
	Index      int           `json:"index"`
	Title      string        `json:"title"`
	Path       string        `json:"path,omitempty"`
	URL        string        `json:"url,omitempty"`
	PageStart  int           `json:"page_start,omitempty"`
	PageEnd    int           `json:"page_end,omitempty"`
	Section    []string      `json:"section,omitempty"`
	Text       string        `json:"text"`
	Previous   *neighbourSeg `json:"previous,omitempty"`
	Next       *neighbourSeg `json:"next,omitempty"`
}

type neighbourSeg struct {
	SegmentID string `json:"segment_id"`
	PageStart int    `json:"page_start,omitempty"`
	PageEnd   int    `json:"page_end,omitempty"`
	Text      string `json:"text"`
}

func (s *Server) segment(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	seg, doc, err := s.cfg.Library.Segment(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		jsonError(w, http.StatusNotFound, fmt.Sprintf("no segment %q in library %q", id, s.cfg.LibraryName))
		return
	}
	if err != nil {
		jsonError(w, http.StatusInternalServerError, fmt.Sprintf("couldn't read segment %q: %v", id, err))
		return
	}
	out := segmentJSON{
		SegmentID: seg.ID, DocumentID: seg.DocumentID, Index: seg.Index,
		Title: doc.Title, Path: doc.Path, URL: doc.URL,
		PageStart: seg.PageStart, PageEnd: seg.PageEnd, Section: seg.Section, Text: seg.Text,
	}
	if out.Title == "" {
		out.Title = doc.Path
	}
	neighbours, err := s.cfg.Library.Segments(r.Context(), seg.DocumentID)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, fmt.Sprintf("couldn't read the passages around %q: %v", id, err))
		return
	}
	for _, n := range neighbours {
		nb := &neighbourSeg{SegmentID: n.ID, PageStart: n.PageStart, PageEnd: n.PageEnd, Text: n.Text}
		switch n.Index {
		case seg.Index - 1:
			out.Previous = nb
		case seg.Index + 1:
			out.Next = nb
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// byteSize is n bytes as a reader says it: "16 MiB", "64 KiB", or
// "1500 bytes" when it is no whole number of either.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func jsonError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// SSEWriter writes events as server-sent events: "event: <type>" and
// "data: <the ndjson object>", then a blank line, flushed per event. The
// JSON never contains a newline, so one data line always suffices. The
// writer is flushed when it is an http.Flusher.
type SSEWriter struct {
	w   io.Writer
	buf []byte
}

func (s *SSEWriter) Write(e rag.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("couldn't encode a %s event: %w", e.Type, err)
	}
	s.buf = append(s.buf[:0], "event: "...)
	s.buf = append(s.buf, e.Type...)
	s.buf = append(s.buf, "\ndata: "...)
	s.buf = append(s.buf, b...)
	s.buf = append(s.buf, "\n\n"...)
	if _, err := s.w.Write(s.buf); err != nil {
		return err
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}
