package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/ui/backend"
)

// frameInterval batches stream events: at most about 30 frames a second.
const frameInterval = time.Second / 30

// streamMsg carries a batch of one answer's events. req is the request id
// of the answer; a message whose req is not the answer in progress is a
// straggler of a cancelled one and is dropped.
type streamMsg struct {
	req    int
	events []rag.Event
	// wait, when not "", is a retry wait of the model request that
	// started after events ("rate limited, retrying in 3 s"), for the
	// status line until text arrives or the answer ends.
	wait string
	end  bool  // the answer ended; err is Ask's error
	err  error // when end
}

// answerStream runs one Ask in its own goroutine and hands its events to
// the program in batches.
type answerStream struct {
	req    int
	ch     chan rag.Event
	waits  chan llm.Wait // retry waits reported through llm.WithNotify
	result chan error
	cancel context.CancelFunc
}

// startAnswer starts b.Ask for question and returns the stream and the
// command that delivers its first batch. The model request's retry waits
// (llm.WithNotify on Ask's context) come through the same command, as
// streamMsg.wait: Update never does I/O to learn of them.
func startAnswer(b backend.Backend, req int, question string) (*answerStream, tea.Cmd) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &answerStream{req: req, ch: make(chan rag.Event, 1024), waits: make(chan llm.Wait, 4),
		result: make(chan error, 1), cancel: cancel}
	ctx = llm.WithNotify(ctx, func(w llm.Wait) {
		select {
		case s.waits <- w:
		case <-ctx.Done():
		}
	})
	go func() {
		err := b.Ask(ctx, question, func(e rag.Event) {
			select {
			case s.ch <- e:
			case <-ctx.Done():
				// the chat stopped listening; the backend keeps the turn
			}
		})
		s.result <- err
		close(s.ch)
	}()
	return s, s.next
}

// next waits for events and returns them as one batch: the first event,
// then whatever else arrives within a frame interval. A retry wait ends
// the batch (or is a message of its own), so it shows as it starts.
func (s *answerStream) next() tea.Msg {
	var e rag.Event
	var ok bool
	select {
	case w := <-s.waits:
		return streamMsg{req: s.req, wait: w.String()}
	case e, ok = <-s.ch:
	}
	if !ok {
		return streamMsg{req: s.req, end: true, err: <-s.result}
	}
	batch := []rag.Event{e}
	timer := time.NewTimer(frameInterval)
	defer timer.Stop()
	for {
		select {
		case e, ok := <-s.ch:
			if !ok {
				return streamMsg{req: s.req, events: batch, end: true, err: <-s.result}
			}
			batch = append(batch, e)
		case w := <-s.waits:
			return streamMsg{req: s.req, events: batch, wait: w.String()}
		case <-timer.C:
			return streamMsg{req: s.req, events: batch}
		}
	}
}
