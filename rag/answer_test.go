package rag

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

const beeAnswer = "Honey bees pollinate almond orchards [source_1]. Mites spread viruses that collapse colonies [source_2, source_1].\n\nThey visit thousands of blossoms [source_1]."

func TestAnswerInlineSplitTokens(t *testing.T) {
	for _, size := range []int{1, 3, 7, 1000} {
		t.Run("chunk="+strconv.Itoa(size), func(t *testing.T) {
			srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(beeAnswer, size), Pings: 2})
			defer srv.Close()
			p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
			conv := NewConversation("test")
			evs, err := collect(t, p, conv, "Do honey bees pollinate almond orchards? Why do colonies collapse?")
			if err != nil {
				t.Fatal(err)
			}
			checkOrder(t, evs)
			want := "Honey bees pollinate almond orchards [1]. Mites spread viruses that collapse colonies [2][1].\n\nThey visit thousands of blossoms [1]."
			if got := plain(evs); got != want {
				t.Errorf("answer\n got %q\nwant %q", got, want)
			}
			done := evs[len(evs)-1]
			if done.Total != 2 || len(done.Order) != 2 {
				t.Fatalf("done %+v", done)
			}
			turn := conv.Turns[0]
			if turn.Text() != want || turn.Interrupted || turn.Inferred {
				t.Errorf("turn %+v", turn)
			}
			s1 := turn.Sources[0]
			if s1.Number != 1 || s1.Alias != "source_1" || s1.Title == "" || s1.SegmentID != done.Order[0] {
				t.Errorf("source 1 = %+v", s1)
			}
		})
	}
}

func TestPromptBlocksAndAliases(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Pollen [source_1]."}})
	defer srv.Close()
	lib := newFakeLibrary()
	p := NewPipeline(lib, ModelAnswerer(connect(t, srv)), PipelineOptions{})
	conv := NewConversation("test")
	if _, err := collect(t, p, conv, "honey bees pollinate almond pollen passage"); err != nil {
		t.Fatal(err)
	}
	first := map[string]int{}
	for id, k := range conv.Aliases {
		first[id] = k
	}
	if _, err := collect(t, p, conv, "ocean currents climate and bees"); err != nil {
		t.Fatal(err)
	}
	for id, k := range first {
		if conv.Aliases[id] != k {
			t.Errorf("alias of %s changed from %d to %d", id, k, conv.Aliases[id])
		}
	}
	seen := map[int]bool{}
	for _, k := range conv.Aliases {
		if seen[k] {
			t.Errorf("alias %d given twice", k)
		}
		seen[k] = true
	}
	if len(conv.Aliases) <= len(first) {
		t.Errorf("second question offered no new segment: %v", conv.Aliases)
	}
	reqs := srv.Requests()
	var last []struct{ Role, Content string }
	for _, m := range reqs[1].Messages {
		var msg struct{ Role, Content string }
		json.Unmarshal(m, &msg)
		last = append(last, msg)
	}
	sys := last[0].Content
	for _, want := range []string{"[source_3]", "only the ids", "list of sources", "do not answer"} {
		if !strings.Contains(sys, want) {
			t.Errorf("instructions lack %q", want)
		}
	}
	if last[1].Role != "user" || last[2].Role != "assistant" || !strings.Contains(last[2].Content, "[source_") {
		t.Errorf("history not sent with aliases: %+v", last[1:3])
	}
	user := last[len(last)-1].Content
	if !strings.Contains(user, "] Bees and Flowers — pp. 3–4 — §2 Methods › 2.1 Field sites\n") {
		t.Errorf("context block header missing:\n%s", user)
	}
	// A forged token inside a document must not reach the model as one.
	if strings.Contains(string(reqs[0].Messages[len(reqs[0].Messages)-1]), "[source_9]") {
		t.Errorf("document text was not neutralised")
	}
}

func TestAnswerJSONFallsBackWhenSchemaRefused(t *testing.T) {
	body := `{"body": "Bees pollinate almonds [source_1]. Caf\u00e9 \"quoted\" [source_2].", "citedSourceIds": ["source_1", "source_2"]}`
	srv := llmtest.New(llmtest.Reply{RefuseSchema: true, Chunks: llmtest.Split(body, 4)})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{CiteFormat: citations.ModeJSON})
	evs, err := collect(t, p, NewConversation("t"), "honey bees almond mites colonies")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	if got, want := plain(evs), `Bees pollinate almonds [1]. Café "quoted" [2].`; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].ResponseFormat.Type != "json_schema" || reqs[1].ResponseFormat.Type != "json_object" {
		t.Fatalf("formats asked: %+v", reqs)
	}
	if _, err := collect(t, p, NewConversation("t"), "honey bees"); err != nil {
		t.Fatal(err)
	}
	if reqs = srv.Requests(); len(reqs) != 3 || reqs[2].ResponseFormat.Type != "json_object" {
		t.Errorf("refusal not remembered: %+v", reqs[len(reqs)-1].ResponseFormat)
	}
}

