package embedded

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"unsafe"

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

// denseIndex is what Dense scans: the entries of the store by row, kept
// up to date as documents are linked in and out, without walking the
// library (a write into a large library costs the index the new entries
// only).
//
// Invariants:
//   - slots are in increasing row order (ties: the order the entries were
//     added) and hold every live entry of the store exactly once; a slot
//     whose entry was unlinked has e nil, and dead counts those. Rows do
//     not overlap (a generation's rows are never reused, and a store in
//     memory only numbers its entries with next), so a row names at most
//     one slot, live or dead: the scan's candidate ids are rows.
//   - len(slots) - dead == the number of live entries; when an update
//     would break that (an entry whose slot cannot be found), the index is
//     rebuilt from the store's documents instead.
//   - dead <= max(compactDeadMin, len(slots)/2) after every change: dead
//     slots are dropped when they would outnumber the live ones.
//   - n counts the segments Dense can find (entry.dense) of the live
//     entries; exact holds when n <= exactMax at the last load or change:
//     then chromem's collection holds every such segment and every entry
//     its vectors. A library that grows past exactMax leaves the exact
//     path (its collection emptied, its vectors dropped when it has a file
//     to read them from) and comes back to it only when it is loaded again.
//
// A load and a compaction (which gives the entries new rows) rebuild the
// index whole.
type denseIndex struct {
	slots []slot
	dead  int
	n     int
	exact bool
	next  int // the next row of a store in memory only, which has no vector file
}

// slot is an entry's place in the index: its first row and number of
// rows, and the entry itself while it is live (nil after).
type slot struct {
	row, rows int
	e         *entry
}

// compactDeadMin is the number of dead slots below which the index is
// never compacted.
const compactDeadMin = 64

// rebuild lists the entries of docs by row.
func (x *denseIndex) rebuild(docs map[string]*entry) {
	x.slots = x.slots[:0]
	x.dead, x.n = 0, 0
	for _, e := range docs {
		x.slots = append(x.slots, slot{row: e.row, rows: len(e.segs), e: e})
		x.n += e.searchable()
	}
	slices.SortStableFunc(x.slots, func(a, b slot) int { return a.row - b.row })
}

// link adds entries, just linked into docs (the store's documents, with
// their replaced and deleted entries already unlinked from the index),
// and compacts the index when dead slots have grown to outnumber the live
// ones. Entries that docs no longer holds (replaced later in the same
// batch) are left out.
func (x *denseIndex) link(docs map[string]*entry, entries []*entry) {
	live := make([]*entry, 0, len(entries))
	for _, e := range entries {
		if docs[e.doc.ID] == e {
			live = append(live, e)
		}
	}
	slices.SortStableFunc(live, func(a, b *entry) int { return a.row - b.row })
	if len(live) > 0 && len(x.slots) > 0 && live[0].row < x.slots[len(x.slots)-1].row {
		x.rebuild(docs) // rows that do not come after the index's: cannot happen, see Invariants
		return
	}
	for _, e := range live {
		x.slots = append(x.slots, slot{row: e.row, rows: len(e.segs), e: e})
		x.n += e.searchable()
	}
	if len(x.slots)-x.dead != len(docs) {
		x.rebuild(docs)
		return
	}
	if x.dead > compactDeadMin && x.dead > len(x.slots)/2 {
		x.slots = slices.DeleteFunc(x.slots, func(s slot) bool { return s.e == nil })
		x.dead = 0
	}
}

// unlink marks e's slot dead; it reports false when e has none (an entry
// added and replaced within one batch, never in the index).
func (x *denseIndex) unlink(e *entry) bool {
	j, _ := slices.BinarySearchFunc(x.slots, e.row, func(s slot, r int) int { return s.row - r })
	for ; j < len(x.slots) && x.slots[j].row == e.row; j++ {
		if x.slots[j].e == e {
			x.slots[j].e = nil
			x.dead++
			x.n -= e.searchable()
			return true
		}
	}
	return false
}

// searchable is the number of e's segments Dense can find.
func (e *entry) searchable() int {
	n := 0
	for i := range e.segs {
		if e.dense(i) {
			n++
		}
	}
	return n
}

