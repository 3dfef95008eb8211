// Package tokens counts the tokens of text as ibid budgets segments:
// cl100k_base's byte-pair encoding (the vocabulary bundled with
// tiktoken-go-loader, nothing fetched), computed in time linear in the
// text's length for any text, however hostile. Counts are exact for
// ordinary text (see maxRun for where they may exceed tiktoken's by a
// token or so per cut). Safe for concurrent use; the tokenizer is built
// on the first count, once per process.
package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"iter"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// tokenEncoding is the tokenizer segments are budgeted with. It is built
// once per process (building it takes a noticeable fraction of a second)
// from the offline vocabulary bundled with tiktoken-go-loader (no
// network) and cl100k_base's pattern, as a bpe: tiktoken-go's tokens,
// without the tables of its own that counting does not use.
const tokenEncoding = "cl100k_base"

// The tokenizer is quadratic in the length of a run it cannot break (one
// letter repeated, Chinese without punctuation, a long run of spaces or
// brackets), and its regular expression is slow. Text is therefore handed
// to it word by word, through a cache:
//
//   - a word is cut where cl100k_base's pre-tokenizer cuts anyway (before
//     a space or tab that follows non-white space), so the count of
//     ordinary text is exact;
//   - a run of more than maxRun bytes without such a place is cut every
//     maxRun bytes on a rune boundary; its count is then the tokenizer's
//     for those pieces (a token or so more per cut than the whole would
//     get), which keeps the cost per byte bounded;
//   - words repeat (in prose, and in every hostile run), so the tokens of
//     up to cacheEntries words are kept.
const (
	maxRun       = 64
	cacheEntries = 1 << 16
)

// MaxTokenBytes is the longest token of cl100k_base in bytes: a text of
// more than budget*MaxTokenBytes bytes has more than budget tokens,
// whatever it holds, and need not be counted.
const MaxTokenBytes = 128

var (
	encOnce sync.Once
	enc     *bpe
	encErr  error
)

func encoder() *bpe {
	encOnce.Do(func() {
		var ranks map[string]int
		if ranks, encErr = (vocabulary{}).LoadTiktokenBpe(tokenEncoding + ".tiktoken"); encErr == nil {
			enc, encErr = newBPE(ranks, cl100kPattern)
		}
	})
	if encErr != nil {
		// The vocabulary is compiled into the binary: failing to load it
		// is a build defect, not bad input.
		panic(fmt.Sprintf("tokens: couldn't load the %s tokenizer: %v", tokenEncoding, encErr))
	}
	return enc
}

// vocabulary loads a tokenizer's ranks from the files bundled with
// tiktoken-go-loader, as its OfflineLoader does (the same map), reading
// the file in place: no copy of it as a string, no slice of its lines, a
// map sized once. Every process that counts tokens loads cl100k_base's
// 100,256 ranks, and the loader's copies and regrowing map were most of
// that (a third of a second under the race detector, paid again by each
// test process that adds a document).
type vocabulary struct{}

// LoadTiktokenBpe reads the ranks of the file that url names (only its
// base name is used: nothing is fetched). Each line is a token in base64
// and its rank, separated by a space.
func (vocabulary) LoadTiktokenBpe(url string) (map[string]int, error) {
	data, err := assets.Assets.ReadFile(path.Base(url))
	if err != nil {
		return nil, err
	}
	ranks := make(map[string]int, bytes.Count(data, []byte{'\n'})+1)
	var buf []byte
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%s: a line without a rank: %q", path.Base(url), line)
		}
		if dn := base64.StdEncoding.DecodedLen(sp); cap(buf) < dn {
			buf = make([]byte, dn)
		}
		n, err := base64.StdEncoding.Decode(buf[:cap(buf)], line[:sp])
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %v", path.Base(url), line, err)
		}
		rank, err := strconv.Atoi(string(line[sp+1:]))
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %v", path.Base(url), line, err)
		}
		ranks[string(buf[:n])] = rank
	}
	return ranks, nil
}

// wordCache maps a word (see words) to its tokens. It is emptied when
// full, so it never holds more than cacheEntries words. Safe for
// concurrent use.
var wordCache = struct {
	sync.Mutex
	m map[string][]int
}{m: map[string][]int{}}

