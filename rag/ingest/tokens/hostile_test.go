package tokens

import (
	"encoding/base64"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile is, for each class of text that once made ingest super-linear
// (rag/ingest's hostile_test.go loads the same classes as files), a text
// of about n bytes: runs the tokenizer cannot break (one letter, Chinese
// without punctuation, brackets), one long line of words, prose, a list
// nested one level deeper on every line, and a base64 image in Markdown.
func hostile(n int) map[string]string {
	r := rand.New(rand.NewSource(int64(n)))
	vocab := strings.Fields("the model cites passages retrieval answer citation library segment token budget paper claim evidence 研究 引用")
	var line, prose, han, nested strings.Builder
	for i := 0; line.Len() < n || prose.Len() < n; i++ {
		w := vocab[r.Intn(len(vocab))]
		line.WriteString(w + " ")
		if prose.WriteString(w); i%9 == 8 {
			prose.WriteString(". ")
		} else {
			prose.WriteByte(' ')
		}
	}
	for han.Len()+utf8.UTFMax <= n {
		han.WriteRune(rune(0x4E00 + r.Intn(0x9FA5-0x4E00)))
	}
	for depth := 0; nested.Len() < n; depth++ {
		nested.WriteString(strings.Repeat("  ", depth) + "- item\n")
	}
	raw := make([]byte, n*3/4)
	r.Read(raw)
	return map[string]string{
		"letter":   strings.Repeat("a", n),
		"chinese":  han.String(),
		"oneline":  line.String(),
		"brackets": strings.Repeat("[", n),
		"nested":   nested.String(),
		"base64":   "# Figure\n\n![plot](data:image/png;base64," + base64.StdEncoding.EncodeToString(raw) + ")\n",
		"prose":    prose.String(),
	}
}

// Words are never empty, never longer than maxRun bytes and a rune, and
// together make the text, on every hostile class.
func TestWordsAreShort(t *testing.T) {
	for name, s := range hostile(8 << 10) {
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
