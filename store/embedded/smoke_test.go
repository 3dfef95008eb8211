package embedded

import (
	"context"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

func TestSmokeReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	put(t, s, "a", 5, 1)
	put(t, s, "b", 3, 1)
	put(t, s, "a", 4, 2)
	if err := s.Update(ctx, nil, []string{"b"}); err != nil {
		t.Fatal(err)
	}
	put(t, s, "c", 2, 1)
	checkDoc(t, s, "a", 4, 2)
	s.Close()
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	checkDoc(t, s, "a", 4, 2)
	checkDoc(t, s, "c", 2, 1)
	if _, err := s.Document(ctx, "b"); err == nil {
		t.Fatal("b survived")
	}
	hits, err := s.Dense(ctx, vec("a/2", 3, 8), 2, store.Filter{})
	if err != nil || len(hits) != 2 || hits[0].Segment.ID != "a:3" {
		t.Fatalf("dense %v %v", hits, err)
	}
	hits, err = s.Keyword(ctx, "generated context", 5, store.Filter{})
	if err != nil || len(hits) != 1 || hits[0].Segment.ID != "a:3" {
		t.Fatalf("keyword %v %v", hits, err)
	}
}