func TestAnswerSections(t *testing.T) {
	body := `{"sections": [{"text": "Bees pollinate almonds.", "source_ids": ["source_1"]}, {"text": " Mites hurt colonies.", "source_ids": ["source_2", "source_1"]}]}`
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(body, 5)})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{CiteFormat: citations.ModeSections})
	evs, err := collect(t, p, NewConversation("t"), "honey bees almond mites colonies")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	if got, want := plain(evs), "Bees pollinate almonds.[1] Mites hurt colonies.[2][1]"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	if srv.Requests()[0].ResponseFormat.Type != "json_schema" {
		t.Errorf("sections did not ask for a schema")
	}
}

func TestAnswerRetriesBeforeFirstToken(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Status: http.StatusTooManyRequests}, llmtest.Reply{Status: http.StatusBadGateway},
		llmtest.Reply{Chunks: []string{"Bees [sour", "ce_1]."}})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
	evs, err := collect(t, p, NewConversation("t"), "honey bees")
	if err != nil {
		t.Fatal(err)
	}
	if got := plain(evs); got != "Bees [1]." {
		t.Errorf("got %q", got)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestAnswerGivesUpAfterRetries(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Status: http.StatusServiceUnavailable})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
	evs, err := collect(t, p, NewConversation("t"), "honey bees")
	if err == nil || llm.Status(err) != http.StatusServiceUnavailable || !errors.Is(err, llm.ErrRateLimited) {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("%d requests, want 1 + 4 retries", n)
	}
	ev := evs[len(evs)-2]
	if ev.Type != EventError || !strings.HasPrefix(ev.Text, "the model did not answer: the server is busy (HTTP 503), try again in ") {
		t.Errorf("error event %+v", ev)
	}
}

func TestAnswerRateLimitedSaysWhenToTryAgain(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "120"}})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
	conv := NewConversation("t")
	var waits []llm.Wait
	ctx := llm.WithNotify(context.Background(), func(w llm.Wait) { waits = append(waits, w) })
	var evs []Event
	err := p.Answer(ctx, conv, "honey bees", func(e Event) { evs = append(evs, e) })
	if !errors.Is(err, llm.ErrRateLimited) {
		t.Fatalf("err = %v", err)
	}
	ev := evs[len(evs)-2]
	if ev.Type != EventError || !strings.Contains(ev.Text, "rate limited, try again in 120 s") || strings.Contains(ev.Text, "cut off") {
		t.Errorf("error event %q", ev.Text)
	}
	if len(waits) != 0 || len(srv.Requests()) != 1 {
		t.Errorf("waited %v over %d requests for a Retry-After beyond the bound", waits, len(srv.Requests()))
	}
	if tr := conv.Turns[0]; !tr.Interrupted || tr.Error != ev.Text {
		t.Errorf("turn %+v", tr)
	}
	// A short Retry-After is waited for, and the wait reported.
	srv.SetReplies(llmtest.Reply{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After-Ms": "30"}},
		llmtest.Reply{Chunks: []string{"Bees [source_1]."}})
	evs = nil
	if err := p.Answer(ctx, conv, "honey bees", func(e Event) { evs = append(evs, e) }); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 1 || waits[0].String() != "rate limited, retrying in 1 s" || plain(evs) != "Bees [1]." {
		t.Errorf("waits %v, answer %q", waits, plain(evs))
	}
}

func TestAnswerStreamCut(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(beeAnswer, 10), Cut: 5})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
	conv := NewConversation("t")
	evs, err := collect(t, p, conv, "honey bees almond")
	if !errors.Is(err, llm.ErrStreamCut) || !strings.HasPrefix(err.Error(), "the answer was cut off: ") {
		t.Fatalf("err = %v, want ErrStreamCut", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests: a stream cut after content must not be retried", n)
	}
	checkOrder(t, evs)
	if got := plain(evs); got != "Honey bees pollinate almond orchards [1]. M" {
		t.Errorf("partial answer %q", got)
	}
	done, errEv := evs[len(evs)-1], evs[len(evs)-2]
	if errEv.Type != EventError || !done.Info.Interrupted {
		t.Errorf("want error then done interrupted; got %+v %+v", errEv, done.Info)
	}
	if tr := conv.Turns[0]; !tr.Interrupted || tr.Error == "" || !strings.HasPrefix(tr.Text(), "Honey bees") {
		t.Errorf("turn %+v", tr)
	}
}

