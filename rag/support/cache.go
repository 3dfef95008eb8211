package support

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/internal/regular"
)

// cache keeps the model pass's answers on disk, one small JSON file per
// question, under dir/KEY[:2]/KEY.json (dir "" keeps nothing), as
// rag/enrich keeps its answers. An entry is written atomically; one that
// cannot be read, holds another key or an answer that is not a verdict,
// is a miss, and the next answer replaces it.
type cache struct{ dir string }

type cacheEntry struct {
	Key     string `json:"key"`
	Verdict string `json:"verdict"`
}

func (c cache) path(k string) string { return filepath.Join(c.dir, k[:2], k+".json") }

func (c cache) get(k string) (string, bool) {
	if c.dir == "" {
		return "", false
	}
	data, err := regular.ReadFile(c.path(k), 64<<10)
	if err != nil {
		return "", false // a named pipe or a huge file: a miss, never a wait
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Key != k || (e.Verdict != string(Supported) && e.Verdict != string(Unsupported)) {
		return "", false
	}
	return e.Verdict, true
}

func (c cache) put(k, verdict string) error {
	if c.dir == "" {
		return nil
	}
	p := c.path(k)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(cacheEntry{Key: k, Verdict: verdict})
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(p, data, 0o600)
}
