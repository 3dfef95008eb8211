package library

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// embed fills segs' vectors (see embedSegments), counting them in the
// run's progress.
func (a *adder) embed(path string, segs []store.Segment) error {
	return embedSegments(a.ctx, a.l.emb, path, segs, func(n int) {
		a.p.Embedded += n
		a.report(StageEmbed, path)
	})
}

// embedSegments fills segs' vectors with emb, in batches: each segment's
// KeywordText (its generated context or question with its text, when it
// has one), and a zero vector for a parent, which is read but never
// searched. done is called with the number of segments of each batch
// finished. path names the document in errors.
func embedSegments(ctx context.Context, emb retrieve.Embedder, path string, segs []store.Segment, done func(n int)) error {
	skip, _ := store.Parents(segs) // a bad index row is the store's to refuse, at the commit
	zero := make([]float32, emb.Dimension())
	texts := make([]string, 0, embedBatch)
	at := make([]int, 0, embedBatch)
	for start := 0; start < len(segs); start += embedBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+embedBatch, len(segs))
		texts, at = texts[:0], at[:0]
		for i := start; i < end; i++ {
			if skip[i] {
				segs[i].Vector = zero
				continue
			}
			texts = append(texts, segs[i].KeywordText())
			at = append(at, i)
		}
		if len(texts) == 0 {
			done(end - start)
			continue
		}
		vs, err := emb.Embed(ctx, texts)
		if err != nil {
			if ce := ctx.Err(); ce != nil {
				return ce
			}
			return fmt.Errorf("couldn't embed %s with %s: %w", path, emb.Name(), err)
		}
		if len(vs) != len(texts) {
			return fmt.Errorf("embedder %s returned %d vectors for %d texts", emb.Name(), len(vs), len(texts))
		}
		for i, v := range vs {
			segs[at[i]].Vector = v
		}
		done(end - start)
	}
	return nil
}

// flush commits the pending documents in one update, replacing the
// documents they replace. If another process changed the library since the
// decisions were made (a document to replace is gone), flush reads the
// library again, settles the pending documents against what is there now,
// and tries again, a few times.
func (a *adder) flush() error {
	if len(a.pending) == 0 {
		return nil
	}
	a.report(StageStore, "")
	// A cancel must not lose documents that are whole.
	ctx := context.WithoutCancel(a.ctx)
	puts, deletes := a.updates()
	err := a.l.st.Update(ctx, puts, deletes)
	for try := 0; try < 3 && errors.Is(err, store.ErrNotFound); try++ {
		if _, err := a.indexPaths(); err != nil {
			return err
		}
		a.resettle()
		puts, deletes = a.updates()
		err = a.l.st.Update(ctx, puts, deletes)
	}
	if err != nil {
		return fmt.Errorf("couldn't store documents in library %q: %w", a.l.name, err)
	}

	for _, p := range a.pending {
		if p.old != "" {
			delete(a.byPath, a.pathOf(p.old))
		}
		again := a.byPath[p.doc.Path] == p.doc.ID
		a.byPath[p.doc.Path] = p.doc.ID
		switch {
		case p.restat:
			a.rep.Unchanged = append(a.rep.Unchanged, p.doc)
		case p.update:
			a.rep.Updated = append(a.rep.Updated, p.doc)
		case again:
			a.rep.Reindexed = append(a.rep.Reindexed, p.doc)
		case p.move:
			a.rep.Moved = append(a.rep.Moved, p.doc)
		case p.old != "":
			a.rep.Replaced = append(a.rep.Replaced, p.doc)
		default:
			a.rep.Added = append(a.rep.Added, p.doc)
		}
	}
	a.pending, a.pendSegs, a.lastFlush = a.pending[:0], 0, time.Now()
	return nil
}

// pathOf is the path of the document with id in byPath.
func (a *adder) pathOf(id string) string {
	for p, d := range a.byPath {
		if d == id {
			return p
		}
	}
	return ""
}

func (a *adder) updates() (puts []store.Put, deletes []string) {
	for _, p := range a.pending {
		puts = append(puts, store.Put{Document: p.doc, Segments: p.segs})
		if p.old != "" {
			deletes = append(deletes, p.old)
		}
	}
	return puts, deletes
}

// resettle decides the pending documents again after another process
// changed the library: those the
// other process added meanwhile are unchanged or duplicates now, and the
// documents they replace are whatever is at their paths now.
func (a *adder) resettle() {
	keep := a.pending[:0]
	a.pendSegs = 0
	for _, p := range a.pending {
		if p.update || p.restat {
			if doc, err := a.l.st.Document(a.ctx, p.doc.ID); err == nil && doc.Path == p.doc.Path {
				keep = append(keep, p) // still there: store its new metadata
				a.pendSegs += len(p.segs)
			}
			continue
		}
		if doc, err := a.l.st.Document(a.ctx, p.doc.ID); err == nil && !(p.move && doc.Path != p.doc.Path && !exists(doc.Path)) {
			if doc.Path == p.doc.Path {
				a.rep.Unchanged = append(a.rep.Unchanged, doc)
			} else {
				a.rep.Skipped = append(a.rep.Skipped, &ingest.SkipError{Path: p.doc.Path, Reason: "same content as " + doc.Path})
			}
			continue
		}
		p.old = a.oldAt(p.doc.Path, p.doc.ID)
		keep = append(keep, p)
		a.pendSegs += len(p.segs)
	}
	a.pending = keep
}