// live is the index's live entries, by row.
func (x *denseIndex) live() []*entry {
	out := make([]*entry, 0, len(x.slots)-x.dead)
	for _, s := range x.slots {
		if s.e != nil {
			out = append(out, s.e)
		}
	}
	return out
}

// at is the entry holding row, and the segment's index in it; false when
// no live entry holds it.
func (x *denseIndex) at(row int) (*entry, int, bool) {
	// The last slot of some rows starting at or before row (slots of no
	// rows, documents without segments, may share its start).
	j, _ := slices.BinarySearchFunc(x.slots, row+1, func(s slot, r int) int { return s.row - r })
	for j--; j >= 0 && x.slots[j].rows == 0; j-- {
	}
	if j < 0 || row >= x.slots[j].row+x.slots[j].rows || x.slots[j].e == nil {
		return nil, 0, false
	}
	return x.slots[j].e, row - x.slots[j].row, true
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
	parts := splitRows(x.slots, workers)
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

// splitRows cuts slots (in row order) into up to n runs of about equal
// numbers of live segments.
func splitRows(slots []slot, n int) [][]slot {
	if n <= 1 || len(slots) <= 1 {
		return [][]slot{slots}
	}
	total := 0
	for _, sl := range slots {
		if sl.e != nil {
			total += sl.rows
		}
	}
	parts := make([][]slot, 0, n)
	start, acc := 0, 0
	for i, sl := range slots {
		if sl.e != nil {
			acc += sl.rows
		}
		if acc*n >= total*(len(parts)+1) && len(parts) < n-1 {
			parts = append(parts, slots[start:i+1])
			start = i + 1
		}
	}
	return append(parts, slots[start:])
}

// scanCodes offers the admitted segments of the live entries of slots to
// sc.top (of size want) by their codes' similarity to q.
func (s *Store) scanCodes(ctx context.Context, q *quant.Query, slots []slot, want int, f store.Filter, sc *scratch) (err error) {
	defer s.codesFault(&err)()
	stride := q.Stride()
	sc.top.Reset(want)
	byDoc := len(f.Documents) > 0
	segf := f
	segf.Documents = nil
	perSegment := !segf.IsZero() // segments are admitted one by one
	scanned := 0
	for _, sl := range slots {
		e := sl.e
		if e == nil {
			continue
		}
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

// errCodesCut is a scan's error when the mapped codes file was cut under
// it (ibid never cuts it, see codes.go: a person or another program did).
var errCodesCut = errors.New("the library's codes file was cut while the library was open; open it again " +
	"(its codes are then computed from the vectors), and run `ibid doctor` if it happens again")

// codesFault makes a fault reading the mapped codes file (what reading a
// mapped file cut shorter raises) an error in *err instead of a crash,
// for the goroutine that calls it until it calls the function returned,
// deferred. Any other fault or panic goes on as it would have.
func (s *Store) codesFault(err *error) func() {
	was := debug.SetPanicOnFault(true)
	m := s.codes.file
	return func() {
		debug.SetPanicOnFault(was)
		r := recover()
		if r == nil {
			return
		}
		if a, ok := r.(interface{ Addr() uintptr }); ok && len(m) > 0 {
			lo := uintptr(unsafe.Pointer(&m[0]))
			if at := a.Addr(); at >= lo && at < lo+uintptr(len(m)) {
				*err = errCodesCut
				return
			}
		}
		panic(r)
	}
}

// rescore scores the candidates exactly, from their vectors, and returns
// the k best as hits. The caller holds mu.
func (s *Store) rescore(q []float32, k int, cands []quant.Candidate, sc *scratch) ([]store.Hit, error) {
	h := topk.New(k, betterScored)
	for _, c := range cands {
		e, i, ok := s.dense.at(int(c.ID))
		if !ok {
			continue // cannot happen: rows come from live slots
		}
		v, err := s.rowVector(e, i, sc)
		if err != nil {
			return nil, err
		}
		h.Push(scored{e, i, dot(q, v)})
	}
	return s.hitsOf(h.Sorted())
}
