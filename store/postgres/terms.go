package postgres

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ibid-dev/ibid/store/keyword"
)

// The keyword terms of a batch's chunks are analysed while the batch's rows
// stream to the server: workers on every core but one take the documents
// in order and fill in their rows' terms, and COPY sends a document's rows
// once its analysis is done. On a quiet machine the analysis (about a
// fifth of a bulk load's time on the client) then costs no wall time.

// Where the analysis puts a chunk row's terms (see chunkColumns).
const (
	colTerms = iota + 12
	colFreqs
	colCount
)

// analysis fills in the terms of a batch's chunk rows.
//
// Invariant: ready[k] is closed once the rows of document k (rows
// offsets[k] up to offsets[k+1]) hold their terms; all are closed once
// done is.
type analysis struct {
	rows    [][]any
	offsets []int
	ready   []chan struct{}
	wg      sync.WaitGroup
	df      *frequencies // set by wait
}

// frequencies are a batch's keyword statistics: the sum of its chunks' term
// counts, and in how many of its chunks each term occurs (terms sorted,
// counts alongside).
type frequencies struct {
	total  int64
	terms  []string
	counts []int32
}

// analyse starts the analysis of rows, whose document k starts at row
// offsets[k] and whose parents (store.Parents) are parents[k]: a parent's
// row keeps no terms. Each row's terms column holds the text to analyse.
func analyse(rows [][]any, offsets []int, parents [][]bool) *analysis {
	a := &analysis{rows: rows, offsets: append(offsets, len(rows)), ready: make([]chan struct{}, len(parents))}
	for k := range a.ready {
		a.ready[k] = make(chan struct{})
	}
	var next atomic.Int64
	workers := max(1, min(runtime.GOMAXPROCS(0)-1, len(parents)))
	for range workers {
		a.wg.Go(func() {
			for k := int(next.Add(1) - 1); k < len(parents); k = int(next.Add(1) - 1) {
				for j, row := range rows[a.offsets[k]:a.offsets[k+1]] {
					terms, freqs, n := []string{}, []int32{}, 0
					if !parents[k][j] {
						terms, freqs, n = termFreqs(row[colTerms].(string))
					}
					row[colTerms], row[colFreqs], row[colCount] = textArray(terms), int4Array(freqs), n
				}
				close(a.ready[k])
			}
		})
	}
	return a
}

// stream gives the rows to COPY, each once its document's analysis is done.
func (a *analysis) stream() *rowStream { return &rowStream{a: a, i: -1} }

// wait waits for the whole analysis and returns the batch's statistics.
func (a *analysis) wait() *frequencies {
	a.wg.Wait()
	if a.df != nil {
		return a.df
	}
	df := map[string]int32{}
	f := &frequencies{}
	for _, row := range a.rows {
		f.total += int64(row[colCount].(int))
		for _, t := range row[colTerms].(textArray) {
			df[t]++
		}
	}
	f.terms = make([]string, 0, len(df))
	for t := range df {
		f.terms = append(f.terms, t)
	}
	slices.Sort(f.terms)
	f.counts = make([]int32, len(f.terms))
	for i, t := range f.terms {
		f.counts[i] = df[t]
	}
	a.df = f
	return f
}

// rowStream is a pgx.CopyFromSource over an analysis's rows.
type rowStream struct {
	a      *analysis
	i      int // the current row
	doc    int // the document of row i
	waited int // the documents below it are known ready
}

func (s *rowStream) Next() bool {
	s.i++
	if s.i >= len(s.a.rows) {
		return false
	}
	for s.i >= s.a.offsets[s.doc+1] {
		s.doc++
	}
	for ; s.waited <= s.doc; s.waited++ {
		<-s.a.ready[s.waited]
	}
	return true
}

func (s *rowStream) Values() ([]any, error) { return s.a.rows[s.i], nil }

func (s *rowStream) Err() error { return nil }

// termFreqs analyses text as every backend does (keyword.Tokenize) and
// returns its distinct terms, sorted, their frequencies, and the number of
// terms.
func termFreqs(text string) ([]string, []int32, int) {
	toks := keyword.Tokenize(text)
	n := len(toks)
	slices.Sort(toks) // then equal terms are runs: no map to build
	terms := make([]string, 0, n)
	freqs := make([]int32, 0, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n && toks[j] == toks[i] {
			j++
		}
		terms = append(terms, toks[i])
		freqs = append(freqs, int32(j-i))
		i = j
	}
	return terms, freqs, n
}
