package headless

import (
	"sync"

	"github.com/ibid-dev/ibid/rag"
)

// Conversations keeps conversations in memory by id, for the faces that
// continue one across requests (serve's /v1/answers, MCP's ask): at most
// max of them (the oldest is forgotten past it), each with its last turns
// turns once an answer ends (the model never sees more). It is safe for
// concurrent use; answers in one conversation take turns.
type Conversations struct {
	library    string
	max, turns int

	mu    sync.Mutex
	byID  map[string]*Held
	order []string // ids, oldest first
}

// Held is a kept conversation. Open locks it for a whole answer and Close
// trims and unlocks it, so the window of turns is kept without racing the
// pipeline.
//
// Invariant: between answers, len(Conv.Turns) <= the bound.
type Held struct {
	mu    sync.Mutex
	turns int
	// Conv is the conversation, the caller's between Open and Close.
	Conv *rag.Conversation
}

// NewConversations keeps at most max conversations of the library named
// library, each with at most turns turns.
func NewConversations(library string, max, turns int) *Conversations {
	return &Conversations{library: library, max: max, turns: turns, byID: map[string]*Held{}}
}

// Max is how many conversations are kept.
func (c *Conversations) Max() int { return c.max }

// Open returns the conversation id names, locked for an answer. An empty
// id starts a new conversation; an id not kept starts one with that id
// when create is set, and otherwise is not found (ok false).
func (c *Conversations) Open(id string, create bool) (h *Held, ok bool) {
	c.mu.Lock()
	h, ok = c.byID[id]
	if !ok || id == "" {
		if id != "" && !create {
			c.mu.Unlock()
			return nil, false
		}
		h = &Held{turns: c.turns, Conv: rag.NewConversation(c.library)}
		if id != "" {
			h.Conv.ID = id
		}
		c.byID[h.Conv.ID] = h
		c.order = append(c.order, h.Conv.ID)
		for len(c.order) > c.max {
			delete(c.byID, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	h.mu.Lock()
	return h, true
}

// Close drops the oldest turns past the bound and unlocks h: the answer
// is over.
func (h *Held) Close() {
	if n := len(h.Conv.Turns) - h.turns; n > 0 {
		// A copy, so the dropped turns are freed with the old array.
		h.Conv.Turns = append([]rag.Turn(nil), h.Conv.Turns[n:]...)
	}
	h.mu.Unlock()
}

// Snapshot returns a copy of the conversation with id, if kept. It waits
// for an answer in progress to end.
func (c *Conversations) Snapshot(id string) (*rag.Conversation, bool) {
	c.mu.Lock()
	h, ok := c.byID[id]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.Conv.Snapshot(), true
}
