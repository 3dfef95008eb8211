package llm

import (
	"context"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A model's answer is bounded by what was asked for: some servers ignore
// max_tokens (many local ones do, for some models), and a model may loop.
// Complete keeps at most AnswerBound(maxTokens) bytes of text, cut at the
// end of a sentence (CutAnswer), stops reading the stream past it and
// closes it, so that the server stops writing; what a caller keeps of an
// answer (a cache) is bounded the same way.

// bytesPerToken is about what one token of English takes; answerSlack is
// how many times maxTokens' worth of text is kept.
const (
	bytesPerToken = 4
	answerSlack   = 4
)

// DefaultAnswerBound bounds an answer asked for without max_tokens.
const DefaultAnswerBound = 1 << 20

// AnswerBound is the most bytes of answer kept when maxTokens were asked
// for: a few times what maxTokens tokens take (DefaultAnswerBound when
// maxTokens is 0 or less).
func AnswerBound(maxTokens int) int {
	if maxTokens <= 0 {
		return DefaultAnswerBound
	}
	return min(maxTokens*bytesPerToken*answerSlack, DefaultAnswerBound)
}

// rawBound is the most bytes of a streamed response read for an answer of
// at most bound bytes: each piece of text comes with its own JSON framing
// (a few hundred bytes, however short the piece), and escapes take up to
// six bytes a byte. A single line longer than that (one huge piece) is cut
// off where it stands.
func rawBound(bound int) int64 { return int64(bound)*64 + 64<<10 }

// errAnswerTooLong is the body of a response that passed its raw bound.
var errAnswerTooLong = errors.New("the answer is longer than was asked for")

// bodyLimitKey carries a response body's raw bound in a request's context.
type bodyLimitKey struct{}

func withBodyLimit(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, bodyLimitKey{}, n)
}

// CutAnswer returns text when it is at most bound bytes; otherwise its
// longest start within bound that ends a sentence (at a '.', '!', '?', '…'
// or their CJK forms before a space, a quote or a bracket, or at a line
// break), as long as that keeps at least half the bound; else the start
// that ends at the last space; else the longest start that ends a rune.
// The result never ends in white space.
func CutAnswer(text string, bound int) string {
	if len(text) <= bound {
		return text
	}
	cut := bound
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	head := text[:cut]
	if end := sentenceEnd(head); end >= bound/2 {
		return strings.TrimRightFunc(head[:end], unicode.IsSpace)
	}
	if sp := strings.LastIndexFunc(head, unicode.IsSpace); sp > 0 {
		return strings.TrimRightFunc(head[:sp], unicode.IsSpace)
	}
	return head
}

// sentenceEnd is the offset just past the last sentence end in s (a
// sentence's closing punctuation and the quotes or brackets that close
// with it, followed by white space or the end of s; or a line break), 0
// when there is none.
func sentenceEnd(s string) int {
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		switch {
		case r == '\n':
			return i
		case r == '。' || r == '！' || r == '？':
			return i
		case r == '.' || r == '!' || r == '?' || r == '…':
			j := i
			for j < len(s) {
				c, n := utf8.DecodeRuneInString(s[j:])
				if !strings.ContainsRune(`"'”’)]»`, c) {
					break
				}
				j += n
			}
			if j == len(s) || unicode.IsSpace(rune(s[j])) {
				return j
			}
		}
		i -= size
	}
	return 0
}
