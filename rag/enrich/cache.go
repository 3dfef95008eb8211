package enrich

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/ibid-dev/ibid/rag/llm"
)

// maxEntry bounds what is read of a cache entry: an answer is bounded by
// what was asked for (llm.AnswerBound), and its JSON by a few times that.
const maxEntry = 4 << 20

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
