package extractive

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ibid-dev/ibid/store/keyword"
)

// Resolution is a question read against the questions asked before it in
// its conversation.
//
// Invariant: Carried is empty unless the question is a follow-up; Query
// is Question, then the base forms of its irregular verbs (baseForms),
// then Carried.
type Resolution struct {
	Question string
	// Query is what retrieval searches for.
	Query string
	// Carried are the words of the question before (as it was written)
	// that the follow-up leaves out and that carry over: what "it",
	// "precision" or "why not?" are about.
	Carried []string
	// From is the question they were carried from ("" when none were).
	From string
}

// followupLead are the openings of an elliptical follow-up ("And how is
// precision computed?", "What about Chinese fonts?", "Why not?").
var followupLead = regexp.MustCompile(`(?i)^\s*(and|but|so|also|then|or|what about|how about|what else|why( not)?|how come|how so|which of (them|these|those)|what of)\b|^(那|那么|还有|而|另外)`)

// pointsBack are the words of a short question that point back to what
// was asked before it.
var pointsBack = regexp.MustCompile(`(?i)\b(it|its|they|them|their|this|that|these|those|the same|the former|the latter|the first|the second|the third|the last|one|ones|there|here|he|she|him|her|such)\b|它|它们|这个|那个|这些|那些|其`)

// maxFollowupWords: a question of more words than this is a follow-up only
// when it opens as one.
const maxFollowupWords = 8

// Resolve reads question against earlier, the questions asked before it
// in the conversation, oldest first. A follow-up that leaves out what it
// is about (it opens with "and", "what about", "why", or, in a few words,
// points back with "it", "they", "the second one") carries over the
// content words of the question before it that it lacks; when that
// question was itself a follow-up, what it carried over carries on.
func Resolve(question string, earlier []string) Resolution {
	r := Resolution{Question: question, Query: question}
	if extra := slices.Concat(baseForms(question), againWords(question), joinedWords(question)); len(extra) > 0 {
		r.Query += " " + strings.Join(extra, " ")
	}
	if len(earlier) == 0 || !followup(question) {
		return r
	}
	prev := earlier[len(earlier)-1]
	words := contentWords(prev)
	if followup(prev) && len(earlier) > 1 {
		words = append(words, Resolve(prev, earlier[:len(earlier)-1]).Carried...)
	}
	have := map[string]bool{}
	for _, t := range questionTerms(question) {
		have[t] = true
	}
	for _, w := range words {
		ts := analyse(w)
		if len(ts) == 0 || slices.ContainsFunc(ts, func(t string) bool { return have[t] }) {
			continue
		}
		for _, t := range ts {
			have[t] = true
		}
		r.Carried = append(r.Carried, w)
	}
	if len(r.Carried) > 0 {
		r.Query += " " + strings.Join(r.Carried, " ")
		r.From = prev
	}
	return r
}

// followup reports whether q reads as an elliptical follow-up.
func followup(q string) bool {
	if followupLead.MatchString(q) {
		return true
	}
	n := len(strings.Fields(q))
	if isCJK(q) {
		n = len([]rune(q)) / 3
	}
	return len(questionTerms(q)) == 0 || n <= maxFollowupWords && pointsBack.MatchString(q)
}

// contentWords are the words of q, as written, that hold a content term
// (not question words), in order, each once.
func contentWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(q) {
		w = strings.Trim(w, "?.,!;:'\"()[]？。，！“”‘’")
		if w == "" || questionWords[strings.ToLower(w)] || pointsBack.MatchString(w) && len(analyse(w)) == 0 {
			continue
		}
		if len(analyse(w)) == 0 || seen[strings.ToLower(w)] {
			continue
		}
		seen[strings.ToLower(w)] = true
		out = append(out, w)
	}
	return out
}

// baseForms (and againWords) are the base forms, as keyword search analyses them, of the
// irregular verbs of q that the keyword index would miss ("paid" finds
// "pay"): the answerer compares terms through canonical, and retrieval
// should find what it would quote.
func baseForms(q string) []string {
	var out []string
	for _, t := range keyword.Tokenize(q) {
		if b, ok := canonical[t]; ok && searchable[b] && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// searchable are the canonical terms that keyword search analyses as
// themselves, so that adding one to a query finds it.
var searchable = func() map[string]bool {
	m := map[string]bool{}
	for _, b := range canonical {
		if ts := keyword.Tokenize(b); len(ts) == 1 && ts[0] == b {
			m[b] = true
		}
	}
	return m
}()
