package retrieve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/ibid-dev/ibid/rag/ingest/tokens"
)

// LongDoc is a retrieval test set over long documents (a 23-page paper,
// ibid's own docs), where relevance is judged by text rather than by
// segment id, so that one set scores every indexing strategy, whatever
// passages it cuts: a retrieved passage answers a question when it holds
// one of the question's snippets (Contains).
//
// Invariants (checked by ReadLongDoc): question ids are unique and not
// empty; every question names a document and holds 1 to MaxSnippets
// snippets, each MinSnippetRunes to MaxSnippetRunes runes long, none
// crossing a paragraph (no blank line inside), distinct after
// normalisation.
type LongDoc struct {
	Questions []LongDocQuestion
}

// LongDocQuestion is one question of a LongDoc: a line of its JSON Lines
// file, {"id", "doc", "question", "answers"}.
type LongDocQuestion struct {
	ID       string `json:"id"`
	Doc      string `json:"doc"` // a document name; see ResolveDoc
	Question string `json:"question"`
	// Answers are verbatim snippets of the document's extracted text
	// (ingest's Loaded.Text), each in one paragraph; a passage holding any
	// of them answers the question.
	Answers []string `json:"answers"`
	// After, for a follow-up, is the question asked just before it in the
	// same conversation ("And how is precision computed?" after "How is
	// citation recall computed?"); "" for a question asked on its own.
	After string `json:"after,omitempty"`
	// Added says why a question joined the set after its first 78 were
	// written ("answerer": for the extractive answerer's kinds of
	// question); "" for the first 78, the set the answerer's targets are
	// stated on.
	Added string `json:"added,omitempty"`
	// Line is the question's line in its file (1-based), for messages.
	Line int `json:"-"`
}

// The bounds ReadLongDoc holds snippets to.
const (
	MaxSnippets     = 3
	MinSnippetRunes = 30
	MaxSnippetRunes = 200
)

// ErrNoSharedData is returned (wrapped) by Docs when a document of the
// shared data folder is absent: tests turn it into a skip.
var ErrNoSharedData = errors.New("shared test data not found")

