package synthtext

import (
	"encoding/base64"
	"math/rand"
	"strings"
)

// HostileText is a class of text that once made ibid's ingest
// super-linear (the tokenizer, the chunker or the Markdown reader).
type HostileText struct {
	Name string
	// File names a file that holds such a text: its extension (.txt or
	// .md) is the format a loader reads it as.
	File string
	// Make returns the class's text of about n bytes; the same n gives
	// the same text on every machine.
	Make func(n int) string
}

// Hostile are the hostile classes: runs the tokenizer cannot break (one
// letter, Chinese without punctuation, brackets), one long line of words,
// a list nested one level deeper on every line, a base64 image in
// Markdown, and prose.
var Hostile = []HostileText{
	{"letter", "a.txt", func(n int) string { return strings.Repeat("a", n) }},
	{"chinese", "c.txt", randomHan},
	{"oneline", "l.txt", func(n int) string { return randomWords(n, " ") }},
	{"brackets", "b.md", func(n int) string { return strings.Repeat("[", n) }},
	{"nested", "n.md", NestedList},
	{"base64", "i.md", func(n int) string {
		return "# Figure\n\nSee the image.\n\n![plot](data:image/png;base64," + Base64(n) + ")\n\nThe end.\n"
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

// NestedList is a Markdown list nested one level deeper on every line,
// about n bytes long.
func NestedList(n int) string {
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

// Base64 is about n bytes of base64 (of random bytes), as an image
// inlined in Markdown holds.
func Base64(n int) string {
	r := rand.New(rand.NewSource(2))
	raw := make([]byte, n*3/4)
	r.Read(raw)
	return base64.StdEncoding.EncodeToString(raw)
}
