package retrieve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
	"github.com/ibid-dev/ibid/store"
)

// Index rows (store's contract): a segment with Parent set exists to be
// found, and a hit on it stands for its parent, the passage of the same
// document whose ID is Parent. A document's passages come first (Index
// 0..P-1, Document.Meta["passages"] = P when it has index rows), its index
// rows after them.

// target is what a hit stands for: the passage that is read and cited
// (the hit itself, or its parent) with its document, and the index row
// that led to it, if any.
type target struct {
	seg store.Segment
	doc store.Document
	row *store.Segment // nil for a hit on a passage
}

// ownWindow reports whether t's passage is a window of its own, without
// neighbours: a parent reached through a child that is a strict part of it
// (hierarchical: about 2,000 tokens already), or any passage of a document
// indexed hierarchically (a store that returns parents directly must not
// make a 6,000-token window of one). A question, or a row that mirrors its
// chunk, leads to a passage that gets neighbours as any hit.
func (t target) ownWindow() bool {
	return t.row != nil && t.row.Text != "" && t.row.Text != t.seg.Text ||
		t.doc.Meta[ingest.MetaStrategy] == string(ingest.Hierarchical)
}

// resolver maps hits to their targets for one search, reading each
// document and each parent once.
type resolver struct {
	st      store.Store
	docs    map[string]store.Document
	parents map[string]*store.Segment // nil: gone, or not a passage of the row's document
}

func newResolver(st store.Store) *resolver {
	return &resolver{st: st, docs: map[string]store.Document{}, parents: map[string]*store.Segment{}}
}

// resolve returns the target of hit; ok is false when the hit stands for
// nothing the store still has: its document or its parent was removed
// since (by another process), or its Parent names no passage of its own
// document (a damaged library: the row is skipped rather than shown).
func (r *resolver) resolve(ctx context.Context, hit store.Segment) (t target, ok bool, err error) {
	if hit.Parent == "" {
		doc, ok, err := r.document(ctx, hit.DocumentID)
		return target{seg: hit, doc: doc}, ok, err
	}
	parent, known := r.parents[hit.Parent]
	if !known {
		seg, doc, err := r.st.Segment(ctx, hit.Parent)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return target{}, false, fmt.Errorf("couldn't read %s, the passage of %s: %w", hit.Parent, hit.ID, err)
		case seg.DocumentID == hit.DocumentID && seg.Parent == "":
			parent = &seg
			r.docs[doc.ID] = doc
		}
		r.parents[hit.Parent] = parent
	}
	if parent == nil {
		return target{}, false, nil
	}
	row := hit
	return target{seg: *parent, doc: r.docs[parent.DocumentID], row: &row}, true, nil
}

// document reads a document once per search; ok is false when it is gone.
func (r *resolver) document(ctx context.Context, id string) (store.Document, bool, error) {
	if d, ok := r.docs[id]; ok {
		return d, true, nil
	}
	d, err := r.st.Document(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Document{}, false, nil
	}
	if err != nil {
		return store.Document{}, false, fmt.Errorf("couldn't read document %s: %w", id, err)
	}
	r.docs[id] = d
	return d, true, nil
}

// neighbourhood reads t's window: for a passage of a hierarchical
// document, its passage grown into the passages around it up to a
// recursive window's size (parentWindow); else its passage alone when it
// is its own window (ownWindow) or n is 0, and the passages within n of
// it otherwise. A
// window never holds an index row: it is cut short of Meta["passages"]
// when the document records it, and at the first segment with Parent set
// in any case.
func neighbourhood(ctx context.Context, st store.Store, t target, n int, skip store.Filter) ([]store.Segment, error) {
	seg := t.seg
	if n > 0 && t.doc.Meta[ingest.MetaStrategy] == string(ingest.Hierarchical) {
		return parentWindow(ctx, st, t, n, skip)
	}
	if n <= 0 || t.ownWindow() {
		return []store.Segment{seg}, nil
	}
	return around(ctx, st, t, n, skip)
}

