package ingest

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// tokenEncoding is the tokenizer segments are budgeted with. It is built
// once per process (building it takes a noticeable fraction of a second)
// from the offline vocabulary bundled with tiktoken-go-loader: no network.
const tokenEncoding = "cl100k_base"

var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encErr  error
)

func encoder() *tiktoken.Tiktoken {
	encOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		enc, encErr = tiktoken.GetEncoding(tokenEncoding)
	})
	if encErr != nil {
		// The vocabulary is compiled into the binary: failing to load it
		// is a build defect, not bad input.
		panic(fmt.Sprintf("ingest: couldn't load the %s tokenizer: %v", tokenEncoding, encErr))
	}
	return enc
}

// CountTokens is the number of tokens in s, as segments are budgeted.
func CountTokens(s string) int {
	if s == "" {
		return 0
	}
	return len(encoder().EncodeOrdinary(s))
}

// prefixWithin returns the length in bytes of the longest prefix of s, cut
// on a rune boundary, that has at most budget tokens; it is at least one
// rune long when s is not empty, so a caller cutting s always progresses.
func prefixWithin(s string, budget int) int {
	e := encoder()
	toks := e.EncodeOrdinary(s)
	if len(toks) <= budget {
		return len(s)
	}
	n := len(e.Decode(toks[:budget])) // bytes; may end inside a rune
	if n > len(s) {
		n = len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	// Re-encoding the prefix can merge differently: shrink until it fits.
	for n > 0 && CountTokens(s[:n]) > budget {
		n--
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
	}
	if n == 0 {
		_, n = utf8.DecodeRuneInString(s)
	}
	return n
}
