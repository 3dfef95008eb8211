package rag

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/ragtest"
)

// newFakeLibrary is the shared sample library (bees and ocean currents).
func newFakeLibrary() *ragtest.Library { return ragtest.Sample() }

// connect returns a model talking to srv that retries after milliseconds.
func connect(t testing.TB, srv *llmtest.Server) *llm.Model {
	t.Helper()
	m, err := llm.Connect(context.Background(), llm.ModelConfig{Config: llm.Config{BaseURL: srv.BaseURL(), APIKey: "k",
		Policy: llm.Policy{Base: time.Millisecond, Max: 4 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// collect answers question and returns its events.
func collect(t testing.TB, p *Pipeline, conv *Conversation, question string) ([]Event, error) {
	t.Helper()
	var evs []Event
	err := p.Answer(context.Background(), conv, question, func(e Event) { evs = append(evs, e) })
	return evs, err
}

// plain renders events as the text face does: refs [n], unknown [?].
func plain(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		switch e.Type {
		case EventText:
			b.WriteString(e.Text)
		case EventRef:
			b.WriteString(RefText(e.Number))
		case EventUnknown:
			b.WriteString(UnknownText)
		}
	}
	return b.String()
}

// checkOrder asserts the event contract: a citation precedes the first ref
// of its number, every ref has been announced, done is last and only once.
func checkOrder(t *testing.T, evs []Event) {
	t.Helper()
	announced := map[int]bool{}
	for i, e := range evs {
		switch e.Type {
		case EventCitation:
			if announced[e.Number] {
				t.Errorf("event %d: citation %d announced twice", i, e.Number)
			}
			announced[e.Number] = true
			if e.Source == nil || e.Source.SegmentID == "" {
				t.Errorf("event %d: citation without a source", i)
			}
		case EventRef:
			if !announced[e.Number] {
				t.Errorf("event %d: ref %d before its citation", i, e.Number)
			}
		case EventDone:
			if i != len(evs)-1 {
				t.Errorf("done at %d of %d", i, len(evs))
			}
		case EventError:
			if i != len(evs)-2 {
				t.Errorf("error at %d of %d: not right before done", i, len(evs))
			}
		}
	}
	if len(evs) == 0 || evs[len(evs)-1].Type != EventDone {
		t.Errorf("stream does not end with done")
	}
}
