package embedded

import (
	"context"
	"runtime"
	"slices"
	"sync"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/quant"
	"github.com/ibid-dev/ibid/store/internal/topk"
)

// exactMax is the number of searchable vectors up to which a library
// keeps its vectors in memory and chromem-go answers its dense queries
// exactly: up to a few hundred vectors its exact scan costs about what
// the codes' scan and rescoring cost (BenchmarkQuerySmall, dimension 768,
// the shared 2-core development machine: 0.2–0.5 ms both at 100 vectors;
// 0.9 ms against 0.5 ms at 300; 4 ms against 0.7 ms at 1,000; 45 ms
// against 1.5 ms at 4,000).
const exactMax = 500

// candidatesPer is how many candidates per result the codes' scan passes
// to the exact rescoring: recall@10 against the exact scan stays at or
// above 0.99 on clustered vectors with 4 (TestRecall).
const candidatesPer = 4

// denseIndex is what Dense scans.
//
// Invariants: byRow lists every live entry of the store once, by
// increasing row (rows do not overlap, so a row names one segment: the
// scan's candidate ids are rows); n counts the segments Dense can find
// (entry.dense); exact holds when n <= exactMax at the last load or
// change: then chromem's collection holds every such segment and every
// entry its vectors. A library that grows past exactMax leaves the exact
// path (its collection emptied, its vectors dropped when it has a file to
// read them from) and comes back to it only when it is loaded again.
type denseIndex struct {
	byRow []*entry
	n     int
	exact bool
	next  int // the next row of a store in memory only, which has no vector file
}

// rebuild lists the entries of docs by row.
func (x *denseIndex) rebuild(docs map[string]*entry) {
	x.byRow = x.byRow[:0]
	x.n = 0
	for _, e := range docs {
		x.byRow = append(x.byRow, e)
		for i := range e.segs {
			if e.dense(i) {
				x.n++
			}
		}
	}
	slices.SortFunc(x.byRow, func(a, b *entry) int { return a.row - b.row })
}

// at is the entry holding row, and the segment's index in it.
func (x *denseIndex) at(row int) (*entry, int, bool) {
	j, _ := slices.BinarySearchFunc(x.byRow, row, func(e *entry, r int) int {
		switch {
		case e.row+len(e.segs) <= r:
			return -1
		case e.row > r:
			return 1
		}
		return 0
	})
	if j == len(x.byRow) || x.byRow[j].row > row || row >= x.byRow[j].row+len(x.byRow[j].segs) {
		return nil, 0, false
	}
	return x.byRow[j], row - x.byRow[j].row, true
}

// scratch is one scanning goroutine's memory, pooled across queries so
// that a query allocates nothing per vector scanned.
type scratch struct {
	top quant.Top
	out []int32
	vec []float32
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// minRowsPerWorker keeps small scans on one goroutine.
const minRowsPerWorker = 16384

// fastDense answers a dense query from the codes: it scans the codes of
// every segment f admits (a document's codes are skipped whole when f
// refuses the document) on all CPUs, keeps the best candidatesPer×k by
// approximate similarity, then scores those exactly from their vectors and
// returns the k best. The caller holds mu.
func (s *Store) fastDense(ctx context.Context, q []float32, k int, f store.Filter) ([]store.Hit, error) {
	x := &s.dense
	want := candidatesPer * k
	qq := quant.NewQuery(q)
	workers := max(1, min(runtime.GOMAXPROCS(0), x.n/minRowsPerWorker))
	parts := splitRows(x.byRow, workers)
	tops := make([]*scratch, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for w, part := range parts {
		sc := scratches.Get().(*scratch)
		tops[w] = sc
		run := func() { errs[w] = s.scanCodes(ctx, qq, part, want, f, sc) }
		if w == len(parts)-1 {
			run()
		} else {
			wg.Go(run)
		}
	}
	wg.Wait()
	defer func() {
		for _, sc := range tops {
			scratches.Put(sc)
		}
	}()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	all := &tops[0].top
	for _, sc := range tops[1:] {
		all.Merge(&sc.top)
	}
	return s.rescore(q, k, all.Sorted(), tops[0])
}

// splitRows cuts entries (in row order) into up to n runs of about equal
// numbers of segments.
func splitRows(entries []*entry, n int) [][]*entry {
	if n <= 1 || len(entries) <= 1 {
		return [][]*entry{entries}
	}
	total := 0
	for _, e := range entries {
		total += len(e.segs)
	}
	parts := make([][]*entry, 0, n)
	start, acc := 0, 0
	for i, e := range entries {
		acc += len(e.segs)
		if acc*n >= total*(len(parts)+1) && len(parts) < n-1 {
			parts = append(parts, entries[start:i+1])
			start = i + 1
		}
	}
	return append(parts, entries[start:])
}

// scanCodes offers the admitted segments of entries to sc.top (of size
// want) by their codes' similarity to q.
func (s *Store) scanCodes(ctx context.Context, q *quant.Query, entries []*entry, want int, f store.Filter, sc *scratch) error {
	stride := q.Stride()
	sc.top.Reset(want)
	byDoc := len(f.Documents) > 0
	segf := f
	segf.Documents = nil
	perSegment := !segf.IsZero() // segments are admitted one by one
	scanned := 0
	for _, e := range entries {
		if scanned += len(e.segs); scanned >= 1<<16 {
			scanned = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n := len(e.segs)
		if n == 0 || (byDoc && !f.MatchDocument(&e.doc)) {
			continue
		}
		if cap(sc.out) < n {
			sc.out = make([]int32, n)
		}
		out := sc.out[:n]
		if !perSegment {
			q.Dots(e.codes, out)
		}
		for i := range n {
			if !e.dense(i) {
				continue
			}
			if perSegment {
				if !segf.Match(&e.doc, &e.segs[i]) {
					continue
				}
				q.Dots(e.codeRow(i, stride), out[i:i+1])
			}
			c := quant.Candidate{Score: q.Similarity(out[i], e.scales[i]), ID: uint64(e.row + i)}
			if sc.top.Full() && c.Score < sc.top.Floor() {
				continue
			}
			sc.top.Offer(c)
		}
	}
	return nil
}

// rescore scores the candidates exactly, from their vectors, and returns
// the k best as hits. The caller holds mu.
func (s *Store) rescore(q []float32, k int, cands []quant.Candidate, sc *scratch) ([]store.Hit, error) {
	h := topk.New(k, betterScored)
	for _, c := range cands {
		e, i, ok := s.dense.at(int(c.ID))
		if !ok {
			continue // cannot happen: rows come from byRow
		}
		v, err := s.rowVector(e, i, sc)
		if err != nil {
			return nil, err
		}
		h.Push(scored{e, i, dot(q, v)})
	}
	return s.hitsOf(h.Sorted())
}
