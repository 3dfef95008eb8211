package keyword

import (
	"hash/crc32"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/ibid-dev/ibid/store/internal/topk"
)

// Default BM25 parameters, chosen on SciFact's 809 training queries over a
// grid of k1 0.6–1.5 and b 0.3–0.9 (best: k1 1.2, b 0.75, nDCG@10 0.6986),
// which are also Robertson's and Lucene's classic defaults: a setting
// that transfers rather than one fitted to one set (docs/retrieval.md).
const (
	DefaultK1 = 1.2
	DefaultB  = 0.75
)

// BM25 is an inverted index over segments scored by Okapi BM25 with
// Lucene's idf, ln(1 + (N - df + 0.5)/(df + 0.5)). Texts are analysed by
// Tokenize.
//
// Invariants: packed[t] then postings[t] list, in increasing slot order,
// every slot whose text holds term t, with its frequency (packed is empty
// but for an index loaded from a file); a removed segment's slot stays in
// the postings, marked dead, until the next compaction, and is never
// returned nor counted in N, df or the average length.
//
// Concurrency: Search may run on any number of goroutines at once;
// Add, Remove and tuning K1/B must not run concurrently with anything.
type BM25 struct {
	K1, B float64

	dict     map[string]int32 // term → id
	postings [][]posting      // by term id: decoded (after packed's, for a loaded index)
	packed   []packed         // by term id: the postings of a loaded index, as saved (packed.go)
	slots    []slot           // by slot number
	bySeg    map[string]int32 // segment id → slot; nil until needed in an index just loaded (index)
	live     int              // live slots
	totalLen int64            // sum of live slots' lengths
	dead     int              // dead slots still in postings

	oldFormat bool // loaded from a file of format 1
}

type posting struct {
	slot int32
	tf   int32
}

// slot is one indexed segment.
type slot struct {
	seg    string // segment id
	length int32  // tokens
	sum    uint32 // CRC-32C of the text, to tell a stale saved index
	dead   bool
}

// textSum is the checksum slots keep of their text.
func textSum(text string) uint32 {
	// The bytes are only read: no need to copy them out of the string.
	return Sum(unsafe.Slice(unsafe.StringData(text), len(text)))
}

// Sum is the checksum the index keeps of a text (given as its bytes), by
// which ReconcileSums tells a segment's text unchanged.
func Sum(text []byte) uint32 { return crc32.Checksum(text, castagnoli) }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// NewBM25 returns an empty index with the default parameters.
func NewBM25() *BM25 {
	return &BM25{K1: DefaultK1, B: DefaultB, dict: map[string]int32{}, bySeg: map[string]int32{}}
}

// Len is the number of live segments.
func (x *BM25) Len() int { return x.live }

// Add indexes a segment's text under its id, replacing any earlier text of
// that id.
func (x *BM25) Add(segID, text string) {
	x.addTerms(segID, textSum(text), termFreqs(Tokenize(text)))
}

// termFreq is a term and its frequency in one text.
type termFreq struct {
	term string
	tf   int32
}

// termFreqs counts tokens; the result is sorted by term.
func termFreqs(toks []string) []termFreq {
	slices.Sort(toks)
	var out []termFreq
	for i := 0; i < len(toks); {
		j := i + 1
		for j < len(toks) && toks[j] == toks[i] {
			j++
		}
		out = append(out, termFreq{toks[i], int32(j - i)})
		i = j
	}
	return out
}

// Terms is a text analysed for the index: its terms with their
// frequencies and a checksum of the text. Analysing is the costly part of
// adding; a writer does it before it takes its lock, then AddTerms.
type Terms struct {
	tfs []termFreq
	sum uint32
}

// Analyser analyses many texts on one goroutine, normalising each distinct
// word once. The zero value is ready; it is not safe for concurrent use.
type Analyser struct{ a analyser }

// Terms analyses text.
func (a *Analyser) Terms(text string) Terms {
	return Terms{tfs: a.a.termFreqs(text), sum: textSum(text)}
}

// Sum is the checksum of the text (Sum), as the index keeps it.
func (t Terms) Sum() uint32 { return t.sum }

// AddTerms indexes analysed text under segID, replacing any earlier text of
// that id.
func (x *BM25) AddTerms(segID string, t Terms) { x.addTerms(segID, t.sum, t.tfs) }

func (x *BM25) addTerms(segID string, sum uint32, tfs []termFreq) {
	x.Remove(segID)
	s := int32(len(x.slots))
	var length int32
	for _, f := range tfs {
		id, ok := x.dict[f.term]
		if !ok {
			id = int32(len(x.postings))
			x.dict[strings.Clone(f.term)] = id // not a slice of a segment's text
			x.postings = append(x.postings, nil)
		}
		x.postings[id] = append(x.postings[id], posting{s, f.tf})
		length += f.tf
	}
	x.slots = append(x.slots, slot{seg: segID, length: length, sum: sum})
	x.index()[segID] = s
	x.live++
	x.totalLen += int64(length)
}

