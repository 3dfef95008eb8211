package quant

import "slices"

// Candidate is a row offered to Top: its approximate similarity and the
// caller's id for it.
type Candidate struct {
	Score float32
	ID    uint64
}

// better orders candidates: higher score first, then smaller id, so that
// the selection does not depend on the order rows are offered in.
func better(a, b Candidate) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// Top keeps the n best candidates offered, by score then id, in a
// min-heap of its own: container/heap (and so store/internal/topk, which
// serves every other selection) would allocate for every push, and the
// scan offers it a candidate per vector.
//
// Invariant: len(h) <= n, and h[0] is the worst candidate kept.
type Top struct {
	n int
	h []Candidate
}

// Reset empties t to keep the n best; it reuses t's memory when it can.
func (t *Top) Reset(n int) {
	t.n = n
	if cap(t.h) < n {
		t.h = make([]Candidate, 0, n)
	}
	t.h = t.h[:0]
}

// Full reports whether t holds n candidates: only better ones get in.
func (t *Top) Full() bool { return len(t.h) >= t.n }

// Floor is the score of the worst candidate kept; a row scoring below it
// cannot get in once t is full.
func (t *Top) Floor() float32 { return t.h[0].Score }

// Offer keeps c if it is among the n best so far.
func (t *Top) Offer(c Candidate) {
	if t.n <= 0 {
		return
	}
	if len(t.h) < t.n {
		t.h = append(t.h, c)
		t.up(len(t.h) - 1)
		return
	}
	if !better(c, t.h[0]) {
		return
	}
	t.h[0] = c
	t.down(0)
}

// Merge offers every candidate of u.
func (t *Top) Merge(u *Top) {
	for _, c := range u.h {
		t.Offer(c)
	}
}

// Sorted returns the candidates kept, best first; it reorders t's memory,
// so t must be Reset before it is used again.
func (t *Top) Sorted() []Candidate {
	slices.SortFunc(t.h, func(a, b Candidate) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
	return t.h
}

func (t *Top) up(i int) {
	h := t.h
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (t *Top) down(i int) {
	h := t.h
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		w := l // the worse child
		if r := l + 1; r < len(h) && better(h[l], h[r]) {
			w = r
		}
		if !better(h[i], h[w]) {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}
