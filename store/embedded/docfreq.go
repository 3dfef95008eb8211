package embedded

import (
	"context"

	"github.com/ibid-dev/ibid/store"
)

// DocFreq says how many segments hold each term (as keyword search
// analyses text) and how many segments there are (store.TermCounter).
func (s *Store) DocFreq(ctx context.Context, terms []string) ([]int, int, error) {
	if err := s.rlock(ctx); err != nil {
		return nil, 0, err
	}
	defer s.mu.RUnlock()
	df, n := s.kw.DocFreq(terms)
	return df, n, nil
}

var _ store.TermCounter = (*Store)(nil)