// Work counters that tests bound: bytes of words looked up (cache hits
// and misses), and bytes handed to the tokenizer itself (misses).
var lookedUpBytes, tokenizedBytes atomic.Int64

// Work is the tokenizer's work counters since the process started, for
// tests and measurements that bound it: lookedUp is the bytes of words
// looked up in the word cache (every byte Count and PrefixWithin read
// passes through it, once or more), tokenized the bytes of those words
// the cache did not hold and the byte-pair encoder was handed. Both only
// grow; tokenized <= lookedUp. Take the difference of two calls.
func Work() (lookedUp, tokenized int64) {
	return lookedUpBytes.Load(), tokenizedBytes.Load()
}

// ClearCache empties the word cache, so that later counts tokenize every
// word anew (as a process's first file does): for tests and benchmarks
// that measure work. Counts do not change.
func ClearCache() {
	wordCache.Lock()
	clear(wordCache.m)
	wordCache.Unlock()
}

// wordTokens is the tokens of one word.
func wordTokens(w string) []int {
	lookedUpBytes.Add(int64(len(w)))
	wordCache.Lock()
	t, ok := wordCache.m[w]
	wordCache.Unlock()
	if ok {
		return t
	}
	tokenizedBytes.Add(int64(len(w)))
	t = encoder().encode(w)
	wordCache.Lock()
	if len(wordCache.m) >= cacheEntries {
		clear(wordCache.m)
	}
	wordCache.m[strings.Clone(w)] = t
	wordCache.Unlock()
	return t
}

// Count is the number of tokens in s, as segments are budgeted: the
// cl100k_base count for ordinary text, computed in time linear in len(s)
// for any text (see maxRun). Count("") is 0.
func Count(s string) int {
	n := 0
	for w := range words(s) {
		n += len(wordTokens(w))
	}
	return n
}

// words yields consecutive non-empty words of s that together make s: cut
// before a space or tab that follows non-white space, and inside any run
// of more than maxRun bytes without such a place. No word is longer than
// maxRun bytes plus one rune. Where s is cut depends only on what comes
// before, so a prefix of s that ends where a word ends has the same words.
func words(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := 0 // of the pending word
		prevSpace := true
		for i, r := range s {
			space := isTokenSpace(r)
			if (r == ' ' || r == '\t') && !prevSpace || i-start >= maxRun {
				if i > start && !yield(s[start:i]) {
					return
				}
				start = i
			}
			prevSpace = space
		}
		if start < len(s) {
			yield(s[start:])
		}
	}
}

// isTokenSpace is white space as the pre-tokenizer's \s sees it.
func isTokenSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	}
	return unicode.IsSpace(r)
}

// PrefixWithin returns the length in bytes of a longest prefix of s, cut
// on a rune boundary, that has at most budget tokens (Count): whole words
// while they fit, then as much of the next as fits. It is at least one
// rune long when s is not empty (even when that rune alone is over
// budget), so a caller cutting s always progresses; it is 0 only for "".
// It reads s only as far as the prefix reaches, so cutting a long text
// into pieces costs time linear in its length.
func PrefixWithin(s string, budget int) int {
	n, tok := 0, 0
	for w := range words(s) {
		t := len(wordTokens(w))
		if tok+t > budget {
			// Fill the budget from inside the word that does not fit.
			if k := cutWord(w, budget-tok); tok < budget && Count(s[:n+k]) <= budget {
				return n + k
			}
			if n == 0 {
				_, n = utf8.DecodeRuneInString(s)
			}
			return n
		}
		n += len(w)
		tok += t
	}
	return len(s)
}

// cutWord is the longest prefix of the word w, on a rune boundary, with at
// most budget tokens, and at least one rune.
func cutWord(w string, budget int) int {
	toks := wordTokens(w)
	n := 0
	for k := min(budget, len(toks)); k > 0; k-- {
		n = runeFloor(w, min(len(w), len(encoder().decode(toks[:k]))))
		if n > 0 && Count(w[:n]) <= budget {
			break
		}
		n = 0
	}
	if n == 0 {
		_, n = utf8.DecodeRuneInString(w)
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