// Remove drops a segment from the index; an unknown id does nothing.
func (x *BM25) Remove(segID string) {
	s, ok := x.index()[segID]
	if !ok {
		return
	}
	delete(x.bySeg, segID)
	x.slots[s].dead = true
	x.live--
	x.totalLen -= int64(x.slots[s].length)
	x.dead++
	if x.dead > 1024 && x.dead > x.live {
		x.compact()
	}
}

// index maps the live slots' segment ids to their slots. A loaded index
// makes the map only when a change needs it: opening a library whose index
// is up to date looks nothing up by id (ReconcileSums).
func (x *BM25) index() map[string]int32 {
	if x.bySeg == nil {
		x.bySeg = make(map[string]int32, x.live)
		for i, s := range x.slots {
			if !s.dead {
				x.bySeg[s.seg] = int32(i)
			}
		}
	}
	return x.bySeg
}

// compact rewrites the postings without dead slots.
func (x *BM25) compact() {
	renum := make([]int32, len(x.slots))
	slots := make([]slot, 0, x.live)
	for i, s := range x.slots {
		if s.dead {
			renum[i] = -1
			continue
		}
		renum[i] = int32(len(slots))
		x.index()[s.seg] = int32(len(slots))
		slots = append(slots, s)
	}
	dict := make(map[string]int32, len(x.dict))
	var postings [][]posting
	for term, id := range x.dict {
		var ps []posting
		c := x.postingsOf(id)
		for p, ok := c.next(); ok; p, ok = c.next() {
			if n := renum[p.slot]; n >= 0 {
				ps = append(ps, posting{n, p.tf})
			}
		}
		if len(ps) > 0 {
			dict[term] = int32(len(postings))
			postings = append(postings, ps)
		}
	}
	x.dict, x.postings, x.packed, x.slots, x.dead = dict, postings, nil, slots, 0
}

// Scored is a segment id with its score.
type Scored struct {
	ID    string
	Score float64
}