func TestAnswerCancelStopsRequest(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Honey bees [source_1] ", "pollinate"}, Hang: true})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
	conv := NewConversation("t")
	ctx, cancel := context.WithCancel(context.Background())
	var evs []Event
	start := time.Now()
	var cancelled time.Time
	err := p.Answer(ctx, conv, "honey bees", func(e Event) {
		evs = append(evs, e)
		if e.Type == EventText && strings.Contains(e.Text, "pollinate") {
			cancelled = time.Now()
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if cancelled.IsZero() {
		t.Fatal("never cancelled")
	}
	if d := time.Since(cancelled); d > time.Second {
		t.Errorf("Answer returned %v after cancel", d)
	}
	select {
	case <-srv.Gone:
	case <-time.After(5 * time.Second):
		t.Fatal("server never saw the request end")
	}
	_ = start
	tr := conv.Turns[0]
	if !tr.Interrupted || tr.Text() != "Honey bees [1] pollinate" {
		t.Errorf("turn %+v %q", tr, tr.Text())
	}
	if evs[len(evs)-1].Type != EventDone || !evs[len(evs)-1].Info.Interrupted {
		t.Errorf("last event %+v", evs[len(evs)-1])
	}
}

func TestAnswerInfersWhenNothingCited(t *testing.T) {
	answer := "Honey bees pollinate almond orchards in California and visit thousands of blossoms.\n\nThe Gulf Stream carries warm water toward Europe.\n\nI am not sure about anything else."
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(answer, 6)})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
	conv := NewConversation("t")
	evs, err := collect(t, p, conv, "honey bees almond blossoms and the gulf stream warm water")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	done := evs[len(evs)-1]
	if !done.Inferred || !done.Info.Inferred || done.Total != 2 {
		t.Fatalf("done %+v info %+v", done, done.Info)
	}
	for _, e := range evs {
		if (e.Type == EventRef || e.Type == EventCitation) && !e.Inferred {
			t.Errorf("reference not marked inferred: %+v", e)
		}
	}
	tr := conv.Turns[0]
	want := "Honey bees pollinate almond orchards in California and visit thousands of blossoms.[1]\n\nThe Gulf Stream carries warm water toward Europe.[2]\n\nI am not sure about anything else."
	if tr.Text() != want {
		t.Errorf("turn redraw\n got %q\nwant %q", tr.Text(), want)
	}
	if !tr.Sources[0].Inferred || tr.Sources[0].Title != "Bees and Flowers" || tr.Sources[1].Title != "Ocean Currents" {
		t.Errorf("sources %+v", tr.Sources)
	}
	if !strings.Contains(conv.Markdown(), "(inferred)") {
		t.Errorf("markdown does not mark inferred:\n%s", conv.Markdown())
	}
}

func TestAnswerUnknownIDs(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split("Bees [source_1] and made up [source_99, source_1] [Source 42].", 3)})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
	evs, err := collect(t, p, NewConversation("t"), "honey bees")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	if got, want := plain(evs), "Bees [1] and made up [?][1] [?]."; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	var raws []string
	for _, e := range evs {
		if e.Type == EventUnknown {
			raws = append(raws, e.Text)
		}
	}
	if len(raws) != 2 {
		t.Errorf("unknown events %v", raws)
	}
	if rep := evs[len(evs)-1].Report; rep == nil || len(rep.Unknown) != 2 {
		t.Errorf("report %+v", rep)
	}
}

func TestAnswerSurvivesManyKeepAlives(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Bees ", "[source_1]."}, Pings: 400})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
	evs, err := collect(t, p, NewConversation("t"), "honey bees")
	if err != nil {
		t.Fatal(err)
	}
	if got := plain(evs); got != "Bees [1]." {
		t.Errorf("got %q", got)
	}
}

