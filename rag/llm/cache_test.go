package llm

import (
	"os"
	"strings"
	"testing"
)

// An answer put is got back by its key; another key, a damaged entry, an
// entry over the bound and an empty answer are misses; a Cache without a
// folder keeps nothing.
func TestCache(t *testing.T) {
	t.Parallel()
	c := Cache{Dir: t.TempDir()}
	const k, other = "ab12", "cd34"
	if _, ok := c.Get(k, 1<<10); ok {
		t.Fatal("a hit in an empty cache")
	}
	if err := c.Put(k, "Yes."); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Get(k, 1<<10); !ok || got != "Yes." {
		t.Fatalf("Get = %q, %v", got, ok)
	}
	if _, ok := c.Get(other, 1<<10); ok {
		t.Error("another key hit")
	}
	if _, ok := c.Get(k, 8); ok {
		t.Error("an entry over the bound was read")
	}
	// An entry holding another key (copied by hand) is a miss.
	data, _ := os.ReadFile(c.Path(k))
	if err := os.MkdirAll(c.Dir+"/cd", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Path(other), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(other, 1<<10); ok {
		t.Error("an entry holding another key was read")
	}
	for _, bad := range []string{`{"key":"ab1`, `{"key":"ab12","text":""}`} {
		if err := os.WriteFile(c.Path(k), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Get(k, 1<<10); ok {
			t.Errorf("entry %s read", bad)
		}
	}
	if err := c.Put(k, strings.Repeat("x", 10)); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Get(k, 1<<10); got != "xxxxxxxxxx" {
		t.Errorf("a damaged entry was not replaced: %q", got)
	}
	none := Cache{}
	if err := none.Put(k, "Yes."); err != nil {
		t.Fatal(err)
	}
	if _, ok := none.Get(k, 1<<10); ok {
		t.Error("a cache without a folder kept an answer")
	}
}
