package tokens

import "testing"

// BenchmarkTokenizerStart measures building the tokenizer (the bundled
// ranks read and the pre-tokenizer compiled), which every process that
// chunks text pays once.
//
//	go test ./rag/ingest/tokens/ -run '^$' -bench TokenizerStart
func BenchmarkTokenizerStart(b *testing.B) {
	for b.Loop() {
		ranks, err := vocabulary{}.LoadTiktokenBpe(tokenEncoding + ".tiktoken")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := newBPE(ranks, cl100kPattern); err != nil {
			b.Fatal(err)
		}
	}
}
