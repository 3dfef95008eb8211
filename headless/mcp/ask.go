package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ibid-dev/ibid/headless"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llm"
)

// askArgs are ask's arguments.
type askArgs struct {
	Question       string `json:"question" jsonschema:"the question, in the user's words; a follow-up may lean on earlier questions of the same conversation_id"`
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"to ask a follow-up: the conversation_id of an earlier answer (the library then sees the earlier questions and answers); leave it out for a new question"`
}

// askResult is ask's answer. Answer is the text to show the user, its
// footnotes [n] in place and its sources listed at the end; Footnotes
// describe the sources one by one, in the order of their numbers.
type askResult struct {
	Answer         string              `json:"answer" jsonschema:"the answer with its footnotes [n] and, at its end, the list of sources: show it as it is"`
	Footnotes      []headless.Footnote `json:"footnotes" jsonschema:"the cited sources, footnote 1 first: display_number, segment_id (for get_passage), title, pages (page_start, page_end), section, path or url; quote, the sentence of the passage the footnote rests on; verdict, whether that passage says what the answer's sentence citing it (claim) says: supported, partial, unsupported, or unchecked"`
	Unsupported    []int               `json:"unsupported,omitempty" jsonschema:"the footnotes whose passages do not say what the sentences citing them say: tell the user, do not present those sentences as sourced"`
	ConversationID string              `json:"conversation_id" jsonschema:"pass it with a follow-up question"`
	Model          string              `json:"model" jsonschema:"what wrote the answer: a model's name, or extractive (quoted sentences, no model configured)"`
	Interrupted    bool                `json:"interrupted,omitempty" jsonschema:"true when the answer was cut off; what came is kept"`
	Note           string              `json:"note,omitempty"`
}

func (s *server) addAsk(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name: "ask",
		Description: fmt.Sprintf("Ask the user's document library (%q) a question and get a written answer whose every claim carries a numbered footnote [n] "+
			"that leads to the exact passage, document and page; the sources are listed at the end, each with the words it rests on (quote) and its segment_id. "+
			"Every footnote is checked against its passage (verdict: supported, partial, unsupported, unchecked); unsupported ones are named at the end of the answer and in unsupported. "+
			"Show the answer with its footnotes and sources as they are. It can take a while (a model writes it); progress is reported. "+
			"For a follow-up, pass the conversation_id of the earlier answer.", s.cfg.LibraryName),
		Annotations: readOnly("Ask the library"),
	}, s.ask)
}

func (s *server) ask(ctx context.Context, req *sdk.CallToolRequest, in askArgs) (*sdk.CallToolResult, askResult, error) {
	var out askResult
	question := strings.TrimSpace(in.Question)
	if question == "" {
		return nil, out, errors.New("question is empty: give the question to answer from the library")
	}
	if docs, err := s.cfg.Library.Documents(ctx); err == nil && len(docs) == 0 {
		return nil, out, fmt.Errorf("the library %q is empty: the user adds documents with `ibid add --library %s PATH`", s.cfg.LibraryName, s.cfg.LibraryName)
	}
	conv, ok := s.convs.Open(in.ConversationID, false)
	if !ok {
		return nil, out, fmt.Errorf("no conversation %q: conversations are kept while the server runs (the last %d); ask without conversation_id to start a new one", in.ConversationID, s.convs.Max())
	}
	defer conv.Close() // trims it to its last turns

	pr := newProgress(ctx, req)
	pr.say("searching library " + s.cfg.LibraryName)
	ctx = llm.WithNotify(ctx, func(w llm.Wait) { pr.say(w.String()) })
	reply := headless.NewReply(s.cfg.Library, headless.ReplyOptions{Sources: true, SegmentIDs: true})
	var text strings.Builder
	err := s.pipeline.Answer(ctx, conv.Conv, question, func(e rag.Event) {
		if e.Type == rag.EventDone && !reply.Started() && reply.Err() != "" {
			return // failed before it began: a tool error says so
		}
		t, fn := reply.Add(ctx, e)
		text.WriteString(t)
		switch {
		case fn != nil:
			pr.say(fmt.Sprintf("cited [%d] %s", fn.Number, rag.SourceLine(fn.Source, false)))
		case e.Type == rag.EventSupport && e.Support != nil:
			pr.say(fmt.Sprintf("checked [%d]: %s", e.Support.Number, e.Support.Verdict))
		case e.Type == rag.EventText:
			pr.writing(text.Len())
		}
	})
	switch {
	case ctx.Err() != nil:
		return nil, out, errors.New("cancelled")
	case !reply.Started() && reply.Err() != "":
		return nil, out, errors.New(reply.Err())
	}
	out.Answer = text.String()
	out.Footnotes = make([]headless.Footnote, len(reply.Footnotes()))
	for i, fn := range reply.Footnotes() {
		fn.Boxes = nil // page geometry, for viewers
		out.Footnotes[i] = fn
		if fn.Verdict == rag.Unsupported {
			out.Unsupported = append(out.Unsupported, fn.Number)
		}
	}
	out.ConversationID = conv.Conv.ID
	if info := reply.Info(); info != nil {
		out.Model, out.Interrupted, out.Note = info.Model, info.Interrupted || err != nil, info.Note
	}
	pr.say(fmt.Sprintf("done: %d sources", len(out.Footnotes)))
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out.Answer}}}, out, nil
}

// progress reports how an answer advances to a client that asked for it
// (a progress token on the call): searching, each source as it is cited,
// the text as it grows (at most every progressEvery), retry waits.
// Progress counts the notifications, so it always increases.
type progress struct {
	ctx   context.Context
	req   *sdk.CallToolRequest
	token any
	n     float64
	last  time.Time
}

// progressEvery spaces the notifications of a growing text.
const progressEvery = 250 * time.Millisecond

func newProgress(ctx context.Context, req *sdk.CallToolRequest) *progress {
	p := &progress{ctx: ctx, req: req}
	if req != nil && req.Params != nil {
		p.token = req.Params.GetProgressToken()
	}
	return p
}

func (p *progress) say(msg string) {
	if p.token == nil || p.req.Session == nil {
		return
	}
	p.n++
	p.last = time.Now()
	p.req.Session.NotifyProgress(p.ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: msg})
}

func (p *progress) writing(bytes int) {
	if p.token != nil && time.Since(p.last) >= progressEvery {
		p.say(fmt.Sprintf("writing the answer: %d characters", bytes))
	}
}
