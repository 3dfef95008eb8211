package rag

import (
	"strings"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store/keyword"
)

// claimBytes bounds how much of an answer's text around a reference
// claimSpan reads, on each side.
const claimBytes = 4096

// claimTerms is how many analysed terms the words before a reference
// need to be its claim on their own.
const claimTerms = 3

// claimSpan is where the claim a reference cites lies in text (an
// answer's text without its references, the reference placed at byte
// offset at): the sentence the reference ends or sits in, split as
// documents are (ingest.Sentences).
//
//   - A reference after a sentence's last word ("… almonds [1].") or after
//     its full stop ("… almonds. [1]") cites that sentence.
//   - A reference inside a sentence cites the words before it in that
//     sentence ("Bees pollinate almonds [1] and mites spread viruses [2]."),
//     unless those are too few to claim anything (fewer than claimTerms
//     analysed terms) and the words after it say more: then the claim
//     follows the reference and it cites the whole sentence ("According
//     to Smith [1], mites spread viruses.").
//
// ended is false when the sentence may not have ended yet: nothing after
// at begins another sentence, so more text could extend it and change
// the claim (the answer is still streaming); a streaming answer takes
// the span once ended, or once the answer is whole. Only claimBytes bytes
// on each side of at are read. The span is [start, end) in text; start ==
// end when there is no claim (no words before or around the reference).
func claimSpan(text string, at int) (start, end int, ended bool) {
	at = min(max(at, 0), len(text))
	lo := max(0, at-claimBytes)
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo++
	}
	hi := min(len(text), at+claimBytes)
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi--
	}
	win := text[lo:hi]
	rel := at - lo
	spans := ingest.Sentences(win)
	// The sentence that holds at, or the last one that ends at or before
	// it (the reference follows its stop).
	k := -1
	for i, s := range spans {
		if s.Start < rel {
			k = i
		}
	}
	if k < 0 {
		return at, at, len(spans) > 0
	}
	// After the sentence's end: it is whole, whatever follows.
	s := spans[k]
	ended = k+1 < len(spans)
	if s.End <= rel && strings.TrimSpace(win[s.End:rel]) == "" && endsSentence(win[s.Start:s.End]) {
		return lo + s.Start, lo + s.End, true
	}
	before, after := win[s.Start:rel], ""
	if rel < s.End {
		after = win[rel:s.End]
	}
	if nb := len(keyword.Tokenize(before)); nb < claimTerms && len(keyword.Tokenize(after)) > nb {
		return lo + s.Start, lo + s.End, ended
	}
	// The words before the reference, without the spaces before it.
	e := s.Start + len(strings.TrimRight(before, " \t\r\n"))
	return lo + s.Start, lo + e, ended
}

// Claim is the claim a reference at byte offset at of an answer's text
// cites (claimSpan), tidied (tidyClaim).
func Claim(text string, at int) string {
	s, e, _ := claimSpan(text, at)
	return tidyClaim(text[s:e])
}

// tidyClaim is a claim as a reader would quote it: list and quote markers
// and white space around it left out, and the space a reference left
// before a comma or a stop ("the survey [1], sampling" read without its
// reference) taken away.
func tidyClaim(s string) string {
	s = strings.TrimSpace(strings.TrimLeft(s, "-*+> \t"))
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && i+1 < len(s) && strings.IndexByte(",.;:!?)", s[i+1]) >= 0 {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// endsSentence reports whether s ends with a sentence's final stop
// (. ! ? … and their full-width forms), closing quotes and brackets
// aside.
func endsSentence(s string) bool {
	s = strings.TrimRight(s, " \t\r\n\"'”’)]）」』")
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?…。！？", r)
}