// around reads the passages of t's document within reach of t's passage,
// the run of them skip admits (admittedRun); t's passage alone when the
// store has none there. Index rows are never read: the range is cut short
// of Meta["passages"] when the document records it, and rows are left
// out in any case (store.Passages).
func around(ctx context.Context, st store.Store, t target, reach int, skip store.Filter) ([]store.Segment, error) {
	seg := t.seg
	to := seg.Index + reach + 1
	if p, err := strconv.Atoi(t.doc.Meta[ingest.MetaPassages]); err == nil && p > seg.Index {
		to = min(to, p)
	}
	segs, err := st.Segments(ctx, seg.DocumentID, seg.Index-reach, to)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("couldn't read the context of %s: %w", seg.ID, err)
	}
	segs = store.Passages(segs)
	if len(segs) == 0 {
		return []store.Segment{seg}, nil
	}
	return admittedRun(segs, seg, t.doc, skip), nil
}

// admittedRun is the run of segs around seg that skip admits: a window
// stops at a section the search leaves out (the references after a
// paper's last paragraph), so it stays one stretch of text. seg itself is
// always kept.
func admittedRun(segs []store.Segment, seg store.Segment, doc store.Document, skip store.Filter) []store.Segment {
	if len(skip.SkipHeadings) == 0 {
		return segs
	}
	at := slices.IndexFunc(segs, func(s store.Segment) bool { return s.ID == seg.ID })
	if at < 0 {
		return []store.Segment{seg}
	}
	lo, hi := at, at+1
	for lo > 0 && skip.Match(&doc, &segs[lo-1]) {
		lo--
	}
	for hi < len(segs) && skip.Match(&doc, &segs[hi]) {
		hi++
	}
	return segs[lo:hi]
}

// parentReach is how many passages on each side of a hierarchical parent
// parentWindow reads to grow its window: more than a few small parents
// rarely fit in it.
const parentReach = 4

// parentWindow is the window of a passage of a hierarchical document: the
// parent, then its neighbouring passages, nearest first, one before, one
// after, in turn, for as long as the window holds at most what a
// recursive window of n neighbours holds at most, (2n+1) chunks of
// ingest.DefaultTokenBudget tokens (900 for the default one neighbour); a
// side that would overflow it stops growing while the other goes on. A
// parent cut from a long section is that size or more already and stays
// alone; a parent of a short section (a paper's "3.1 Fluency", a note's
// two-line section) is read with the sections around it, as a recursive
// chunk is read with its neighbours: the answer to a question is often in
// the section next to the one that names its terms, and without this a
// hierarchical library found fewer answers in its top 20 than a recursive
// one (docs/indexing.md). The window never holds an index row and stops,
// like any window, at a section the search leaves out (admittedRun).
func parentWindow(ctx context.Context, st store.Store, t target, n int, skip store.Filter) ([]store.Segment, error) {
	seg := t.seg
	budget := (2*n + 1) * ingest.DefaultTokenBudget
	size := tokens.Count(seg.Text)
	if size >= budget {
		return []store.Segment{seg}, nil
	}
	segs, err := around(ctx, st, t, parentReach, skip)
	if err != nil {
		return nil, err
	}
	at := slices.IndexFunc(segs, func(s store.Segment) bool { return s.ID == seg.ID })
	if at < 0 {
		return []store.Segment{seg}, nil
	}
	lo, hi := at, at+1
	grow := func(s store.Segment, next int) bool {
		k := tokens.Count(s.Text)
		if s.Index != next || size+k > budget {
			return false
		}
		size += k
		return true
	}
	for before, after := lo > 0, hi < len(segs); before || after; {
		if before = before && grow(segs[lo-1], segs[lo].Index-1); before {
			lo--
			before = lo > 0
		}
		if after = after && grow(segs[hi], segs[hi-1].Index+1); after {
			hi++
			after = hi < len(segs)
		}
	}
	return segs[lo:hi], nil
}
