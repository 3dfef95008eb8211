package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/internal/synthtext"
)

// Words are never empty, never longer than maxRun bytes and a rune, and
// together make the text, on every hostile class.
func TestWordsAreShort(t *testing.T) {
	for _, h := range synthtext.Hostile {
		name, s := h.Name, h.Make(8<<10)
		var b strings.Builder
		for w := range words(s) {
			if len(w) > maxRun+utf8.UTFMax || w == "" {
				t.Fatalf("%s: word of %d bytes", name, len(w))
			}
			b.WriteString(w)
		}
		if b.String() != s {
			t.Fatalf("%s: words do not make the text", name)
		}
	}
}
