package citations

// Renumberer is the inline-mode Stream: it reads markdown with inline
// tokens such as [source_7] and emits text with reference events numbered
// by first appearance.
//
// Invariants: every byte written is emitted exactly once, as text or as
// part of a token, in order; at the end of each Write only a candidate
// token (fewer than MaxToken bytes) and an incomplete UTF-8 rune (at most 3
// bytes) are held; text events never split a rune that arrived whole.
type Renumberer struct {
	lx    lexer
	num   numberer
	h     Handler
	ended bool
}

// NewRenumberer returns an inline-mode stream delivering events to h.
func NewRenumberer(h Handler, opt Options) *Renumberer {
	r := &Renumberer{h: h}
	r.num = newNumberer(h, opt, ModeInline)
	r.lx.init(r.token)
	return r
}

// Write pushes a chunk; it never fails.
func (r *Renumberer) Write(p []byte) (int, error) {
	if r.ended {
		return len(p), nil
	}
	r.lx.write(p)
	r.flushText(false)
	return len(p), nil
}

// Flush releases what is held, emits KindDone and ends the stream.
func (r *Renumberer) Flush() {
	if r.ended {
		return
	}
	r.lx.end()
	r.flushText(true)
	r.ended = true
	r.num.done()
}

// Held reports the bytes held back.
func (r *Renumberer) Held() int { return r.lx.held() + len(r.lx.out) }

// token draws a recognised token: each distinct id once, in order.
func (r *Renumberer) token(ids []idRef, src []byte) {
	r.flushText(true)
	drawIDs(&r.num, ids, src)
}

func drawIDs(n *numberer, ids []idRef, src []byte) {
outer:
	for i, id := range ids {
		for _, prev := range ids[:i] {
			if prev.k == id.k {
				continue outer
			}
		}
		n.id(id.k, src[id.start:id.end])
	}
}

// flushText emits the text gathered so far (lexer.flush).
func (r *Renumberer) flushText(all bool) { r.lx.flush(r.h, all) }
