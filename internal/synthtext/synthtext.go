// Package synthtext makes synthetic text for tests and benchmarks:
// segments whose words follow a Zipf distribution over a made-up
// vocabulary, so that term statistics look like a real library's, and the
// hostile classes of text that once made ingest super-linear (Hostile).
// The same seed gives the same text on every machine.
package synthtext

import (
	"math/rand/v2"
	"strings"
)

// Segments returns n synthetic segments of about words words each (225
// words are about 300 tiktoken tokens, the chunker's budget), with a full
// stop every 17 words.
func Segments(n, words int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	syll := []string{"ka", "to", "mi", "ren", "sa", "lo", "vi", "del", "ne", "pra", "tion", "ing", "ed", "al", "cy", "mer", "qu", "is"}
	vocab := make([]string, 60000)
	for i := range vocab {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		vocab[i] = b.String()
	}
	z := rand.NewZipf(r, 1.07, 2, uint64(len(vocab)-1))
	out := make([]string, n)
	var b strings.Builder
	for i := range out {
		b.Reset()
		for j := range words {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[z.Uint64()])
			if j%17 == 16 {
				b.WriteByte('.')
			}
		}
		out[i] = b.String()
	}
	return out
}
