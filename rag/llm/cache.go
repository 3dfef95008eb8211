package llm

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/internal/regular"
)

// Cache keeps a model's answers on disk, one small JSON file per answer,
// under Dir/KEY[:2]/KEY.json (Dir "" keeps nothing), so that a question
// is never asked twice. Keys are the caller's: hex digests of everything
// the answer depends on (the model, the prompt's version, the messages),
// at least two characters long.
//
// An entry is written atomically as soon as its answer is known, so an
// interrupted run keeps what it finished. An entry that cannot be read (a
// named pipe, a device, a file over the bound Get is given), that holds
// another key or no text, is a miss, and the next answer replaces it.
// Judging the text (is it an answer at all) is the caller's.
type Cache struct{ Dir string }

// cacheEntry is one cached answer.
type cacheEntry struct {
	Key  string `json:"key"`
	Text string `json:"text"`
}

// Path is where the entry of key k lives.
func (c Cache) Path(k string) string { return filepath.Join(c.Dir, k[:2], k+".json") }

// Get returns the answer cached for k, reading at most max bytes of its
// entry: a larger one is a miss, never a long read, and a named pipe is a
// miss, never a wait for a writer.
func (c Cache) Get(k string, max int64) (string, bool) {
	if c.Dir == "" {
		return "", false
	}
	data, err := regular.ReadFile(c.Path(k), max)
	if err != nil {
		return "", false
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Key != k || e.Text == "" {
		return "", false
	}
	return e.Text, true
}

// Put stores text as the answer for k.
func (c Cache) Put(k, text string) error {
	if c.Dir == "" {
		return nil
	}
	p := c.Path(k)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(cacheEntry{Key: k, Text: text})
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(p, data, 0o600)
}
