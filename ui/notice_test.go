package ui

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/ui/backend"
)

// pipelineBackend is the fake backend with a real answer: rag's pipeline
// over ragtest's sample library, asking a model served by llmtest.
type pipelineBackend struct {
	*fakeBackend
	pipe *rag.Pipeline
	conv *rag.Conversation
}

func (b *pipelineBackend) Ask(ctx context.Context, q string, emit func(rag.Event)) error {
	return b.pipe.Answer(ctx, b.conv, q, emit)
}

// TestRetryWaitOnStatusLine: a 429 with Retry-After: 1 before the answer
// shows "rate limited, retrying in 1 s" on the status line, delivered as
// a message of the answer's request, and the notice clears once text
// arrives.
func TestRetryWaitOnStatusLine(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(
		llmtest.Reply{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "1"}},
		llmtest.Reply{Chunks: llmtest.Split("Bees pollinate almonds [source_1].", 4)})
	defer srv.Close()
	m := llm.NewModel(llm.New(llm.Config{BaseURL: srv.BaseURL()}), "fake-model")
	b := &pipelineBackend{fakeBackend: newFakeBackend(""),
		pipe: rag.NewPipeline(ragtest.Sample(), rag.ModelAnswerer(m), rag.PipelineOptions{}), conv: rag.NewConversation("sample")}
	d := newDrive(t, b, 120, 30)
	d.typeText("do bees pollinate almonds?")
	_, cmd := d.m.Update(press("enter"))
	queue := run(cmd)
	const want = "rate limited, retrying in 1 s"
	sawWait, sawText := false, false
	for steps := 0; len(queue) > 0 && steps < 10000; steps++ {
		msg := queue[0]
		queue = queue[1:]
		sm, isStream := msg.(streamMsg)
		_, cmd := d.m.Update(msg)
		queue = append(queue, run(cmd)...)
		if !isStream {
			continue
		}
		scr := d.look()
		if sm.wait != "" {
			if sm.req != d.m.req || sawText {
				t.Errorf("wait %q of request %d (answer %d) after text %v", sm.wait, sm.req, d.m.req, sawText)
			}
			sawWait = true
			if !strings.Contains(scr, want) {
				t.Errorf("status line does not say %q during the wait:\n%s", want, scr)
			}
		}
		for _, e := range sm.events {
			if e.Type == rag.EventText {
				sawText = true
			}
		}
		if sawText && strings.Contains(scr, want) {
			t.Errorf("the wait is still shown after text arrived:\n%s", scr)
		}
	}
	if !sawWait || !sawText {
		t.Fatalf("saw wait %v, text %v", sawWait, sawText)
	}
	if scr := d.look(); !strings.Contains(scr, "Bees pollinate almonds [1]") {
		t.Errorf("answer not shown:\n%s", scr)
	}
}

// TestNoModelAnsweredIsNotPartial: when no model answered at all, the
// chat says where and why, and never calls the empty answer partial, live
// or resumed.
func TestNoModelAnsweredIsNotPartial(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	l.Close() // nothing listens there now
	m := llm.NewModel(llm.New(llm.Config{BaseURL: base, Setting: "--base-url", Policy: llm.Policy{Refused: -1}}), "m")
	b := &pipelineBackend{fakeBackend: newFakeBackend(""),
		pipe: rag.NewPipeline(ragtest.Sample(), rag.ModelAnswerer(m), rag.PipelineOptions{}), conv: rag.NewConversation("sample")}
	d := newDrive(t, b, 160, 40)
	d.typeText("do bees pollinate almonds?")
	d.send(press("enter"))
	scr := d.screen()
	if !strings.Contains(scr, "no model answered at "+base+": connection refused") || !strings.Contains(scr, "check --base-url") {
		t.Errorf("the error does not say where no model answered:\n%s", scr)
	}
	if strings.Contains(scr, "partial") || strings.Contains(scr, "Ollama") {
		t.Errorf("an answer that never began is called partial, or Ollama is advised:\n%s", scr)
	}

	// The saved turn (interrupted, no text) reads the same when resumed.
	snap := b.conv.Snapshot()
	if len(snap.Turns) != 1 || !snap.Turns[0].Interrupted {
		t.Fatalf("saved turns %+v", snap.Turns)
	}
	tu := snap.Turns[0]
	fb := newFakeBackend("")
	fb.turns = []backend.Turn{{Question: tu.Question, Events: tu.Events, Sources: tu.Sources, Interrupted: tu.Interrupted, Error: tu.Error}}
	if scr := newDrive(t, fb, 160, 40).screen(); strings.Contains(scr, "partial") || !strings.Contains(scr, "no model answered") {
		t.Errorf("resumed:\n%s", scr)
	}
}

// TestCancelBeforeAnswerIsNotPartial: a cancel before any text (during a
// retry wait, say) says the answer never began.
func TestCancelBeforeAnswerIsNotPartial(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "30"}})
	defer srv.Close()
	m := llm.NewModel(llm.New(llm.Config{BaseURL: srv.BaseURL()}), "fake-model")
	b := &pipelineBackend{fakeBackend: newFakeBackend(""),
		pipe: rag.NewPipeline(ragtest.Sample(), rag.ModelAnswerer(m), rag.PipelineOptions{}), conv: rag.NewConversation("sample")}
	tm := newTM(t, b, 120, 30)
	tm.Type("do bees pollinate almonds?")
	tm.Send(press("enter"))
	waitScreen(t, tm, "rate limited, retrying in 30 s")
	tm.Send(press("ctrl+c"))
	scr := waitScreen(t, tm, "cancelled before any answer arrived")
	if strings.Contains(scr, "partial") || strings.Contains(scr, "retrying") {
		t.Errorf("after the cancel:\n%s", scr)
	}
	tm.Send(press("ctrl+c"))
	final(t, tm)
}
