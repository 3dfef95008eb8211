package ingest

import (
	"encoding/base64"
	"flag"
	"fmt"
	"math/rand"
	"strings"
)

var bench16 = flag.Bool("bench16mb", false, "also run the 16 MB sizes of BenchmarkHostile")

// hostile are the input classes that once made ingest super-linear, each
// made n bytes long (about), with its file name (the extension picks the
// format).
var hostile = []struct {
	name, file string
	gen        func(n int) string
}{
	{"letter", "a.txt", func(n int) string { return strings.Repeat("a", n) }},
	{"chinese", "c.txt", randomHan},
	{"oneline", "l.txt", func(n int) string { return randomWords(n, " ") }},
	{"brackets", "b.md", func(n int) string { return strings.Repeat("[", n) }},
	{"nested", "n.md", nestedList},
	{"base64", "i.md", func(n int) string {
		return "# Figure\n\nSee the image.\n\n![plot](data:image/png;base64," + randomBase64(n) + ")\n\nThe end.\n"
	}},
	{"prose", "p.md", func(n int) string { return randomWords(n, ". ") }},
}

// randomWords is n bytes of random words separated by sep every few words.
func randomWords(n int, sep string) string {
	r := rand.New(rand.NewSource(1))
	vocab := strings.Fields("the model cites passages retrieval answer citation library segment token budget paper claim evidence 研究 引用")
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			if i%9 == 0 {
				b.WriteString(sep)
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(vocab[r.Intn(len(vocab))])
	}
	return b.String()
}

// nestedList is a list nested one level deeper on every line, about n
// bytes long.
func nestedList(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(strings.Repeat("  ", i))
		b.WriteString("- item\n")
	}
	return b.String()
}

// randomHan is n bytes of random Chinese characters, without punctuation.
func randomHan(n int) string {
	r := rand.New(rand.NewSource(3))
	var b strings.Builder
	for b.Len()+3 <= n {
		b.WriteRune(rune(0x4E00 + r.Intn(0x9FA5-0x4E00)))
	}
	return b.String()
}

func randomBase64(n int) string {
	r := rand.New(rand.NewSource(2))
	raw := make([]byte, n*3/4)
	r.Read(raw)
	return base64.StdEncoding.EncodeToString(raw)
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMB", n>>20)
	}
	return fmt.Sprintf("%dKB", n>>10)
}

func clearWordCache() {
	wordCache.Lock()
	clear(wordCache.m)
	wordCache.Unlock()
}