// ReadLongDoc reads a LongDoc from a JSON Lines file: one question a line;
// blank lines and lines starting with "#" are skipped. A malformed line,
// an unknown field, a missing field, a duplicate id or a snippet outside
// the bounds is an error naming the file and line.
func ReadLongDoc(path string) (*LongDoc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the long-document set: %w", err)
	}
	s := &LongDoc{}
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, err := parseQuestion(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if prev, ok := seen[q.ID]; ok {
			return nil, fmt.Errorf("%s:%d: id %q already used on line %d", path, n, q.ID, prev)
		}
		seen[q.ID] = n
		q.Line = n
		s.Questions = append(s.Questions, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	if len(s.Questions) == 0 {
		return nil, fmt.Errorf("%s: no questions", path)
	}
	return s, nil
}

// parseQuestion decodes and checks one line.
func parseQuestion(line string) (LongDocQuestion, error) {
	var q LongDocQuestion
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return q, fmt.Errorf("not a question object: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return q, errors.New("text after the question object")
	}
	switch {
	case strings.TrimSpace(q.ID) == "":
		return q, errors.New(`missing "id"`)
	case strings.TrimSpace(q.Doc) == "":
		return q, fmt.Errorf(`question %s: missing "doc"`, q.ID)
	case strings.TrimSpace(q.Question) == "":
		return q, fmt.Errorf(`question %s: missing "question"`, q.ID)
	case len(q.Answers) == 0 || len(q.Answers) > MaxSnippets:
		return q, fmt.Errorf(`question %s: has %d answer snippets, want 1 to %d`, q.ID, len(q.Answers), MaxSnippets)
	}
	norms := map[string]bool{}
	for i, a := range q.Answers {
		if n := utf8.RuneCountInString(a); n < MinSnippetRunes || n > MaxSnippetRunes {
			return q, fmt.Errorf("question %s: snippet %d is %d characters long, want %d to %d", q.ID, i+1, n, MinSnippetRunes, MaxSnippetRunes)
		}
		if crossesParagraph(a) {
			return q, fmt.Errorf("question %s: snippet %d crosses a paragraph (holds a blank line)", q.ID, i+1)
		}
		k := Normalize(a)
		if norms[k] {
			return q, fmt.Errorf("question %s: snippet %d repeats an earlier one", q.ID, i+1)
		}
		norms[k] = true
	}
	return q, nil
}

// crossesParagraph reports whether s holds a blank line: a line break,
// then only spaces or tabs, then another line break.
func crossesParagraph(s string) bool {
	for _, p := range strings.Split(s, "\n")[1:] {
		if strings.TrimRight(p, " \t\r") == "" {
			return true
		}
	}
	return false
}

// ResolveDoc is the path of the document a question names: a name with a
// slash ("docs/storage.md") is relative to setDir, the folder holding the
// set's questions (rag/retrieve/testdata/longdoc keeps a frozen copy of
// the docs it asks about there, so that edits to the live docs/ move no
// figure); a bare file name ("alce-gao2023-citations.pdf") is a file of
// the shared data's PDF folder, sharedDir/pdf (sharedDir is the shared
// data folder, ../shared/data from the repository's root).
func ResolveDoc(name, setDir, sharedDir string) string {
	if strings.Contains(name, "/") {
		return filepath.Join(setDir, filepath.FromSlash(name))
	}
	return filepath.Join(sharedDir, "pdf", name)
}

// Docs resolves the set's document names (ResolveDoc) to paths, once
// each, in order of first use, and checks that each is there. A missing
// shared document is an error wrapping ErrNoSharedData; a missing
// document of the set's own folder is an error of its own (the set no
// longer matches its snapshot).
func (s *LongDoc) Docs(setDir, sharedDir string) ([]string, error) {
	var paths []string
	seen := map[string]bool{}
	for _, q := range s.Questions {
		if seen[q.Doc] {
			continue
		}
		seen[q.Doc] = true
		p := ResolveDoc(q.Doc, setDir, sharedDir)
		if _, err := os.Stat(p); err != nil {
			if !strings.Contains(q.Doc, "/") && errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s (question %s)", ErrNoSharedData, p, q.ID)
			}
			return nil, fmt.Errorf("document %q of question %s: %w", q.Doc, q.ID, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// Normalize is the form in which passages and snippets are compared:
// NFKC, words hyphenated across a line break joined ("retrie-\nval"
// becomes "retrieval"; only before a lower-case letter, so "GPT-\n4" keeps
// its hyphen), lower case, a PDF table's cell separator "·" written as a
// Markdown table's "|" (an answer quotes a PDF table as Markdown), and
// every run of white space one space, with none at either end.
func Normalize(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false // a space is pending
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '-' && b.Len() > 0 && !space {
			if j, ok := hyphenBreak(s, i+size); ok && lastIsLetter(b.String()) {
				i = j
				continue
			}
		}
		i += size
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if r == '·' {
			r = '|'
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// hyphenBreak reports whether s[i:] (just after a hyphen) is a line break,
// possibly with spaces around it, then a lower-case letter; j is where
// that letter starts.
func hyphenBreak(s string, i int) (j int, ok bool) {
	j = i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j < len(s) && s[j] == '\r' {
		j++
	}
	if j >= len(s) || s[j] != '\n' {
		return 0, false
	}
	j++
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return j, unicode.IsLower(r)
}

func lastIsLetter(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLetter(r)
}

// EvidenceRun is how much of a snippet an answer must quote to count as
// quoting it: a run of at least this many characters (runes) of the
// normalised snippet, or the whole snippet when it is shorter.
const EvidenceRun = 40

// Quotes reports whether answer (an answer's text, references left out)
// quotes one of the question's snippets: holds, normalised (Normalize),
// a run of EvidenceRun characters of one normalised snippet, or all of a
// shorter one.
func (q LongDocQuestion) Quotes(answer string) bool {
	na := Normalize(answer)
	for _, a := range q.Answers {
		sn := []rune(Normalize(a))
		if len(sn) <= EvidenceRun {
			if len(sn) > 0 && strings.Contains(na, string(sn)) {
				return true
			}
			continue
		}
		for i := 0; i+EvidenceRun <= len(sn); i++ {
			if strings.Contains(na, string(sn[i:i+EvidenceRun])) {
				return true
			}
		}
	}
	return false
}

// Contains reports whether passage holds snippet, both normalised
// (Normalize). An empty snippet is in no passage.
func Contains(passage, snippet string) bool {
	sn := Normalize(snippet)
	return sn != "" && strings.Contains(Normalize(passage), sn)
}

// LongDocScore is how one ranking did on one question.
type LongDocScore struct {
	Recall5, Recall20 float64 // share of the snippets found in the top 5, top 20
	NDCG10            float64
	Tokens5           int // tokens (cl100k_base) of the top-5 passages together
	Passages5         int // how many passages the top 5 holds (fewer when fewer came back)
}

// Score scores ranked, a question's retrieved passages best first (each
// as the model reads it), against the question's snippets.
//
// Recall@k is the share of the snippets held by at least one of the top k
// passages. nDCG@10 has binary gains: the passage at rank i gains 1 when
// it holds a snippet that no earlier passage held (all the snippets it
// holds are then credited), discounted by 1/log2(i+1); the ideal is
// min(#snippets, 10) gains at ranks 1, 2, …. So a passage holding two
// snippets gains 1, not 2: a question whose snippets one passage holds
// together scores below 1 however it is ranked (its recall is whole).
func (q LongDocQuestion) Score(ranked []string) LongDocScore {
	snips := make([]string, len(q.Answers))
	for i, a := range q.Answers {
		snips[i] = Normalize(a)
	}
	var sc LongDocScore
	credited := make([]bool, len(snips))
	found := 0
	dcg := 0.0
	for i, p := range ranked {
		if i >= 20 {
			break
		}
		if i < 5 {
			sc.Tokens5 += tokens.Count(p)
			sc.Passages5++
		}
		np := Normalize(p)
		gain := false
		for j, s := range snips {
			if !credited[j] && strings.Contains(np, s) {
				credited[j] = true
				found++
				gain = true
			}
		}
		if gain && i < 10 {
			dcg += 1 / math.Log2(float64(i+2))
		}
		if i == 4 {
			sc.Recall5 = float64(found) / float64(len(snips))
		}
	}
	if len(ranked) < 5 {
		sc.Recall5 = float64(found) / float64(len(snips))
	}
	sc.Recall20 = float64(found) / float64(len(snips))
	ideal := 0.0
	for i := range min(len(snips), 10) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	sc.NDCG10 = dcg / ideal
	return sc
}

// LongDocMetrics is how a strategy did on a whole LongDoc.
type LongDocMetrics struct {
	Questions int     // questions scored: all of the set's
	Missing   int     // questions with no ranking in the results (scored as empty)
	Recall5   float64 // Recall@5, averaged over the questions
	Recall20  float64 // Recall@20, averaged over the questions
	NDCG10    float64 // nDCG@10, averaged over the questions
	// MeanTokens5 is the mean length in tokens (cl100k_base) of the
	// passages in the top 5, over all questions' top-5 passages together:
	// it shows a strategy that wins by returning longer passages.
	MeanTokens5 float64
}

// String is the metrics on one line, for logs and tables.
func (m LongDocMetrics) String() string {
	return fmt.Sprintf("questions %d (missing %d)  Recall@5 %.3f  Recall@20 %.3f  nDCG@10 %.3f  mean tokens@5 %.0f",
		m.Questions, m.Missing, m.Recall5, m.Recall20, m.NDCG10, m.MeanTokens5)
}

// Score scores results, question id → that question's retrieved
// passages best first (each passage's text as the model reads it), over
// every question of the set; a question without a ranking scores 0. Ids
// that are not the set's are ignored.
func (s *LongDoc) Score(results map[string][]string) LongDocMetrics {
	var m LongDocMetrics
	tokens, passages := 0, 0
	for _, q := range s.Questions {
		ranked, ok := results[q.ID]
		if !ok {
			m.Missing++
		}
		sc := q.Score(ranked)
		m.Recall5 += sc.Recall5
		m.Recall20 += sc.Recall20
		m.NDCG10 += sc.NDCG10
		tokens += sc.Tokens5
		passages += sc.Passages5
	}
	m.Questions = len(s.Questions)
	if m.Questions > 0 {
		n := float64(m.Questions)
		m.Recall5 /= n
		m.Recall20 /= n
		m.NDCG10 /= n
	}
	if passages > 0 {
		m.MeanTokens5 = float64(tokens) / float64(passages)
	}
	return m
}
