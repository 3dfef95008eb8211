package ingest

import (
	"fmt"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// tokenEncoding is the tokenizer segments are budgeted with. It is built
// once per process (building it takes a noticeable fraction of a second)
// from the offline vocabulary bundled with tiktoken-go-loader: no network.
const tokenEncoding = "cl100k_base"

// The tokenizer is quadratic in the length of a run it cannot break (one
// letter repeated, Chinese without punctuation, a base64 blob, a long run
// of spaces or brackets). Text is therefore handed to it in pieces:
//
//   - at most pieceLen bytes at a time, cut where cl100k_base's
//     pre-tokenizer cuts anyway (before white space that follows
//     non-white space), so the count of ordinary text is exact;
//   - a run of more than maxRun bytes without such a place is cut every
//     maxRun bytes on a rune boundary; its count is then the tokenizer's
//     for those pieces (a token or so more per cut than the whole would
//     get), which keeps the cost per byte bounded.
const (
	pieceLen = 4096
	maxRun   = 64
	// maxTokenBytes is the longest token of cl100k_base in bytes: a text
	// of more than budget*maxTokenBytes bytes has more than budget
	// tokens, whatever it holds.
	maxTokenBytes = 128
)

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

// CountTokens is the number of tokens in s, as segments are budgeted: the
// cl100k_base count for ordinary text, computed in time linear in len(s)
// for any text (see maxRun).
func CountTokens(s string) int {
	n := 0
	pieces(s, func(p string) { n += len(encoder().EncodeOrdinary(p)) })
	return n
}

// encode is the tokens CountTokens counts, in order; decoding them gives
// back s.
func encode(s string) []int {
	var toks []int
	pieces(s, func(p string) { toks = append(toks, encoder().EncodeOrdinary(p)...) })
	return toks
}

// pieces calls f on consecutive non-empty pieces of s that together make
// s: cut before white space that follows non-white space once a piece
// holds pieceLen bytes, and inside any run of more than maxRun bytes
// without such a place.
func pieces(s string, f func(string)) {
	start := 0   // of the pending piece
	lastCut := 0 // last place a piece could end (natural or forced)
	prevSpace := true
	for i, r := range s {
		space := isTokenSpace(r)
		switch {
		case space && !prevSpace && r != '\r' && r != '\n':
			lastCut = i
			if i-start >= pieceLen {
				f(s[start:i])
				start = i
			}
		case i-lastCut >= maxRun:
			lastCut = i
			f(s[start:i])
			start = i
		}
		prevSpace = space
	}
	if start < len(s) {
		f(s[start:])
	}
}

// isTokenSpace is white space as the pre-tokenizer's \s sees it.
func isTokenSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	}
	return unicode.IsSpace(r)
}

// prefixWithin returns the length in bytes of the longest prefix of s, cut
// on a rune boundary, that has at most budget tokens; it is at least one
// rune long when s is not empty, so a caller cutting s always progresses.
// It looks at a window of s that grows only as needed, so cutting a long
// text into pieces costs time linear in its length.
func prefixWithin(s string, budget int) int {
	w := min(len(s), budget*8)
	var toks []int
	for {
		w = runeFloor(s, w)
		toks = encode(s[:w])
		if len(toks) > budget || w == len(s) {
			break
		}
		w = min(len(s), 2*w)
	}
	if len(toks) <= budget {
		return len(s)
	}
	// The window's first budget tokens decode to a prefix; re-encoding a
	// cut prefix can merge differently, so give back tokens until it fits.
	e := encoder()
	n := 0
	for k := budget; k > 0; k-- {
		n = runeFloor(s, min(len(s), len(e.Decode(toks[:k]))))
		if n > 0 && CountTokens(s[:n]) <= budget {
			break
		}
		n = 0
	}
	if n == 0 {
		_, n = utf8.DecodeRuneInString(s)
	}
	return n
}

// runeFloor is n, moved back to the start of the rune it falls in.
func runeFloor(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
