package rag

import (
	"crypto/rand"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ibid-dev/ibid/citations"
)

// Conversation is a sequence of answered questions over one library. It is
// JSON-serialisable: saved and read back, it redraws every answer with the
// same numbers and sources.
//
// Invariants: Segments[k-1] is the segment id offered to the model as
// source_k, and Aliases is its inverse; an alias, once given, never changes
// or goes away, so a segment keeps its alias across turns and new segments
// get new aliases. A turn, once in Turns, is never changed.
//
// Concurrency: one conversation answers one question at a time
// (Pipeline.Answer holds answering for the whole turn). mu guards the
// exported fields and is only held for moments: an answer works on copies
// and adds its turn (and its numbers, in Registry) when it ends, so
// Snapshot, Markdown and Save never wait for a running answer and never see
// half of one.
type Conversation struct {
	ID      string    `json:"id"`
	Library string    `json:"library"`
	Created time.Time `json:"created"`
	Turns   []Turn    `json:"turns"`

	// Aliases maps a segment id to k of its alias source_k.
	Aliases map[string]int `json:"aliases"`
	// Segments maps k-1 to the segment id of source_k.
	Segments []string `json:"segments"`
	// Registry carries display numbers across turns when the pipeline
	// numbers by conversation; nil when every answer numbers from 1.
	Registry *citations.Registry `json:"registry,omitempty"`

	answering sync.Mutex
	mu        sync.Mutex
}

// Turn is one question and its answer.
type Turn struct {
	Question string `json:"question"`
	// Events are the answer's events without the final done: text
	// coalesced, citations, refs (inferred ones placed where they belong),
	// unknown ids and any error; enough to redraw the answer exactly.
	Events []Event `json:"events"`
	// Sources are the cited (or inferred) sources in display order.
	Sources []Source          `json:"sources"`
	Report  *citations.Report `json:"report,omitempty"`
	// Model names the model that answered ("extractive" without one).
	Model string `json:"model,omitempty"`
	// Interrupted: the answer was cut off (an error or a cancel) and holds
	// what had arrived.
	Interrupted bool `json:"interrupted,omitempty"`
	// Extractive: no model; the answer is the best-matching sentences.
	Extractive bool `json:"extractive,omitempty"`
	// Inferred: the model cited nothing; references were attributed by
	// text overlap.
	Inferred bool   `json:"inferred,omitempty"`
	Error    string `json:"error,omitempty"`
}

// NewConversation starts an empty conversation over the named library.
func NewConversation(library string) *Conversation {
	var id [8]byte
	rand.Read(id[:])
	return &Conversation{
		ID:      hex.EncodeToString(id[:]),
		Library: library,
		Created: time.Now().UTC(),
		Aliases: map[string]int{},
	}
}

// alias returns k of the alias source_k of segment id, giving the segment
// the next free alias on first sight. The caller holds mu.
func (c *Conversation) alias(id string) int {
	if c.Aliases == nil {
		c.Aliases = map[string]int{}
	}
	if k, ok := c.Aliases[id]; ok {
		return k
	}
	c.Segments = append(c.Segments, id)
	k := len(c.Segments)
	c.Aliases[id] = k
	return k
}

// aliasOf is k of the alias source_k of segment id, given now if it has
// none.
func (c *Conversation) aliasOf(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.alias(id)
}

// questions are the questions of the conversation's turns, oldest first.
func (c *Conversation) questions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	qs := make([]string, len(c.Turns))
	for i, t := range c.Turns {
		qs[i] = t.Question
	}
	return qs
}

// turnStart is what an answer works on: copies of the conversation's state
// when the turn began.
type turnStart struct {
	aliases  []int               // k of each of the turn's segment ids
	segments []string            // Segments, the turn's new aliases included
	turns    []Turn              // the earlier turns (never changed)
	registry *citations.Registry // a copy of Registry when numbering by conversation, else nil
}

// begin gives the turn's segments their aliases and returns the state the
// turn works on.
func (c *Conversation) begin(ids []string, byConversation bool) turnStart {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := turnStart{aliases: make([]int, len(ids))}
	for i, id := range ids {
		st.aliases[i] = c.alias(id)
	}
	st.segments = slices.Clone(c.Segments)
	st.turns = slices.Clip(c.Turns)
	if byConversation {
		st.registry = citations.NewRegistry()
		if c.Registry != nil {
			st.registry = c.Registry.Clone()
		}
	}
	return st
}

// finish adds a turn and, when the turn numbered by conversation, the
// numbers it gave.
func (c *Conversation) finish(t Turn, registry *citations.Registry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Turns = append(c.Turns, t)
	if registry != nil {
		c.Registry = registry
	}
}

// Snapshot returns a copy of the conversation that is safe to read or
// marshal while another goroutine answers in the original (its registry is
// a copy too). It does not wait for a running answer.
func (c *Conversation) Snapshot() *Conversation {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp := &Conversation{
		ID: c.ID, Library: c.Library, Created: c.Created,
		Turns:    slices.Clone(c.Turns),
		Aliases:  maps.Clone(c.Aliases),
		Segments: slices.Clone(c.Segments),
	}
	if cp.Aliases == nil {
		cp.Aliases = map[string]int{}
	}
	if c.Registry != nil {
		cp.Registry = c.Registry.Clone()
	}
	return cp
}

// Text is the turn's answer as plain text: references as [n], inferred ones
// as [n] too (the source list marks them), unknown ids as [?].
func (t *Turn) Text() string {
	var b []byte
	for _, e := range t.Events {
		switch e.Type {
		case EventText:
			b = append(b, e.Text...)
		case EventRef:
			b = append(b, RefText(e.Number)...)
		case EventUnknown:
			b = append(b, UnknownText...)
		}
	}
	return string(b)
}

// UnknownText is how every plain face draws an id the model made up.
const UnknownText = "[?]"

// RefText is how every plain face draws reference n.
func RefText(n int) string {
	return "[" + strconv.Itoa(n) + "]"
}
