package postgres

import (
	"slices"
	"testing"
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
		if _, ok := v[colTerms].([]string); !ok {
			t.Fatalf("row %d streamed before its terms: %v", n, v[colTerms])
		}
		n++
	}
	if n != 5 || s.Err() != nil {
		t.Fatalf("streamed %d rows (err %v), want 5", n, s.Err())
	}
	if terms := rows[2][colTerms].([]string); len(terms) != 0 || rows[2][colCount].(int) != 0 {
		t.Errorf("a parent has terms %v", terms)
	}
	f := a.wait()
	want := map[string]int32{}
	for _, i := range []int{0, 1, 3, 4} {
		for _, term := range rows[i][colTerms].([]string) {
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
