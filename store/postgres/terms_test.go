package postgres

import (
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/store/keyword"
)

// The rows COPY reads carry their terms, whatever the documents' sizes
// (an empty one among them), and parents carry none; the statistics count
// every index row once.
func TestAnalysisStreamsAnalysedRows(t *testing.T) {
	if chunkColumns[colTerms] != "terms" || chunkColumns[colFreqs] != "term_freqs" || chunkColumns[colCount] != "term_count" {
		t.Fatalf("the analysis writes columns %d-%d, which are %v", colTerms, colCount, chunkColumns[colTerms:])
	}
	texts := [][]string{{"Cats purr", "dogs bark"}, {}, {"parent text", "cats and dogs", "purring cats"}}
	parents := [][]bool{{false, false}, {}, {true, false, false}}
	var rows [][]any
	var offsets []int
	for _, doc := range texts {
		offsets = append(offsets, len(rows))
		for _, text := range doc {
			row := make([]any, len(chunkColumns))
			row[colTerms] = text
			rows = append(rows, row)
		}
	}
	a := analyse(rows, offsets, parents)
	s := a.stream()
	n := 0
	for s.Next() {
		v, err := s.Values()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := v[colTerms].(textArray); !ok {
			t.Fatalf("row %d streamed before its terms: %v", n, v[colTerms])
		}
		n++
	}
	if n != 5 || s.Err() != nil {
		t.Fatalf("streamed %d rows (err %v), want 5", n, s.Err())
	}
	if terms := rows[2][colTerms].(textArray); len(terms) != 0 || rows[2][colCount].(int) != 0 {
		t.Errorf("a parent has terms %v", terms)
	}
	f := a.wait()
	want := map[string]int32{}
	for _, i := range []int{0, 1, 3, 4} {
		for _, term := range rows[i][colTerms].(textArray) {
			want[term]++
		}
	}
	if len(f.terms) != len(want) || !slices.IsSorted(f.terms) {
		t.Fatalf("terms %v, want the %d of %v, sorted", f.terms, len(want), want)
	}
	for i, term := range f.terms {
		if f.counts[i] != want[term] {
			t.Errorf("df(%s) = %d, want %d", term, f.counts[i], want[term])
		}
	}
	if want["cat"] != 3 {
		t.Errorf("df(cat) = %d, want 3 (three index rows say cats)", want["cat"])
	}
	var total int64
	for _, i := range []int{0, 1, 3, 4} {
		total += int64(rows[i][colCount].(int))
	}
	if f.total != total || total == 0 {
		t.Errorf("term total %d, want %d", f.total, total)
	}
}

// TestTermFreqs: the distinct terms of a text, sorted, with how often each
// occurs, and the number of terms, as counting keyword.Tokenize's tokens
// gives them.
func TestTermFreqs(t *testing.T) {
	for _, text := range []string{
		"", "the of and", "Running runs ran; the runner runs again, running.",
		"Cells cells CELLS: cell-cycle arrest in 10 of 12 cells (p < 0.05).",
		"深度学习 deep learning 深度学习 模型", "a b a c b a d e d",
	} {
		toks := keyword.Tokenize(text)
		want := map[string]int32{}
		for _, tok := range toks {
			want[tok]++
		}
		terms, freqs, n := termFreqs(text)
		if n != len(toks) || len(terms) != len(want) || len(freqs) != len(terms) || !slices.IsSorted(terms) {
			t.Fatalf("termFreqs(%q) = %v, %v, %d; tokens %v", text, terms, freqs, n, toks)
		}
		for i, term := range terms {
			if want[term] != freqs[i] {
				t.Fatalf("termFreqs(%q): %q occurs %d times, want %d", text, term, freqs[i], want[term])
			}
		}
	}
}
