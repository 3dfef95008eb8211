package extractive

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
)

// rePhrasal is a verb and the particle that makes a phrasal verb of it
// ("back up", "setting up", "shut down", "roll back"), which documents
// often write as one word, the noun: "Backups", "setup", "shutdown",
// "rollback".
var rePhrasal = regexp.MustCompile(`(?i)\b([a-z]{2,})\s+(up|down|out|off|back|over)\b`)

// joinedWords are the one-word forms of q's phrasal verbs, the verb's
// stem and its particle ("backup" of "How do I back up …", "setup" of
// "setting up"). Most such pairs have none ("results out"): a word that
// no document holds finds nothing in keyword search, and the answerer
// keeps only those the library holds (question.dropUnheld).
func joinedWords(q string) []string {
	var out []string
	for _, m := range rePhrasal.FindAllStringSubmatch(q, -1) {
		v := strings.ToLower(m[1])
		if questionWords[v] || pointsBack.MatchString(v) {
			continue // "how up", "them up": no verb
		}
		ts := keyword.Tokenize(v)
		if len(ts) != 1 {
			continue // a stop word ("it up"), or no word
		}
		w := ts[0] + strings.ToLower(m[2])
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// joinedForms are joinedWords as the answerer compares terms.
func joinedForms(q string) []string {
	var out []string
	for _, w := range joinedWords(q) {
		out = append(out, analyse(w)...)
	}
	return out
}

// dropUnheld takes out of the question's terms the one-word forms of its
// phrasal verbs that no document of the library holds, and all of them
// when the library's statistics are unknown: a term found nowhere would
// weigh as the rarest of all and count against every passage.
func (qu *question) dropUnheld(ctx context.Context, ts store.TermCounter) {
	if len(qu.joined) == 0 {
		return
	}
	var check []string
	for i, t := range qu.terms {
		if qu.joined[t] && qu.own[i] {
			check = append(check, t)
		}
	}
	held := map[string]bool{}
	if ts != nil && len(check) > 0 {
		if df, _, err := ts.DocFreq(ctx, check); err == nil && len(df) == len(check) {
			for i, d := range df {
				held[check[i]] = d > 0
			}
		}
	}
	keep := 0
	for i, t := range qu.terms {
		if qu.joined[t] && !held[t] {
			continue
		}
		qu.terms[keep], qu.own[keep], qu.focus[keep] = t, qu.own[i], qu.focus[i]
		keep++
	}
	qu.terms, qu.own, qu.focus = qu.terms[:keep], qu.own[:keep], qu.focus[:keep]
}
