package citations

import (
	"errors"
	"fmt"
)

// Mode is the form in which the model was asked to write its answer.
type Mode uint8

const (
	// ModeInline: markdown with inline tokens such as [source_7].
	ModeInline Mode = iota
	// ModeJSON: {"body": "...", "citedSourceIds": [...]}; the body is
	// read as inline text.
	ModeJSON
	// ModeSections: {"sections": [{"text": "...", "source_ids": [...]}]};
	// each section's ids are drawn at the end of its text.
	ModeSections
)

// ErrUnknownMode is what ParseMode's error wraps for a name it does not
// know.
var ErrUnknownMode = errors.New("unknown citation format")

// ParseMode reads a mode's name: "inline", "json" or "sections".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "inline":
		return ModeInline, nil
	case "json":
		return ModeJSON, nil
	case "sections":
		return ModeSections, nil
	}
	return 0, fmt.Errorf("%w %q: use inline, json or sections", ErrUnknownMode, s)
}

// MarshalText writes the mode's name (encoding.TextMarshaler), so JSON and
// flags carry it as "inline", "json" or "sections".
func (m Mode) MarshalText() ([]byte, error) {
	switch m {
	case ModeInline, ModeJSON, ModeSections:
		return []byte(m.String()), nil
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownMode, m)
}

// UnmarshalText reads a mode's name as ParseMode does.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// String returns the mode's name as ParseMode reads it.
func (m Mode) String() string {
	switch m {
	case ModeInline:
		return "inline"
	case ModeJSON:
		return "json"
	case ModeSections:
		return "sections"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// Options configure a stream or a Render.
type Options struct {
	// Offered reports whether source_k was offered to the model; nil
	// means every id is offered. It is asked once per distinct k per
	// answer.
	Offered func(k int) bool
	// Registry, when non-nil, is a conversation-wide numbering ledger
	// shared across answers: numbers continue and a re-cited source keeps
	// its number. nil = numbers restart per answer. Streams and Render
	// both record new numbers in it.
	Registry *Registry
}

// Stream is what every mode returns: push chunks with Write, end with
// Flush. Events reach the Handler synchronously, inside Write and Flush;
// the Handler must not call back into the Stream. A Stream is not safe
// for concurrent use.
type Stream interface {
	// Write never fails for well-formed use; it emits events
	// synchronously to the Handler. Writing after Flush is ignored.
	Write(p []byte) (int, error)
	// Flush ends the stream: it releases held bytes and emits KindDone
	// with the Report. Later calls do nothing.
	Flush()
	// Held reports the bytes currently held back: a candidate token (at
	// fewer than MaxToken bytes) plus an incomplete UTF-8 rune, and in the JSON
	// modes a partly read escape.
	Held() int
}

// NewStream returns the stream for mode, delivering events to h.
func NewStream(mode Mode, h Handler, opt Options) Stream {
	switch mode {
	case ModeJSON, ModeSections:
		return newJSONStream(mode, h, opt)
	}
	return NewRenumberer(h, opt)
}
