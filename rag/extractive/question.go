package extractive

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/store/keyword"
)

// Kind is the shape of answer a question asks for.
type Kind uint8

const (
	KindGeneral    Kind = iota // anything else: the best-matching sentences
	KindDefinition             // what is X, how is X computed or defined
	KindList                   // which X, what datasets, name the models
	KindNumber                 // how many, how much, how long, what share
	KindYesNo                  // does, is, can ...
	KindReason                 // why
	KindHowTo                  // how do I, how to
	KindCondition              // what if, what happens when
	KindCompare                // how does X compare with Y, is X better than Y
	KindLimit                  // what are the limitations, drawbacks, blind spots of X
)

// String names the kind, for --explain.
func (k Kind) String() string {
	switch k {
	case KindDefinition:
		return "definition"
	case KindList:
		return "list"
	case KindNumber:
		return "number"
	case KindYesNo:
		return "yes/no"
	case KindReason:
		return "reason"
	case KindHowTo:
		return "how-to"
	case KindCondition:
		return "condition"
	case KindCompare:
		return "comparison"
	case KindLimit:
		return "limitation"
	}
	return "general"
}

// question is a question as the answerer reads it.
//
// Invariant: terms holds each analysed content term once, in order of
// first appearance (the question's own, then those carried over from the
// question before), and weights, own and focus are parallel to it.
type question struct {
	text  string
	kind  Kind
	terms []string
	// weights are the terms' rarity (idf) times their part: a carried
	// term counts half (carriedWeight).
	weights []float64
	own     []bool // the term is the question's own, not carried over
	focus   []bool // the term names what a definition question defines
	seq     []string
	// named is the id of the document the question names (its title holds
	// a rare term of the question), namedTitle that title's terms; ""
	// when it names none (namedDocument).
	named      string
	namedTitle map[string]bool
	// joined are the terms that are the one-word forms of the
	// question's phrasal verbs ("backup" of "back up", joinedWords),
	// kept only where the library holds them (dropUnheld).
	joined map[string]bool
	// pairs are the question's adjacent content terms ("citat recal"),
	// which a sentence holding them in a row matches as a phrase.
	pairs map[[2]string]bool
}

// carriedWeight is how much a term carried over from the question before
// a follow-up counts, against the follow-up's own terms.
const carriedWeight = 0.5

// questionWords are the words of a question that say what kind of answer
// is wanted rather than what it is about; they do not count as the
// question's terms. The CJK ones are the interrogatives and modal words of
// Chinese questions.
var questionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("what who whom whose which when where why how do does did done doing " +
		"you your yours i me my mine we us our can could should would shall may might must many much " +
		"have has had having tell explain describe give show please about s were been being am " +
		"i'm i've i'd i'll we're we've you're it's while " +
		"actually just simply really basically exactly ever even quite rather very still already " +
		"什么 怎么 怎样 如何 为什么 哪些 哪个 哪种 多少 几个 是否 吗 呢 应该 可以 能否") {
		m[w] = true
	}
	return m
}()

// howWords are the words that, after "how", ask for a measure ("how
// long", "how often"): question words there, content words elsewhere.
var howWords = map[string]bool{
	"long": true, "large": true, "big": true, "small": true, "fast": true, "slow": true, "often": true,
	"far": true, "old": true, "good": true, "well": true, "high": true, "low": true,
}

// questionTermsAnalysed are the question words as the analyser makes them.
var questionTermsAnalysed = func() map[string]bool {
	m := map[string]bool{}
	for w := range questionWords {
		for _, t := range keyword.Tokenize(w) {
			m[t] = true
		}
	}
	return m
}()

