package store_test

import (
	"context"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// lister is a store that can only list its documents; it counts the
// listings.
type lister struct {
	store.Store  // nil: only Documents is called
	docs, listed int
}

func (s *lister) Documents(context.Context) ([]store.Document, error) {
	s.listed++
	return make([]store.Document, s.docs), nil
}

// counter is a lister that counts its documents itself.
type counter struct{ lister }

func (s *counter) DocumentCount(context.Context) (int, error) { return s.docs, nil }

// TestCountDocuments: a DocumentCounter is asked for its count and never
// lists its documents; another store is counted by listing them.
func TestCountDocuments(t *testing.T) {
	ctx := context.Background()
	c := &counter{lister{docs: 7}}
	if n, err := store.CountDocuments(ctx, c); n != 7 || err != nil || c.listed != 0 {
		t.Errorf("a counter: %d, %v after %d listings; want 7 and no listing", n, err, c.listed)
	}
	l := &lister{docs: 4}
	if n, err := store.CountDocuments(ctx, l); n != 4 || err != nil || l.listed != 1 {
		t.Errorf("a lister: %d, %v after %d listings; want 4 from one listing", n, err, l.listed)
	}
}
