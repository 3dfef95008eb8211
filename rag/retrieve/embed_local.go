package retrieve

import (
	"context"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/store/keyword"
)

// LocalDimension is the local embedder's dimension.
const LocalDimension = 384

// NewLocalEmbedder returns the embedder that needs no server: the
// analyser's tokens (stemmed words and CJK bigrams) and the character
// trigrams of each word, hashed with a sign into
// LocalDimension buckets, weighted by 1 + ln(tf), then normalised. It is
// deterministic across runs and machines and treats every language alike;
// similar texts share words or word pieces, so its vectors complement BM25
// with partial-word matches.
func NewLocalEmbedder() Embedder { return localDefault }

// localEmbedder hashes features into dim buckets with these weights.
type localEmbedder struct {
	dim                 int
	word, pair, trigram float64
}

var localDefault = localEmbedder{dim: LocalDimension, word: localWordWeight, pair: localPairWeight, trigram: localTrigramWeight}

// Feature weights of the local embedder (tuned on SciFact's dense score,
// docs/retrieval.md).
const (
	localWordWeight    = 1.0
	localPairWeight    = 0 // word pairs did not help on SciFact
	localTrigramWeight = 0.25
)

func (e localEmbedder) Name() string {
	return fmt.Sprintf("local-hash-v1/%d", e.dim)
}

func (e localEmbedder) Dimension() int { return e.dim }

func (e localEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = e.vector(t)
	}
	return out, nil
}

// localVector is the local embedding of one text.
func (e localEmbedder) vector(text string) []float32 {
	counts := map[uint64]float64{}
	toks := keyword.Tokenize(text)
	for i, t := range toks {
		counts[fnv64("w", t)] += e.word
		if i > 0 && e.pair > 0 {
			counts[fnv64(toks[i-1]+"\x00", t)] += e.pair
		}
		if utf8.RuneCountInString(t) >= 4 {
			padded := "<" + t + ">"
			rs := []rune(padded)
			n := len(rs) - 2
			for j := 0; j+3 <= len(rs); j++ {
				counts[fnv64("c", string(rs[j:j+3]))] += e.trigram * 3 / float64(n)
			}
		}
	}
	v := make([]float64, e.dim)
	for h, c := range counts {
		w := 1 + math.Log(c)
		if c < 1 {
			w = c
		}
		if h>>63 == 1 {
			w = -w
		}
		v[(h>>1)%uint64(e.dim)] += w
	}
	var sum float64
	for _, x := range v {
		sum += x * x
	}
	out := make([]float32, e.dim)
	if sum == 0 {
		return out
	}
	norm := math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// fnv64 is 64-bit FNV-1a of a+b, then mixed (FNV's high bits are weak).
func fnv64(a, b string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(a); i++ {
		h ^= uint64(a[i])
		h *= 1099511628211
	}
	for i := 0; i < len(b); i++ {
		h ^= uint64(b[i])
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}
