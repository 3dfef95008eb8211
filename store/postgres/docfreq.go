package postgres

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/store"
)

// DocFreq implements store.TermCounter from the statistics the writes keep:
// each term's document frequency from rag_terms, and the number of chunks
// keyword search counts (the library's chunks but its parents). A term
// PostgreSQL could not hold is in no chunk.
func (s *Store) DocFreq(ctx context.Context, terms []string) ([]int, int, error) {
	clean := make([]string, len(terms))
	for i, t := range terms {
		if utf8.ValidString(t) && strings.IndexByte(t, 0) < 0 {
			clean[i] = t // "" stays: no chunk holds the empty term
		}
	}
	var n int
	var df []int32
	err := s.read(ctx, "count terms", func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, `SELECT
			(SELECT chunk_count - parent_count FROM rag_collections WHERE id = $1),
			array(SELECT coalesce(d.df, 0) FROM unnest($2::text[]) WITH ORDINALITY AS t(term, i)
				LEFT JOIN rag_terms d ON d.collection_id = $1 AND d.term = t.term ORDER BY t.i)`,
			s.coll, clean).Scan(&n, &df)
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]int, len(df))
	for i, x := range df {
		out[i] = int(x)
	}
	return out, n, nil
}

var _ store.TermCounter = (*Store)(nil)
