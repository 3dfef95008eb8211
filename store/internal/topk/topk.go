// Package topk keeps the best k of a stream of candidates with a bounded
// heap, for any type and order: keyword search and the embedded store's
// exact scoring (the exact path's scan, the codes' candidates rescored)
// use it. The codes' scan itself keeps its candidates in quant.Top, a heap
// of one concrete type that neither allocates per push nor calls an order
// through a function value, and that merges the heaps of several scanning
// goroutines.
package topk

import (
	"container/heap"
	"slices"
)

// Heap keeps the k best items pushed so far by Better, which must be a
// strict total order (ties broken, for example, by id) so that the result
// does not depend on the order of pushes.
//
// Invariant: the heap holds min(k, pushes) items and its root is the worst
// of them.
type Heap[T any] struct {
	k      int
	better func(a, b T) bool
	items  []T
}

// New returns an empty heap keeping the k best items by better.
func New[T any](k int, better func(a, b T) bool) *Heap[T] {
	return &Heap[T]{k: k, better: better, items: make([]T, 0, min(max(k, 0), 1<<16))}
}

// Admits reports whether x would be kept by Push now: cheaper than Push,
// for skipping work (a filter check) for candidates that cannot make it.
func (h *Heap[T]) Admits(x T) bool {
	if h.k <= 0 {
		return false
	}
	return len(h.items) < h.k || h.better(x, h.items[0])
}

// Push offers x.
func (h *Heap[T]) Push(x T) {
	if !h.Admits(x) {
		return
	}
	if len(h.items) < h.k {
		heap.Push((*impl[T])(h), x)
		return
	}
	h.items[0] = x
	heap.Fix((*impl[T])(h), 0)
}

// Len is the number of items kept.
func (h *Heap[T]) Len() int { return len(h.items) }

// Sorted returns the items kept, best first; the heap must not be used
// afterwards.
func (h *Heap[T]) Sorted() []T {
	out := h.items
	slices.SortFunc(out, func(a, b T) int {
		switch {
		case h.better(a, b):
			return -1
		case h.better(b, a):
			return 1
		}
		return 0
	})
	h.items = nil
	return out
}

// impl is container/heap's view: a min-heap by better, worst at the root.
type impl[T any] Heap[T]

func (h *impl[T]) Len() int           { return len(h.items) }
func (h *impl[T]) Less(i, j int) bool { return h.better(h.items[j], h.items[i]) }
func (h *impl[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *impl[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *impl[T]) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
