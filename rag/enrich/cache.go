package enrich

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/rag/llm"
)

// cache keeps the model's valid answers on disk, one small JSON file per
// answer, under dir/KEY[:2]/KEY.json (dir "" keeps nothing). An entry is
// written atomically as soon as its call returns, so an interrupted run
// keeps what it finished. An entry that cannot be read, or that holds
// another key or no text, is a miss, and the next answer replaces it.
type cache struct{ dir string }

// maxEntry bounds what is read of a cache entry: an answer is bounded by
// what was asked for (llm.AnswerBound), and its JSON by a few times that.
const maxEntry = 4 << 20

// entry is one cached answer.
type entry struct {
	Key  string `json:"key"`
	Text string `json:"text"`
}

// key is the cache key of a call: the hex SHA-256 of the strategy, the
// prompt version, the model's name, the answer's bound and every message
// (the chunk's text with all it is asked with: the document or summaries
// before it, the previous summary), each length-prefixed so that no two
// calls share a key.
func key(strategy, model string, maxTokens int, msgs []llm.Message) string {
	h := sha256.New()
	field := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	field(strategy)
	field(PromptVersion)
	field(model)
	field(strconv.Itoa(maxTokens))
	for _, m := range msgs {
		field(m.Role)
		field(m.Content)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c cache) path(k string) string { return filepath.Join(c.dir, k[:2], k+".json") }

// get returns the cached answer for k, bounded as the model's answer was
// (llm.CutAnswer to bound bytes): an entry written by hand, or by an ibid
// that kept more, costs no more than an answer does.
func (c cache) get(k string, bound int) (string, bool) {
	if c.dir == "" {
		return "", false
	}
	data, err := regular.ReadFile(c.path(k), maxEntry)
	if err != nil {
		return "", false // a FIFO, a device, a huge file: a miss, never a hang
	}
	var e entry
	if json.Unmarshal(data, &e) != nil || e.Key != k || e.Text == "" {
		return "", false
	}
	return llm.CutAnswer(e.Text, bound), true
}

// put stores text as the answer for k.
func (c cache) put(k, text string) error {
	if c.dir == "" {
		return nil
	}
	p := c.path(k)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(entry{Key: k, Text: text})
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(p, data, 0o600)
}