// questionTerms are the distinct analysed terms of a question, without
// its question words, in order of first appearance, each in its
// canonical form (canon).
func questionTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	after := ""
	for _, w := range strings.Fields(strings.ToLower(q)) {
		bare := strings.Trim(w, "?.,!;:'\"()[]？。，！")
		prev := after
		after = bare
		if questionWords[bare] || prev == "how" && howWords[bare] {
			continue
		}
		for _, t := range analyse(w) {
			if !seen[t] && !questionTermsAnalysed[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	for _, t := range againForms(q) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// reAgain is a verb done again: "try the request again", "embed them
// again" (up to two words between).
var reAgain = regexp.MustCompile(`(?i)\b([a-z]{3,})\b(?:\s+[a-z'’]+){0,2}\s+again\b`)

// againForms are the terms of the verbs a text says are done again, as
// the documents write them with "re-": "try … again" is "retry",
// "index … again" "reindex".
func againForms(q string) []string {
	var out []string
	for _, w := range againWords(q) {
		out = append(out, analyse(w)...)
	}
	return out
}

// againWords are the words "re" + verb of the verbs q says are done
// again ("retry" of "try the request again").
func againWords(q string) []string {
	var out []string
	for _, m := range reAgain.FindAllStringSubmatch(q, -1) {
		v := strings.ToLower(m[1])
		if questionWords[v] || len(analyse(v)) == 0 {
			continue
		}
		out = append(out, "re"+v)
	}
	return out
}

// Patterns of question kinds, on the lower-cased question. Order matters:
// the first that matches decides.
var (
	reHowTo      = regexp.MustCompile(`^(and |so |then )?(how (do|can|should|would) (i|we|you|one)\b|how to\b|what (do|should) i do\b)|(怎么|如何|怎样)`)
	reNumberQ    = regexp.MustCompile(`^(and |so |then )?(how (many|much|long|large|big|small|fast|slow|often|far|old|accurate|reliable|good|well|high|low)\b|what (is the |are the )?(percentage|share|fraction|proportion|number|amount|size|rate|accuracy|count|ratio|length)\b|(at )?what (\w+ )?(recall|precision|score|value|size|length|number|rate|accuracy|percentage|share|fraction|proportion|count|ratio|amount|speed|latency|time|version|year|date)s?\b|(which|what) (\w+ )*versions?\b|what(?:'s| is| are| was| were)? (?:the )?(?:biggest|largest|longest|smallest|shortest|maximum|minimum|highest|lowest|greatest|fastest|slowest|max|min)\b)|多少|几个|多大|多长|最大|最多|最长`)
	reReason     = regexp.MustCompile(`^(and |so |but )?why\b|\breason\b|为什么|为何`)
	reDefinition = regexp.MustCompile(`^(and |so |then )?(what (is|are|was|were|does|do) (an? |the )?(.+?)( mean| stand for| measure| refer to| do)?\??$|how (is|are|was|were) (.+?) (computed|calculated|defined|measured|determined|estimated|scored|evaluated|obtained|derived)\b|define\b|what do (they|you|we) mean by\b)|是什么|什么是|指什么`)
	reList       = regexp.MustCompile(`\blist\b|\bname (the|all)\b|哪些|哪几`)
	reWhichWhat  = regexp.MustCompile(`^(?:and |so |then )?(which|what)\s+(.*)$`)
	reCompare    = regexp.MustCompile(`\bcompare[sd]?\b.*\b(with|to|against)\b|\b(better|worse|higher|lower|faster|slower|larger|smaller) than\b|\bdiffer(ence|s)? between\b|\bvs\.?\s|\bversus\b`)
	reLimitQ     = regexp.MustCompile(`\b(limitations?|limits|drawbacks?|downsides?|weakness(es)?|shortcomings?|blind spots?|flaws?|pitfalls?|caveats?|disadvantages?)\b`)
	reCondition  = regexp.MustCompile(`^(and |so |but )?what (if|happens (if|when|once|after)|would happen)\b`)
	reYesNo      = regexp.MustCompile(`^(and |so |but )?(is|are|was|were|does|do|did|can|could|should|will|would|has|have|had)\b|吗[？?]?$|是否|能否`)
)

// reLeadPhrase is a phrase that sets the scene before the question
// proper: "In the interactive method, how many …", "On QAMPARI, what
// recall …", "By how much …".
var reLeadPhrase = regexp.MustCompile(`^(?:(?:in|on|for|with|without|at|after|before|under|during|compared with|according to|besides|apart from) [^,?]{1,80}, |by )`)

// clause is q as the kind patterns read it: lower case, trimmed, without a
// leading phrase that sets the scene (reLeadPhrase).
func clause(q string) string {
	s := strings.ToLower(strings.TrimSpace(q))
	return reLeadPhrase.ReplaceAllString(s, "")
}

// maxSubjectTerms: a definition question whose subject is longer than
// this many terms ("what is the known blind spot of the automatic
// precision score when …") describes what it looks for rather than
// naming it, and is read as a general question.
const maxSubjectTerms = 4

// kindOf is the kind of answer q asks for: its first clause's, or, when
// that asks for nothing in particular and its last clause, after ",
// and", asks how many, how often, how much …, a number ("Which server
// errors make ibid try the request again, and how often?").
func kindOf(q string) Kind {
	k := clauseKind(q)
	if k != KindGeneral {
		return k
	}
	s := clause(q)
	if i := strings.LastIndex(s, ", and "); i > 0 {
		if clauseKind(s[i+2:]) == KindNumber {
			return KindNumber
		}
	}
	return KindGeneral
}

// clauseKind is the kind of answer q's first clause asks for.
func clauseKind(q string) Kind {
	s := clause(q)
	switch {
	case reHowTo.MatchString(s):
		return KindHowTo
	case reReason.MatchString(s):
		return KindReason
	case reCondition.MatchString(s):
		return KindCondition
	case reCompare.MatchString(s) && !reNumberQ.MatchString(s):
		return KindCompare
	case reLimitQ.MatchString(s) && !reNumberQ.MatchString(s) && !reHowTo.MatchString(s):
		return KindLimit
	case reList.MatchString(s) && isCJK(s):
		return KindList
	case reNumberQ.MatchString(s):
		return KindNumber
	case reList.MatchString(s) || asksWhichThings(s):
		return KindList
	case reDefinition.MatchString(s) && len(definitionSubject(q)) <= maxSubjectTerms:
		return KindDefinition
	case reYesNo.MatchString(s):
		return KindYesNo
	}
	return KindGeneral
}

// auxWords are the verbs that end what a which- or what-question asks
// for ("what datasets does …").
var auxWords = map[string]bool{
	"do": true, "does": true, "did": true, "is": true, "are": true, "was": true, "were": true, "can": true,
	"could": true, "should": true, "will": true, "would": true, "has": true, "have": true, "had": true,
	"may": true, "might": true, "must": true, "'s": true,
}

// notThings are the words after "what" that do not name things to list
// ("what if the power goes out?", "what else …").
var notThings = map[string]bool{"if": true, "else": true, "about": true, "happens": true, "happened": true}

// asksWhichThings reports whether s (lower case) asks which things: "which
// X …" or "what X …" with X plural ("what datasets does ALCE use?", not
// "which document collection …", "what does MAUVE measure?" nor "what is
// …").
func asksWhichThings(s string) bool {
	m := reWhichWhat.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	words := strings.Fields(m[2])
	if len(words) == 0 || auxWords[words[0]] || notThings[words[0]] || strings.HasPrefix(words[0], "'") {
		return false
	}
	if words[0] == "of" {
		return false // "which of them" picks one
	}
	// What is asked for ends at the verb: an auxiliary ("what datasets
	// does …"); with none among the first words, the verb is the second
	// word ("what model decides …"), and only the first names the things.
	n := 1
	for i, w := range words[:min(5, len(words))] {
		if auxWords[w] {
			n = i
			break
		}
	}
	for _, w := range words[:max(1, min(n, 4))] {
		if w = strings.Trim(w, "?,."); len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			return true
		}
	}
	return false
}

// definitionSubject is the terms of what a definition question asks
// about: X of "what is X", "what does X measure", "how is X computed".
func definitionSubject(q string) []string {
	s := clause(q)
	m := reDefinition.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	x := m[5]
	if x == "" {
		x = m[8]
	}
	return analyse(x)
}

// reHead finds what a list or number question asks for: X of "which X
// do …", "what X are …", "how many X …".
var reHead = regexp.MustCompile(`^(?:and |so |then )?(?:which|what|how many|how much|how (?:long|large|big|small|fast|often|accurate|reliable|good) (?:is|are|can|does|do|was|were) (?:an? |the )?)\s*(.+?)\s+(?:do|does|did|is|are|was|were|can|could|should|will|would|has|have|had|per|in|of|for|on|from)\b`)

// headNoun is the last word of what a list or number question asks for
// ("models" of "Which instruction-tuned LLaMA models were tried?"),
// analysed; nil when the question does not say.
func headNoun(q string) []string {
	m := reHead.FindStringSubmatch(clause(q))
	if m == nil {
		return nil
	}
	words := strings.Fields(m[1])
	return analyse(words[len(words)-1])
}

// reMeasured finds what a "how long is X" question measures.
var reMeasured = regexp.MustCompile(`^(?:and |so |then )?how (?:long|large|big|small|fast|often|accurate|reliable|good|well) (?:is|are|can|does|do|was|were) (?:an? |the )?(.+?)(?:\s+(?:be|get|take|run|do|score|reach|perform)\b.*)?\??$`)

// measured is what a "how long is X" question measures (X), analysed.
func measured(q string) []string {
	m := reMeasured.FindStringSubmatch(clause(q))
	if m == nil {
		return nil
	}
	return analyse(m[1])
}

// newQuestion reads q, carrying over the terms of carried (a follow-up's
// earlier question's terms it lacks, already analysed).
func newQuestion(q string, carried []string) *question {
	qu := &question{text: q, kind: kindOf(q), pairs: map[[2]string]bool{}}
	qu.terms = questionTerms(q)
	seen := map[string]bool{}
	for _, t := range qu.terms {
		seen[t] = true
	}
	for _, t := range joinedForms(q) {
		if !seen[t] {
			seen[t] = true
			qu.terms = append(qu.terms, t)
			if qu.joined == nil {
				qu.joined = map[string]bool{}
			}
			qu.joined[t] = true
		}
	}
	own := len(qu.terms)
	for _, t := range carried {
		if !seen[t] {
			seen[t] = true
			qu.terms = append(qu.terms, t)
		}
	}
	qu.own = make([]bool, len(qu.terms))
	qu.focus = make([]bool, len(qu.terms))
	for i := range qu.own {
		qu.own[i] = i < own
	}
	var subject []string
	switch qu.kind {
	case KindDefinition:
		subject = definitionSubject(q)
	case KindList, KindNumber:
		subject = headNoun(q)
		if len(subject) == 0 && qu.kind == KindNumber {
			subject = measured(q)
		}
	}
	for i, t := range qu.terms {
		qu.focus[i] = slices.Contains(subject, t)
	}
	qu.seq = analyse(q)
	for i := 0; i+1 < len(qu.seq); i++ {
		a, b := qu.seq[i], qu.seq[i+1]
		if !questionTermsAnalysed[a] && !questionTermsAnalysed[b] {
			qu.pairs[[2]string{a, b}] = true
		}
	}
	return qu
}

// analyse is keyword.Tokenize with each term in the form the answerer
// compares terms in: canonical (so that "paid" meets "pay" and "computed"
// meets "calculate"), then without the derivational endings stemming
// leaves apart (derive: "accuracy" meets "accurate", "fluency" "fluent",
// "summarise" "summarize").
func analyse(text string) []string {
	toks := keyword.Tokenize(text)
	for i, t := range toks {
		if c, ok := canonical[t]; ok {
			t = c
		}
		toks[i] = derive(t)
	}
	return toks
}

// derive takes off the derivational endings that Porter's stemmer leaves
// on a stem, so that a noun meets its adjective or verb: "accuraci"
// (accuracy) is "accur" (accurate), "fluenci" is "fluent", "summari"
// (summary) and "summaris" (summarise) are "summar" (summarize). It is
// applied alike to questions and passages, so a rule can only merge.
func derive(t string) string {
	switch n := len(t); {
	case n > 5 && strings.HasSuffix(t, "aci"):
		return t[:n-3]
	case n > 5 && strings.HasSuffix(t, "enci"):
		return t[:n-4] + "ent"
	case n > 5 && strings.HasSuffix(t, "anci"):
		return t[:n-4] + "ant"
	case n > 6 && strings.HasSuffix(t, "ari"):
		return t[:n-1]
	case n > 6 && strings.HasSuffix(t, "is"):
		return t[:n-2]
	case n > 6 && strings.HasSuffix(t, "li") && !strings.ContainsRune("aeiouy", rune(t[n-3])):
		return t[:n-2] // an adverb: "correctli" (correctly) is "correct"
	case n > 6 && strings.HasSuffix(t, "abl"):
		return t[:n-3] // "readabl" (readable) is "read"
	}
	return t
}

// isCJK reports whether s is mostly Han, kana or Hangul.
func isCJK(s string) bool {
	cjk, other := 0, 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			cjk++
		case unicode.IsLetter(r):
			other++
		}
	}
	return cjk > other
}

// firstRune is the first rune of s, or 0.
func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return 0
	}
	return r
}
