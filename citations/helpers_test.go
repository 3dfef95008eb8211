package citations

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// collect gathers a stream's events, copying text and merging adjacent
// text events, and checks the holdback bound after every Write.
//
// It also records whether a rune was split between two text events
// (split), which the engine must never do.
type collector struct {
	evs   []Event
	tail  []byte // the last bytes of the previous text event
	split string
}

func (c *collector) handle(e Event) {
	if e.Text != nil {
		e.Text = append([]byte(nil), e.Text...)
	}
	if e.Kind == KindText {
		if len(e.Text) == 0 {
			return
		}
		if c.split == "" && splitsRune(c.tail, e.Text) {
			c.split = fmt.Sprintf("%q | %q", c.tail, e.Text)
		}
		c.tail = append(c.tail[:0], e.Text[max(0, len(e.Text)-3):]...)
		if n := len(c.evs); n > 0 && c.evs[n-1].Kind == KindText {
			c.evs[n-1].Text = append(c.evs[n-1].Text, e.Text...)
			return
		}
	}
	c.evs = append(c.evs, e)
}

// maxHeld is the holdback bound: a candidate token, an incomplete rune,
// and in the JSON modes a partly read escape pair.
func maxHeld(mode Mode) int {
	if mode == ModeInline {
		return MaxToken - 1 + 3
	}
	return MaxToken - 1 + 3 + 12
}

// stream feeds text cut at the given positions and returns the events.
func stream(tb testing.TB, mode Mode, text string, opt Options, cuts func(yield func(int) bool)) []Event {
	tb.Helper()
	var c collector
	s := NewStream(mode, c.handle, opt)
	prev := 0
	write := func(end int) {
		if end < prev {
			return
		}
		s.Write([]byte(text[prev:end]))
		prev = end
		if h := s.Held(); h > maxHeld(mode) || h < 0 {
			tb.Fatalf("held %d bytes after writing %q, bound %d", h, text[:end], maxHeld(mode))
		}
	}
	for end := range cuts {
		write(end)
	}
	write(len(text))
	s.Flush()
	if c.split != "" {
		tb.Fatalf("%s %q: a rune was split between text events: %s", mode, text, c.split)
	}
	return c.evs
}

// splitsRune reports whether a valid multi-byte rune begins in prev and
// ends in next.
func splitsRune(prev, next []byte) bool {
	for s := max(0, len(prev)-3); s < len(prev); s++ {
		if !utf8.RuneStart(prev[s]) || prev[s] < utf8.RuneSelf {
			continue
		}
		b := append(append([]byte(nil), prev[s:]...), next[:min(len(next), 3)]...)
		r, n := utf8.DecodeRune(b)
		if r != utf8.RuneError && n > len(prev)-s {
			return true
		}
	}
	return false
}

func whole(yield func(int) bool) {}

func bytewise(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 1; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func at(cuts ...int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for _, c := range cuts {
			if !yield(c) {
				return
			}
		}
	}
}

func show(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintln(&b, e.String())
	}
	return b.String()
}

// plain renders events as a reader sees them: [n] for refs, [?] for
// unknown ids.
func plain(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		switch e.Kind {
		case KindText:
			b.Write(e.Text)
		case KindRef:
			fmt.Fprintf(&b, "[%d]", e.Number)
		case KindUnknown:
			b.WriteString("[?]")
		}
	}
	return b.String()
}

func offered(ks ...int) func(int) bool {
	return func(k int) bool {
		for _, x := range ks {
			if x == k {
				return true
			}
		}
		return false
	}
}

// checkAllCuts compares the stream, fed whole, byte by byte and split at
// every position, with Render.
func checkAllCuts(t *testing.T, mode Mode, text string, opt Options) {
	t.Helper()
	want := show(Render(mode, text, opt))
	if got := show(stream(t, mode, text, opt, whole)); got != want {
		t.Fatalf("%s %q whole:\n got %s\nwant %s", mode, text, got, want)
	}
	if got := show(stream(t, mode, text, opt, bytewise(len(text)))); got != want {
		t.Fatalf("%s %q byte by byte:\n got %s\nwant %s", mode, text, got, want)
	}
	for i := 1; i < len(text); i++ {
		if got := show(stream(t, mode, text, opt, at(i))); got != want {
			t.Fatalf("%s %q split at %d:\n got %s\nwant %s", mode, text, i, got, want)
		}
	}
}

// jsonQuote writes s as a JSON string, escaping every non-ASCII rune as
// \uXXXX (pairs beyond the BMP), so escapes are exercised; invalid bytes
// are kept raw.
func jsonQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteByte(s[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	b.WriteByte('"')
	return b.String()
}