// Search returns the n best segments for query, best first (ties by
// segment id), among those admit accepts (nil admits all). Segments that
// share no term with the query are not returned.
func (x *BM25) Search(query string, n int, admit func(segID string) bool) []Scored {
	if n <= 0 || x.live == 0 {
		return nil
	}
	N := float64(x.live)
	avg := float64(x.totalLen) / N
	k1, b := x.K1, x.B
	acc := getAccumulator(len(x.slots))
	defer putAccumulator(acc)
	for _, f := range termFreqs(Tokenize(query)) {
		id, ok := x.dict[f.term]
		if !ok {
			continue
		}
		df := x.count(id)
		if x.dead > 0 {
			df = 0
			c := x.postingsOf(id)
			for p, ok := c.next(); ok; p, ok = c.next() {
				if !x.slots[p.slot].dead {
					df++
				}
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (N-float64(df)+0.5)/(float64(df)+0.5))
		w := idf * float64(f.tf) * (k1 + 1) // a repeated query term counts again, as in Lucene
		c0, c1 := k1*(1-b), k1*b/avg
		score := func(s, tf int32) {
			sl := &x.slots[s]
			if !sl.dead {
				t := float64(tf)
				acc.add(s, w*t/(t+c0+c1*float64(sl.length)))
			}
		}
		if int(id) < len(x.packed) {
			x.packed[id].each(int32(len(x.slots)), score)
		}
		for _, p := range x.postings[id] {
			score(p.slot, p.tf)
		}
	}
	return x.top(acc, n, admit)
}

// accumulator sums scores per slot: dense, with the list of slots touched.
type accumulator struct {
	score   []float64
	touched []int32
}

func (a *accumulator) add(s int32, v float64) {
	if a.score[s] == 0 {
		a.touched = append(a.touched, s)
	}
	a.score[s] += v
}

var accumulators sync.Pool

func getAccumulator(n int) *accumulator {
	a, _ := accumulators.Get().(*accumulator)
	if a == nil {
		a = &accumulator{}
	}
	if cap(a.score) < n {
		a.score = make([]float64, n, n+n/4)
	}
	a.score = a.score[:n]
	return a
}

// putAccumulator clears the slots touched and pools a.
func putAccumulator(a *accumulator) {
	for _, s := range a.touched {
		a.score[s] = 0
	}
	a.touched = a.touched[:0]
	accumulators.Put(a)
}

// top selects the n best admitted slots (of the touched ones: a heap for
// more would only be allocated).
func (x *BM25) top(acc *accumulator, n int, admit func(string) bool) []Scored {
	h := topk.New(min(n, len(acc.touched)), better)
	for _, s := range acc.touched {
		c := Scored{x.slots[s].seg, acc.score[s]}
		if !h.Admits(c) || (admit != nil && !admit(c.ID)) {
			continue
		}
		h.Push(c)
	}
	return h.Sorted()
}

// better orders results: higher score first, then smaller id.
func better(a, b Scored) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// BuildFunc indexes many segments at once, analysing their texts on all
// CPUs. The texts are given by a function, so that they need not all be in
// memory at once: text(i) is segment ids[i]'s text, called once for each
// i, from several goroutines at once.
func BuildFunc(ids []string, text func(i int) string) *BM25 {
	x := NewBM25()
	n := len(ids)
	workers := max(1, min(runtime.GOMAXPROCS(0), n/256))
	as := make([]analyser, workers)
	tfs := make([][]idFreq, n) // in the local ids of worker i%workers
	sums := make([]uint32, n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			a := &as[w]
			for i := w; i < n; i += workers {
				t := text(i)
				tfs[i] = a.idFreqs(t)
				sums[i] = textSum(t)
			}
		})
	}
	wg.Wait()

	// Map each worker's local term ids to global ones.
	remap := make([][]int32, workers)
	for w := range as {
		remap[w] = make([]int32, len(as[w].terms))
		for local, term := range as[w].terms {
			id, ok := x.dict[term]
			if !ok {
				id = int32(len(x.dict))
				x.dict[term] = id
			}
			remap[w][local] = id
		}
	}
	// Count, allocate each posting list once, then fill in slot order.
	df := make([]int32, len(x.dict))
	for i, fs := range tfs {
		rm := remap[i%workers]
		for j := range fs {
			fs[j].id = rm[fs[j].id]
			df[fs[j].id]++
		}
	}
	x.postings = make([][]posting, len(x.dict))
	for id, c := range df {
		x.postings[id] = make([]posting, 0, c)
	}
	x.slots = make([]slot, 0, n)
	for i, fs := range tfs {
		if _, dup := x.bySeg[ids[i]]; dup {
			x.Remove(ids[i])
		}
		s := int32(len(x.slots))
		var length int32
		for _, f := range fs {
			x.postings[f.id] = append(x.postings[f.id], posting{s, f.tf})
			length += f.tf
		}
		x.slots = append(x.slots, slot{seg: ids[i], length: length, sum: sums[i]})
		x.bySeg[ids[i]] = s
		x.live++
		x.totalLen += int64(length)
		tfs[i] = nil
	}
	return x
}

// idFreq is a term, by id, and its frequency in one text.
type idFreq struct {
	id int32
	tf int32
}

// analyser is Tokenize with a dictionary of its own, for analysing many
// texts on one goroutine: each distinct raw word is normalised once.
//
// Invariant: terms[ids[w]] is the normalised form of raw word w (ids[w] is
// -1 for a dropped word), and byTerm inverts terms.
type analyser struct {
	ids    map[string]int32
	byTerm map[string]int32
	terms  []string
	buf    []int32
}

func (a *analyser) termID(term string) int32 {
	id, ok := a.byTerm[term]
	if !ok {
		id = int32(len(a.terms))
		term = strings.Clone(term)
		a.byTerm[term] = id
		a.terms = append(a.terms, term)
	}
	return id
}

// idFreqs analyses text into term ids and their frequencies, sorted by id.
func (a *analyser) idFreqs(text string) []idFreq {
	if a.ids == nil {
		a.ids, a.byTerm = make(map[string]int32), make(map[string]int32)
	}
	a.buf = a.buf[:0]
	analyse(text, func(tok string, cjk bool) {
		if cjk {
			a.buf = append(a.buf, a.termID(tok))
			return
		}
		id, ok := a.ids[tok]
		if !ok {
			id = -1
			if n := normWord(tok); n != "" {
				id = a.termID(n)
			}
			a.ids[strings.Clone(tok)] = id
		}
		if id >= 0 {
			a.buf = append(a.buf, id)
		}
	})
	slices.Sort(a.buf)
	var out []idFreq
	for i := 0; i < len(a.buf); {
		j := i + 1
		for j < len(a.buf) && a.buf[j] == a.buf[i] {
			j++
		}
		out = append(out, idFreq{a.buf[i], int32(j - i)})
		i = j
	}
	return out
}

// termFreqs analyses text into terms and their frequencies.
func (a *analyser) termFreqs(text string) []termFreq {
	fs := a.idFreqs(text)
	out := make([]termFreq, len(fs))
	for i, f := range fs {
		out[i] = termFreq{a.terms[f.id], f.tf}
	}
	return out
}
