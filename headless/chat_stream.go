package headless

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/rag"
)

// chatOutput writes one chat completion: streamed as `data: {chunk}`
// server-sent events ending with `data: [DONE]`, or, not streaming, as one
// chat.completion object once the answer is whole.
//
// Invariants: nothing is written before the first piece of the answer
// (text, a reference or a source), so an answer that fails before it
// begins can still be answered with an HTTP error; content holds all the
// text sent, in order.
type chatOutput struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	stream  bool
	id      string
	model   string
	created int64
	started bool
	content strings.Builder
}

func newChatOutput(w http.ResponseWriter, stream bool, model string) *chatOutput {
	return &chatOutput{w: w, rc: http.NewResponseController(w), stream: stream,
		id: newCompletionID(), model: model, created: time.Now().Unix()}
}

// chunkJSON is one chat.completion.chunk. Event and Citations are ibid's
// additions, which OpenAI clients ignore: Event carries a source in the
// form Open WebUI shows (its "source" event), Citations the footnotes on
// the last chunk.
type chunkJSON struct {
	ID        string        `json:"id"`
	Object    string        `json:"object"`
	Created   int64         `json:"created"`
	Model     string        `json:"model"`
	Choices   []chunkChoice `json:"choices"`
	Citations []Footnote    `json:"citations,omitempty"`
	Event     *webUIEvent   `json:"event,omitempty"`
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

// completionJSON is the chat.completion of a request that does not stream.
type completionJSON struct {
	ID        string             `json:"id"`
	Object    string             `json:"object"`
	Created   int64              `json:"created"`
	Model     string             `json:"model"`
	Choices   []completionChoice `json:"choices"`
	Citations []Footnote         `json:"citations"`
}

type completionChoice struct {
	Index        int         `json:"index"`
	Message      chatMessage `json:"message"`
	FinishReason string      `json:"finish_reason"`
}

// add sends the next piece of the answer: text to append, or a newly
// cited source.
func (o *chatOutput) add(text string, fn *Footnote) {
	if text == "" && fn == nil {
		return
	}
	o.start()
	o.content.WriteString(text)
	if !o.stream {
		return
	}
	if fn != nil {
		o.send(chunkJSON{Choices: []chunkChoice{{}}, Event: webUISource(*fn)})
	}
	if text != "" {
		o.send(chunkJSON{Choices: []chunkChoice{{Delta: delta{Content: &text}}}})
	}
}

// start writes the headers and, streaming, the first chunk (the role).
func (o *chatOutput) start() {
	if o.started {
		return
	}
	o.started = true
	if !o.stream {
		return
	}
	h := o.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	o.w.WriteHeader(http.StatusOK)
	empty := ""
	o.send(chunkJSON{Choices: []chunkChoice{{Delta: delta{Role: "assistant", Content: &empty}}}})
}

// send writes one chunk and flushes it. A write error means the client
// went away; the request's context then stops the answer.
func (o *chatOutput) send(c chunkJSON) {
	c.ID, c.Object, c.Created, c.Model = o.id, "chat.completion.chunk", o.created, o.model
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	o.w.Write(append(append([]byte("data: "), b...), '\n', '\n'))
	o.rc.Flush()
}

// finish ends the completion: the last chunk (finish_reason "stop", the
// footnotes as citations) and [DONE], or the whole chat.completion.
func (o *chatOutput) finish(footnotes []Footnote) {
	o.start()
	stop := "stop"
	cites := make([]Footnote, len(footnotes))
	copy(cites, footnotes)
	if !o.stream {
		content, _ := json.Marshal(o.content.String())
		o.w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(o.w).Encode(completionJSON{
			ID: o.id, Object: "chat.completion", Created: o.created, Model: o.model,
			Choices:   []completionChoice{{Message: chatMessage{Role: "assistant", Content: content}, FinishReason: stop}},
			Citations: cites,
		})
		return
	}
	o.send(chunkJSON{Choices: []chunkChoice{{FinishReason: &stop}}, Citations: cites})
	o.w.Write([]byte("data: [DONE]\n\n"))
	o.rc.Flush()
}

// webUIEvent is an event in the form Open WebUI reads from a streamed
// chunk's "event" field and hands to its chat view: a "source" shows in
// the message's source list, and the answer's [n] opens the n-th of them.
// Each footnote is one source, sent at its first citation, so the n-th
// source Open WebUI lists is footnote n.
type webUIEvent struct {
	Type string       `json:"type"`
	Data webUISources `json:"data"`
}

// webUISources is the data of Open WebUI's "source" event: the source, the
// passages quoted from it and one metadata object per passage. Open WebUI
// groups passages by metadata.source, so each footnote's is its segment
// id; it shows metadata.name, the passage, and "page" counted from 0.
type webUISources struct {
	Source   webUIRef        `json:"source"`
	Document []string        `json:"document"`
	Metadata []webUIMetadata `json:"metadata"`
}

type webUIRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type webUIMetadata struct {
	Source string `json:"source"`
	Name   string `json:"name"`
	Page   *int   `json:"page,omitempty"`
}

// webUISource is footnote fn as Open WebUI's source event.
func webUISource(fn Footnote) *webUIEvent {
	name := fn.Title
	if p := rag.Pages(fn.PageStart, fn.PageEnd); p != "" {
		name += ", " + p
	}
	if fn.Section != "" {
		name += ", § " + fn.Section
	}
	passage := fn.passage
	if passage == "" {
		passage = fn.Snippet
	}
	md := webUIMetadata{Source: fn.SegmentID, Name: name}
	if fn.PageStart > 0 {
		page := fn.PageStart - 1
		md.Page = &page
	}
	ref := webUIRef{ID: fn.SegmentID, Name: name}
	if strings.HasPrefix(fn.URL, "http://") || strings.HasPrefix(fn.URL, "https://") {
		ref.URL = fn.URL
	}
	return &webUIEvent{Type: "source", Data: webUISources{Source: ref, Document: []string{passage}, Metadata: []webUIMetadata{md}}}
}
