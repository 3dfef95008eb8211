package headless

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// Library is what the server needs of a library: the pipeline's retriever
// and a document's segments in order (for a passage's neighbours).
type Library interface {
	rag.Retriever
	Segments(docID string) []store.Segment
}

// ServerConfig configures NewServer.
type ServerConfig struct {
	Library     Library
	LibraryName string
	Model       *rag.Model // nil: the extractive answerer
	// Options are the pipeline's options; a request's cite_format
	// overrides CiteFormat.
	Options rag.PipelineOptions
	// Token, when set, is required as "Authorization: Bearer <Token>".
	Token string
	// MaxBodyBytes bounds a request body; default 64 KiB.
	MaxBodyBytes int64
	// MaxConversations bounds the conversations kept in memory; the
	// oldest is forgotten past it. Default 1000.
	MaxConversations int
}

// Server answers over HTTP:
//
//	POST /v1/answers           {"question", "cite_format", "conversation_id"} → text/event-stream
//	GET  /v1/segments/{id}     the passage, its page and its neighbours, as JSON
//
// Conversations are kept in memory by id. Each answer streams as
// server-sent events, "event: <type>" and "data: <the ndjson object>",
// flushed per event. A client that goes away cancels its model request.
// Requests are served concurrently; answers in one conversation take turns.
type Server struct {
	cfg       ServerConfig
	pipelines map[citations.Mode]*rag.Pipeline
	mux       *http.ServeMux

	mu    sync.Mutex
	convs map[string]*rag.Conversation
	order []string // conversation ids, oldest first
}

// NewServer returns the handler of `ibid serve`.
func NewServer(cfg ServerConfig) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 64 << 10
	}
	if cfg.MaxConversations <= 0 {
		cfg.MaxConversations = 1000
	}
	s := &Server{cfg: cfg, pipelines: map[citations.Mode]*rag.Pipeline{}, convs: map[string]*rag.Conversation{}}
	for _, name := range []string{"inline", "json", "sections"} {
		mode, err := citations.ParseMode(name)
		if err != nil {
			continue
		}
		opt := cfg.Options
		opt.CiteFormat = mode
		s.pipelines[mode] = rag.NewPipeline(cfg.Library, cfg.Model, opt)
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /v1/answers", s.answer)
	s.mux.HandleFunc("GET /v1/segments/{id}", s.segment)
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Token != "" {
		auth := r.Header.Get("Authorization")
		want := "Bearer " + s.cfg.Token
		if subtle.ConstantTimeCompare([]byte(auth), []byte(want)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ibid"`)
			jsonError(w, http.StatusUnauthorized, "a bearer token is required: send Authorization: Bearer <token>")
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// answerRequest is the body of POST /v1/answers.
type answerRequest struct {
	Question       string `json:"question"`
	CiteFormat     string `json:"cite_format"`
	ConversationID string `json:"conversation_id"`
}

// ConversationHeader carries the conversation's id in an answer's response,
// so a client can continue it.
const ConversationHeader = "Ibid-Conversation-Id"

func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	var req answerRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			jsonError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", tooBig.Limit))
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
	if req.CiteFormat != "" {
		mode, err := citations.ParseMode(req.CiteFormat)
		if err != nil || s.pipelines[mode] == nil {
			jsonError(w, http.StatusBadRequest, `"cite_format" must be inline, json or sections`)
			return
		}
		p = s.pipelines[mode]
	}
	conv := s.conversation(req.ConversationID)

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

// conversation returns the conversation id names, creating it (with that
// id, or a new one when id is empty).
func (s *Server) conversation(id string) *rag.Conversation {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.convs[id]; ok && id != "" {
		return c
	}
	c := rag.NewConversation(s.cfg.LibraryName)
	if id != "" {
		c.ID = id
	}
	s.convs[c.ID] = c
	s.order = append(s.order, c.ID)
	for len(s.order) > s.cfg.MaxConversations {
		delete(s.convs, s.order[0])
		s.order = s.order[1:]
	}
	return c
}

// Conversation returns a snapshot of the conversation with id, if kept.
func (s *Server) Conversation(id string) (*rag.Conversation, bool) {
	s.mu.Lock()
	c, ok := s.convs[id]
	s.mu.Unlock()
	if !ok {
		return nil, false
	}
	return c.Snapshot(), true
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
	seg, doc, ok := s.cfg.Library.Segment(id)
	if !ok {
		jsonError(w, http.StatusNotFound, fmt.Sprintf("no segment %q in library %q", id, s.cfg.LibraryName))
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
	for _, n := range s.cfg.Library.Segments(seg.DocumentID) {
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

func jsonError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// SSEWriter writes events as server-sent events: "event: <type>" and
// "data: <the ndjson object>", then a blank line, flushed per event. The
// JSON never contains a newline, so one data line always suffices.
type SSEWriter struct {
	w   io.Writer
	buf []byte
}

// NewSSEWriter returns an SSEWriter on w (flushed when w is an
// http.Flusher).
func NewSSEWriter(w io.Writer) *SSEWriter { return &SSEWriter{w: w} }

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
