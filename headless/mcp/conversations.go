package mcp

import (
	"fmt"
	"sync"

	"github.com/ibid-dev/ibid/rag"
)

// conversations are ask's conversations, kept in memory by id so that a
// follow-up question sees the earlier ones: at most max conversations (the
// oldest is forgotten past it), each with its last turns turns.
type conversations struct {
	mu    sync.Mutex
	max   int
	turns int
	byID  map[string]*held
	order []string // ids, oldest first
}

// held is a conversation; mu is held for a whole answer, so answers in
// one conversation take turns.
//
// Invariant: between answers, len(conv.Turns) <= turns.
type held struct {
	mu   sync.Mutex
	conv *rag.Conversation
}

func newConversations(max, turns int) *conversations {
	return &conversations{max: max, turns: turns, byID: map[string]*held{}}
}

// get returns the conversation id names, locked, or a new one when id is
// empty; an id it does not know is an error that says what to do.
func (c *conversations) get(id, library string) (*held, error) {
	c.mu.Lock()
	h, ok := c.byID[id]
	if id != "" && !ok {
		c.mu.Unlock()
		return nil, fmt.Errorf("no conversation %q: conversations are kept while the server runs (the last %d); ask without conversation_id to start a new one", id, c.max)
	}
	if !ok {
		h = &held{conv: rag.NewConversation(library)}
		c.byID[h.conv.ID] = h
		c.order = append(c.order, h.conv.ID)
		for len(c.order) > c.max {
			delete(c.byID, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	h.mu.Lock()
	return h, nil
}

// trim drops the oldest turns of h past the bound; h is locked.
func (c *conversations) trim(h *held) {
	if n := len(h.conv.Turns) - c.turns; n > 0 {
		h.conv.Turns = append([]rag.Turn(nil), h.conv.Turns[n:]...)
	}
}
