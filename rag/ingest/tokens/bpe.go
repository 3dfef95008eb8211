package tokens

import (
	"fmt"
	"math"
	"sync"

	"github.com/dlclark/regexp2"
)

// bpe is a byte-pair encoder of ordinary text (no special tokens), as
// tiktoken-go's EncodeOrdinary and Decode: the same tokens for the same
// ranks and pattern. It is built from what encoding needs only: the
// ranks and the pre-tokenizer. tiktoken-go's NewCoreBPE also builds, at
// once, a reverse map of every rank and a sorted copy of every token
// (half of the tokenizer's start, paid by every process that counts
// tokens); here the reverse map is built on the first decode, which few
// processes make, and the sorted copy not at all.
type bpe struct {
	ranks   map[string]int
	pattern *regexp2.Regexp

	decodeOnce sync.Once
	tokens     map[int]string // rank -> token, built on the first decode
}

// cl100kPattern is cl100k_base's pre-tokenizer (tiktoken-go v0.1.8's).
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

func newBPE(ranks map[string]int, pattern string) (*bpe, error) {
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("compiling the pre-tokenizer: %v", err)
	}
	return &bpe{ranks: ranks, pattern: re}, nil
}

// encode is text's tokens: text is cut into pieces by the pattern (its
// matches, in runes; asciiPieces cuts ASCII text alike without it); a
// piece that is a token is its rank, any other is merged from its bytes.
func (e *bpe) encode(text string) []int {
	out := []int{}
	if asciiPieces(text, func(piece string) { out = e.appendPiece(out, piece) }) {
		return out
	}
	for _, piece := range e.pieces(text) {
		out = e.appendPiece(out, piece)
	}
	return out
}

// pieces is text cut by the pattern.
func (e *bpe) pieces(text string) []string {
	var out []string
	runes := []rune(text)
	m, _ := e.pattern.FindRunesMatch(runes)
	for m != nil {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
		m, _ = e.pattern.FindNextMatch(m)
	}
	return out
}

// appendPiece appends a piece's tokens to out.
func (e *bpe) appendPiece(out []int, piece string) []int {
	if rank, ok := e.ranks[piece]; ok {
		return append(out, rank)
	}
	return append(out, e.merge([]byte(piece))...)
}

// merge is the tokens of a piece that is not itself a token: its bytes
// merged pair by pair, the pair of lowest rank first (tiktoken's
// bytePairMerge).
func (e *bpe) merge(piece []byte) []int {
	if len(piece) == 1 {
		return []int{e.ranks[string(piece)]}
	}
	// parts[i] is a part's start and the rank of it merged with the next
	// part (math.MaxInt: no such token).
	parts := make([][2]int, len(piece)+1)
	for i := range parts {
		parts[i] = [2]int{i, math.MaxInt}
	}
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := e.ranks[string(piece[parts[i][0]:parts[i+skip+2][0]])]; ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i][1] = rank(i, 0)
	}
	for len(parts) > 1 {
		minRank, i := math.MaxInt, -1
		for j := 0; j < len(parts)-1; j++ {
			if parts[j][1] < minRank {
				minRank, i = parts[j][1], j
			}
		}
		if i < 0 {
			break
		}
		parts[i][1] = rank(i, 1)
		if i > 0 {
			parts[i-1][1] = rank(i-1, 1)
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	out := make([]int, len(parts)-1)
	for i := range out {
		out[i] = e.ranks[string(piece[parts[i][0]:parts[i+1][0]])]
	}
	return out
}

// decode is the text of tokens (a rank that is no token adds nothing).
func (e *bpe) decode(tokens []int) string {
	e.decodeOnce.Do(func() {
		e.tokens = make(map[int]string, len(e.ranks))
		for tok, rank := range e.ranks {
			e.tokens[rank] = tok
		}
	})
	var b []byte
	for _, t := range tokens {
		b = append(b, e.tokens[t]...)
	}
	return string(b)
}