func TestExtractiveAnswer(t *testing.T) {
	p := NewPipeline(newFakeLibrary(), ExtractiveAnswerer(), PipelineOptions{})
	if !p.Extractive() || p.ModelName() != ExtractiveName {
		t.Fatalf("extractive pipeline reports %q", p.ModelName())
	}
	conv := NewConversation("t")
	evs, err := collect(t, p, conv, "How do honey bees pollinate almond orchards?")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	got := plain(evs)
	if !strings.HasPrefix(got, "Honey bees pollinate almond orchards in California. [1]") {
		t.Errorf("extractive answer %q", got)
	}
	done := evs[len(evs)-1]
	if !done.Info.Extractive || !strings.Contains(done.Info.Note, "OPENAI_BASE_URL") || done.Total == 0 {
		t.Errorf("done %+v", done.Info)
	}
	if !conv.Turns[0].Extractive || !strings.Contains(conv.Markdown(), "extractive") {
		t.Errorf("turn not marked extractive")
	}
	// Forged tokens in documents stay text.
	evs, _ = collect(t, p, conv, "forged citation passage about pollen")
	for _, e := range evs {
		if e.Type == EventUnknown {
			t.Errorf("a document forged a citation: %+v", e)
		}
	}
}

func TestConversationNumberingAndJSON(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"A [source_1] B [source_2]."}}, llmtest.Reply{Chunks: []string{"C [source_2] D [source_3]."}})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{Numbering: NumberingConversation})
	conv := NewConversation("t")
	collect(t, p, conv, "honey bees almond mites")
	evs, err := collect(t, p, conv, "honey bees almond mites gulf stream")
	if err != nil {
		t.Fatal(err)
	}
	if got := plain(evs); got != "C [2] D [3]." {
		t.Errorf("conversation numbering: %q", got)
	}
	b, err := json.Marshal(conv)
	if err != nil {
		t.Fatal(err)
	}
	var back Conversation
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Markdown() != conv.Markdown() {
		t.Errorf("markdown differs after a JSON round trip:\n%s\n---\n%s", back.Markdown(), conv.Markdown())
	}
	if !strings.Contains(conv.Markdown(), "D[^3]") || !strings.Contains(conv.Markdown(), "[^3]: ") {
		t.Errorf("markdown:\n%s", conv.Markdown())
	}
}

func TestConcurrentAnswers(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(beeAnswer, 4)})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{})
	var wg sync.WaitGroup
	convs := make([]*Conversation, 6)
	for i := range convs {
		convs[i] = NewConversation("t")
		wg.Add(1)
		go func(c *Conversation) {
			defer wg.Done()
			collect(t, p, c, "honey bees almond mites colonies")
		}(convs[i])
	}
	wg.Wait()
	for _, c := range convs {
		if len(c.Turns) != 1 || c.Turns[0].Text() == "" || len(c.Turns[0].Sources) != 2 {
			t.Errorf("conversation %s: %+v", c.ID, c.Turns)
		}
	}
}

func TestRecitedSourceKeepsItsDescription(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Bees [source_1]."}}, llmtest.Reply{Chunks: []string{"Again [source_1], and currents [source_2]."}})
	defer srv.Close()
	lib := newFakeLibrary()
	p := NewPipeline(lib, ModelAnswerer(connect(t, srv)), PipelineOptions{Numbering: NumberingConversation, K: 1})
	conv := NewConversation("t")
	if _, err := collect(t, p, conv, "honey bees almond orchards"); err != nil {
		t.Fatal(err)
	}
	first := conv.Turns[0].Sources[0]
	// The document is removed from the library; the next answer, over
	// another passage, cites the old alias again.
	lib.Remove(first.DocumentID)
	evs, err := collect(t, p, conv, "gulf stream ocean currents")
	if err != nil {
		t.Fatal(err)
	}
	if got := plain(evs); got != "Again [1], and currents [2]." {
		t.Errorf("answer %q", got)
	}
	src := conv.Turns[1].Sources[0]
	if src.Number != 1 || src.Title != "Bees and Flowers" || src.SegmentID != first.SegmentID || src.Snippet != first.Snippet {
		t.Errorf("re-cited source %+v, want it as first shown %+v", src, first)
	}
	if s2 := conv.Turns[1].Sources[1]; s2.Title != "Ocean Currents" || s2.Number != 2 {
		t.Errorf("new source %+v", s2)
	}
}

func TestCitedSourceLookedUpInTheLibrary(t *testing.T) {
	// Numbering by answer: an alias offered in an earlier turn but never
	// cited there is described from the library.
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Nothing cited."}}, llmtest.Reply{Chunks: []string{"Now [source_1]."}})
	defer srv.Close()
	p := NewPipeline(newFakeLibrary(), ModelAnswerer(connect(t, srv)), PipelineOptions{K: 1})
	conv := NewConversation("t")
	collect(t, p, conv, "honey bees almond orchards")
	if _, err := collect(t, p, conv, "gulf stream ocean currents"); err != nil {
		t.Fatal(err)
	}
	if src := conv.Turns[1].Sources[0]; src.Title != "Bees and Flowers" || src.PageStart != 3 {
		t.Errorf("source %+v", src)
	}
}
