package headless

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/rag"
)

// This file is the OpenAI-compatible face of `ibid serve`: the library
// answers as a chat model, so that any chat-completions client (Open
// WebUI, LibreChat, the openai packages) asks it questions.
//
//	POST /v1/chat/completions   the last user message is the question; earlier
//	                            messages are the conversation
//	GET  /v1/models             the library, as the one model "ibid/<library>"
//	GET  /v1/models/{id}
//
// Footnotes are [n] in the text, final as they stream; the sources end the
// text (unless turned off) and come as `citations` (Footnote objects) on
// the last chunk, and each source also goes out as Open WebUI's "source"
// event when it is first cited (docs/answers.md).

// ModelID is the model name under which the library called name answers.
func ModelID(name string) string { return "ibid/" + name }

// chatRequest is the body of POST /v1/chat/completions. Fields of the
// OpenAI request that ibid has no use for (temperature, max_tokens, tools,
// …) are accepted and ignored.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Stream   bool          `json:"stream"`
	N        *int          `json:"n"`
	// Sources, ibid's own, overrides whether the text ends with the
	// sources (ServerConfig.NoSourcesBlock).
	Sources *bool `json:"ibid_sources"`
}

// chatMessage is one message of a chat request. Content is a string, or a
// list of parts of which the text ones count, or null.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is the message's text: its string content, or its text parts
// joined by blank lines.
func (m chatMessage) text() (string, error) {
	c := m.Content
	if len(c) == 0 || string(c) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(c, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(c, &parts); err != nil {
		return "", fmt.Errorf("a %s message's content must be a string or a list of parts", m.Role)
	}
	var texts []string
	for _, p := range parts {
		if (p.Type == "text" || p.Type == "input_text") && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n\n"), nil
}

// apiError is an error in the OpenAI wire form, which every
// chat-completions client reads.
type apiError struct {
	status  int
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func badRequest(param, msg string) *apiError {
	return &apiError{status: http.StatusBadRequest, Message: msg, Type: "invalid_request_error", Param: &param}
}

func (e *apiError) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	json.NewEncoder(w).Encode(map[string]*apiError{"error": e})
}

// openAIPath reports whether path is served in the OpenAI wire form.
func openAIPath(path string) bool {
	return path == "/v1/chat/completions" || path == "/v1/models" || strings.HasPrefix(path, "/v1/models/")
}

// unauthorized answers a request without the token (checked on the
// headers, before any of the body is read) and closes its connection: in
// the OpenAI form on the OpenAI paths, as {"error": "..."} elsewhere.
func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="ibid"`)
	if !openAIPath(r.URL.Path) {
		refuse(w, http.StatusUnauthorized, tokenRequired)
		return
	}
	code := "invalid_api_key"
	e := &apiError{status: http.StatusUnauthorized, Message: tokenRequired + " (the API key of your client)", Type: "invalid_request_error", Code: &code}
	closeAfter(w, func() { e.write(w) })
}

// modelJSON is a model of GET /v1/models.
type modelJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func (s *Server) model() modelJSON {
	return modelJSON{ID: ModelID(s.cfg.LibraryName), Object: "model", Created: s.started.Unix(), OwnedBy: "ibid"}
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []modelJSON{s.model()}})
}

func (s *Server) modelByID(w http.ResponseWriter, r *http.Request) {
	if err := s.checkModel(r.PathValue("id")); err != nil {
		err.write(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s.model())
}

// checkModel accepts the library's model id, its bare library name, and
// no model at all.
func (s *Server) checkModel(name string) *apiError {
	id := ModelID(s.cfg.LibraryName)
	if name == "" || name == id || name == s.cfg.LibraryName {
		return nil
	}
	code, param := "model_not_found", "model"
	return &apiError{status: http.StatusNotFound, Type: "invalid_request_error", Param: &param, Code: &code,
		Message: fmt.Sprintf("the model %q does not exist: this server answers from the library %q as the model %q (GET /v1/models lists it)", name, s.cfg.LibraryName, id)}
}

// readChat reads and checks the body of a chat request.
func (s *Server) readChat(w http.ResponseWriter, r *http.Request) (*chatRequest, *apiError) {
	var req chatRequest
	limit := s.cfg.MaxChatBodyBytes
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit)).Decode(&req)
	rc.SetReadDeadline(time.Time{}) // the answer may stream for longer
	if err != nil {
		var tooBig *http.MaxBytesError
		var nerr net.Error
		switch {
		case errors.As(err, &tooBig):
			w.Header().Set("Connection", "close")
			return nil, &apiError{status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error",
				Message: fmt.Sprintf("the body is larger than %s, this server's limit for a chat request (the whole conversation): start a new conversation, or send less of it", byteSize(tooBig.Limit))}
		case errors.As(err, &nerr) && nerr.Timeout():
			w.Header().Set("Connection", "close")
			return nil, &apiError{status: http.StatusRequestTimeout, Type: "invalid_request_error",
				Message: fmt.Sprintf("the body did not arrive within %s: send it whole, at once", s.cfg.BodyTimeout)}
		}
		return nil, badRequest("", `the body must be JSON: {"model": "`+ModelID(s.cfg.LibraryName)+`", "messages": [{"role": "user", "content": "..."}]}: `+err.Error())
	}
	if e := s.checkModel(req.Model); e != nil {
		return nil, e
	}
	if req.N != nil && *req.N != 1 {
		return nil, badRequest("n", `"n" must be 1: ibid gives one answer`)
	}
	if len(req.Messages) == 0 {
		return nil, badRequest("messages", `"messages" is empty: send at least the question, as {"role": "user", "content": "..."}`)
	}
	return &req, nil
}

// chatCompletions answers POST /v1/chat/completions, streaming or not.
func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	req, aerr := s.readChat(w, r)
	if aerr != nil {
		aerr.write(w)
		return
	}
	conv, question, aerr := s.chatConversation(req.Messages)
	if aerr != nil {
		aerr.write(w)
		return
	}
	opt := ReplyOptions{Sources: !s.cfg.NoSourcesBlock, Markdown: true}
	if req.Sources != nil {
		opt.Sources = *req.Sources
	}
	ctx := r.Context()
	reply := NewReply(s.cfg.Library, opt)
	out := newChatOutput(w, req.Stream, ModelID(s.cfg.LibraryName))
	// ctx ends when the client goes away: the model request stops.
	s.pipelines[s.cfg.Options.CiteFormat].Answer(ctx, conv, question, func(e rag.Event) {
		if e.Type == rag.EventDone && !out.started && reply.Err() != "" {
			return // failed before it began: answered below with an HTTP error
		}
		text, fn := reply.Add(ctx, e)
		out.add(text, fn)
	})
	switch {
	case ctx.Err() != nil:
		return // nobody is listening
	case !out.started && reply.Err() != "":
		// The answer failed before it began: an HTTP error says so, which
		// every client shows.
		(&apiError{status: http.StatusBadGateway, Type: "server_error", Message: reply.Err()}).write(w)
		return
	}
	out.finish(reply.Footnotes())
	if n := len(conv.Turns) - s.cfg.MaxTurns; n > 0 {
		conv.Turns = append([]rag.Turn(nil), conv.Turns[n:]...)
	}
	s.chat.remember(out.content.String(), conv)
}

// newCompletionID is a fresh "chatcmpl-…" id.
func newCompletionID() string {
	var b [12]byte
	rand.Read(b[:])
	return "chatcmpl-" + hex.EncodeToString(b[:])
}
