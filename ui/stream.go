package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/rag"
)

// frameInterval batches stream events: at most about 30 frames a second.
const frameInterval = time.Second / 30

// streamMsg carries a batch of one answer's events. req is the request id
// of the answer; a message whose req is not the answer in progress is a
// straggler of a cancelled one and is dropped.
type streamMsg struct {
	req    int
	events []rag.Event
	end    bool  // the answer ended; err is Ask's error
	err    error // when end
}

// answerStream runs one Ask in its own goroutine and hands its events to
// the program in batches.
type answerStream struct {
	req    int
	ch     chan rag.Event
	result chan error
	cancel context.CancelFunc
}

// startAnswer starts b.Ask for question and returns the stream and the
// command that delivers its first batch.
func startAnswer(b Backend, req int, question string) (*answerStream, tea.Cmd) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &answerStream{req: req, ch: make(chan rag.Event, 1024), result: make(chan error, 1), cancel: cancel}
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
// then whatever else arrives within a frame interval.
func (s *answerStream) next() tea.Msg {
	e, ok := <-s.ch
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
		case <-timer.C:
			return streamMsg{req: s.req, events: batch}
		}
	}
}
