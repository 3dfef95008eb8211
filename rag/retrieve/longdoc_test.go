package retrieve

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
)

// The long-document set and its folder (which holds its docs snapshot),
// from this package's folder.
var (
	longDocFile      = filepath.Join("testdata", "longdoc", "questions.jsonl")
	longDocFollowups = filepath.Join("testdata", "longdoc", "followups.jsonl")
	longDocDir       = filepath.Join("testdata", "longdoc")
	// heldOutDir holds the held-out questions on docs the set does not
	// use, never tuned on (its README).
	heldOutDir = filepath.Join("testdata", "longdoc-heldout")
)

func readLongDocSet(t *testing.T) *LongDoc {
	t.Helper()
	s, err := ReadLongDoc(longDocFile)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLongDocSet checks the set's shape: enough questions, unique ids,
// every document one the set is meant to use, and each kind represented.
func TestLongDocSet(t *testing.T) {
	s := readLongDocSet(t)
	if len(s.Questions) < 40 {
		t.Fatalf("%d questions, want at least 40", len(s.Questions))
	}
	allowed := map[string]bool{
		"alce-gao2023-citations.pdf": true, "elegantpaper-en.pdf": true, "elegantpaper-cn.pdf": true,
		"docs/citations.md": true, "docs/formats.md": true, "docs/storage.md": true,
		"docs/tui.md": true, "docs/answers.md": true, "docs/postgres.md": true,
	}
	ids := map[string]bool{}
	perDoc := map[string]int{}
	multi := 0
	for _, q := range s.Questions {
		if ids[q.ID] {
			t.Errorf("id %s twice", q.ID)
		}
		ids[q.ID] = true
		if !allowed[q.Doc] {
			t.Errorf("%s: document %q is not one of the set's", q.ID, q.Doc)
		}
		perDoc[q.Doc]++
		if len(q.Answers) > 1 {
			multi++
		}
		if q.Line == 0 {
			t.Errorf("%s: no line number", q.ID)
		}
	}
	if perDoc["alce-gao2023-citations.pdf"] < 20 || perDoc["elegantpaper-en.pdf"]+perDoc["elegantpaper-cn.pdf"] < 5 {
		t.Errorf("questions per document %v: want ≥ 20 on ALCE and ≥ 5 on ElegantPaper", perDoc)
	}
	docs := 0
	for d, n := range perDoc {
		if strings.HasPrefix(d, "docs/") {
			docs += n
		}
	}
	if docs < 20 {
		t.Errorf("%d questions on docs/, want ≥ 20", docs)
	}
	if multi < 10 {
		t.Errorf("%d questions with several snippets, want ≥ 10 (answers spread over passages)", multi)
	}
}

// paragraphBreak is a blank line: where a snippet may not cross.
var paragraphBreak = regexp.MustCompile(`\n[ \t]*\n`)

// TestLongDocSnippetsInText loads every document of the set with ingest's
// loader and finds each snippet, normalised, inside one paragraph of the
// extracted text: drift in extraction or in the docs is caught here. The
// shared PDFs are skipped when ../shared is absent.
func TestLongDocSnippetsInText(t *testing.T) {
	s := readLongDocSet(t)
	fu, err := ReadLongDoc(longDocFollowups)
	if err != nil {
		t.Fatal(err)
	}
	s.Questions = append(s.Questions, fu.Questions...)
	snippetsInText(t, s, longDocDir)
}

// TestHeldOutSet checks the held-out set as the long-document set is
// checked: its shape (documents of its own snapshot only, none of the
// long-document set's) and every snippet in its document's text.
func TestHeldOutSet(t *testing.T) {
	s, err := ReadLongDoc(filepath.Join(heldOutDir, "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Questions) < 12 {
		t.Fatalf("%d held-out questions, want at least 12", len(s.Questions))
	}
	used := map[string]bool{}
	for _, q := range readLongDocSet(t).Questions {
		used[filepath.Base(q.Doc)] = true
	}
	for _, q := range s.Questions {
		if !strings.HasPrefix(q.Doc, "docs/") || used[filepath.Base(q.Doc)] {
			t.Errorf("%s: document %q is not a held-out page (one of docs/, none of the long-document set's)", q.ID, q.Doc)
		}
	}
	snippetsInText(t, s, heldOutDir)
}

// snippetsInText finds each snippet of s, normalised, inside one
// paragraph of its document's extracted text (documents resolved from
// setDir).
func snippetsInText(t *testing.T, s *LongDoc, setDir string) {
	byDoc := map[string][]LongDocQuestion{}
	var order []string
	for _, q := range s.Questions {
		if byDoc[q.Doc] == nil {
			order = append(order, q.Doc)
		}
		byDoc[q.Doc] = append(byDoc[q.Doc], q)
	}
	loader := ingest.NewLoader(filepath.Join(os.TempDir(), "ibid-ingest-test-wazero"))
	defer loader.Close()
	for _, doc := range order {
		t.Run(doc, func(t *testing.T) {
			path := ResolveDoc(doc, setDir, shareddata.Dir())
			if _, err := os.Stat(path); err != nil {
				if !strings.Contains(doc, "/") {
					t.Skipf("shared data absent: %v", err)
				}
				t.Fatal(err)
			}
			l, err := loader.Load(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			var paras []string
			for _, p := range paragraphBreak.Split(l.Text, -1) {
				paras = append(paras, Normalize(p))
			}
			for _, q := range byDoc[doc] {
				for i, a := range q.Answers {
					sn := Normalize(a)
					found := false
					for _, p := range paras {
						if strings.Contains(p, sn) {
							found = true
							break
						}
					}
					if !found {
						where := "in no paragraph"
						if !strings.Contains(Normalize(l.Text), sn) {
							where = "nowhere in the text"
						}
						t.Errorf("%s (line %d) snippet %d is %s: %q", q.ID, q.Line, i+1, where, a)
					}
				}
			}
		})
	}
}

// TestLongDocDocs resolves names and turns missing shared data into the
// sentinel, a missing document of the set's folder into another error.
func TestLongDocDocs(t *testing.T) {
	setDir, shared := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(setDir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(setDir, "docs", "a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := &LongDoc{Questions: []LongDocQuestion{
		{ID: "1", Doc: "docs/a.md"}, {ID: "2", Doc: "p.pdf"}, {ID: "3", Doc: "docs/a.md"},
	}}
	if _, err := set.Docs(setDir, shared); !errors.Is(err, ErrNoSharedData) {
		t.Fatalf("shared PDF absent: err %v, want ErrNoSharedData", err)
	}
	if err := os.MkdirAll(filepath.Join(shared, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "pdf", "p.pdf"), []byte("%PDF-"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := set.Docs(setDir, shared)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(setDir, "docs", "a.md"), filepath.Join(shared, "pdf", "p.pdf")}
	if strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Errorf("Docs = %q, want %q", paths, want)
	}
	set.Questions = append(set.Questions, LongDocQuestion{ID: "4", Doc: "docs/gone.md"})
	if _, err := set.Docs(setDir, shared); err == nil || errors.Is(err, ErrNoSharedData) || !strings.Contains(err.Error(), "docs/gone.md") {
		t.Errorf("missing snapshot document: err %v, want an error naming it, not ErrNoSharedData", err)
	}
}

// TestReadLongDocErrors checks that bad lines are refused with their line
// number and what is wrong.
func TestReadLongDocErrors(t *testing.T) {
	const good = `{"id":"a-1","doc":"docs/x.md","question":"What?","answers":["a snippet of at least thirty characters"]}`
	cases := []struct {
		name, body, want string
	}{
		{"not json", "# comment\n\n{nope\n", ":3: not a question object"},
		{"unknown field", `{"id":"a","doc":"d/x","question":"q","answer":["a snippet of at least thirty characters"]}`, `:1: not a question object: json: unknown field "answer"`},
		{"trailing text", good + ` {}`, ":1: text after"},
		{"no id", `{"doc":"d/x","question":"q","answers":["a snippet of at least thirty characters"]}`, `:1: missing "id"`},
		{"no doc", `{"id":"a","question":"q","answers":["a snippet of at least thirty characters"]}`, `:1: question a: missing "doc"`},
		{"no question", `{"id":"a","doc":"d/x","answers":["a snippet of at least thirty characters"]}`, `:1: question a: missing "question"`},
		{"no answers", `{"id":"a","doc":"d/x","question":"q","answers":[]}`, "has 0 answer snippets, want 1 to 3"},
		{"four answers", `{"id":"a","doc":"d/x","question":"q","answers":["1 a snippet of at least thirty characters","2 a snippet of at least thirty characters","3 a snippet of at least thirty characters","4 a snippet of at least thirty characters"]}`, "has 4 answer snippets"},
		{"short", `{"id":"a","doc":"d/x","question":"q","answers":["too short"]}`, "snippet 1 is 9 characters long, want 30 to 200"},
		{"long", `{"id":"a","doc":"d/x","question":"q","answers":["` + strings.Repeat("x", 201) + `"]}`, "snippet 1 is 201 characters long"},
		{"paragraph", `{"id":"a","doc":"d/x","question":"q","answers":["one paragraph ends here.\n \nanother begins here"]}`, "snippet 1 crosses a paragraph"},
		{"repeat", `{"id":"a","doc":"d/x","question":"q","answers":["a snippet of at least thirty characters","A  snippet of at least\nthirty characters"]}`, "snippet 2 repeats"},
		{"duplicate id", good + "\n" + good, `:2: id "a-1" already used on line 1`},
		{"empty", "# only a comment\n", "no questions"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "q.jsonl")
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadLongDoc(path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want it to contain %q", err, c.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(path, []byte("# a comment\n\n"+good+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadLongDoc(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Questions) != 1 || s.Questions[0].Line != 3 || s.Questions[0].Doc != "docs/x.md" {
		t.Errorf("read %+v", s.Questions)
	}
	if _, err := ReadLongDoc(filepath.Join(t.TempDir(), "none.jsonl")); err == nil {
		t.Error("a missing file read without error")
	}
}

func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"  Hello,\n\tWorld  ", "hello, world"},
		{"retrie-\nval works", "retrieval works"},
		{"retrie- \n  val", "retrieval"},
		{"GPT-\n4 and Self-\nRAG", "gpt- 4 and self- rag"}, // not before a lower-case letter
		{"well-known", "well-known"},
		{"a -\nb", "a - b"},              // no letter before the hyphen
		{"ﬁnd the ﬂow", "find the flow"}, // ligatures (NFKC)
		{"４,096 ＡＢＣ", "4,096 abc"},       // full width (NFKC)
		{"46 µs", "46 μs"},               // micro sign → mu (NFKC)
		{"a\u00a0b", "a b"},              // no-break space
		{"", ""},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if !Contains("The model reaches 56.8%\non the TEST set.", "reaches 56.8% on the test set") {
		t.Error("Contains missed a snippet across a line break and a case change")
	}
	if Contains("anything", "") || Contains("anything", " \n ") {
		t.Error("an empty snippet was found")
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestLongDocScoreQuestion scores hand-made rankings of one question.
func TestLongDocScoreQuestion(t *testing.T) {
	q := LongDocQuestion{ID: "q", Answers: []string{
		"the first snippet, thirty characters",
		"the second snippet sits elsewhere",
	}}
	const (
		a    = "Intro. The first snippet, thirty\ncharacters long. More."
		b    = "Later: the SECOND snippet sits elsewhere, in another section."
		both = "the first snippet, thirty characters and the second snippet sits elsewhere"
		none = "nothing relevant here at all"
	)
	// log2 discounts: rank 1 → 1, rank 2 → 1/log2(3), rank 3 → 1/2, …
	d := func(rank int) float64 { return 1 / math.Log2(float64(rank+1)) }
	ideal2 := d(1) + d(2)
	cases := []struct {
		name              string
		ranked            []string
		recall5, recall20 float64
		ndcg              float64
		passages5         int
	}{
		{"perfect", []string{a, b, none}, 1, 1, 1, 3},
		{"reversed", []string{b, a}, 1, 1, 1, 2},
		{"late", []string{none, none, a, none, none, none, b}, 0.5, 1, (d(3) + d(7)) / ideal2, 5},
		{"one only", []string{none, a}, 0.5, 0.5, d(2) / ideal2, 2},
		{"duplicates gain once", []string{a, a, a}, 0.5, 0.5, d(1) / ideal2, 3},
		// One passage holding both snippets: gains 1 (binary), credits both.
		{"two in one", []string{both, a, b}, 1, 1, d(1) / ideal2, 3},
		{"two in one, late", []string{none, both}, 1, 1, d(2) / ideal2, 2},
		{"beyond 10 counts for recall@20 only", append(repeat(none, 10), a, b), 0, 1, 0, 5},
		{"beyond 20 counts for nothing", append(repeat(none, 20), a, b), 0, 0, 0, 5},
		{"empty", nil, 0, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := q.Score(c.ranked)
			if !near(sc.Recall5, c.recall5) || !near(sc.Recall20, c.recall20) || !near(sc.NDCG10, c.ndcg) || sc.Passages5 != c.passages5 {
				t.Errorf("Score = %+v, want recall@5 %v, recall@20 %v, nDCG@10 %.4f, %d passages in the top 5",
					sc, c.recall5, c.recall20, c.ndcg, c.passages5)
			}
			want := 0
			for _, p := range c.ranked[:min(5, len(c.ranked))] {
				want += tokens.Count(p)
			}
			if sc.Tokens5 != want {
				t.Errorf("Tokens5 = %d, want %d", sc.Tokens5, want)
			}
		})
	}
	// More than ten snippets would be refused by ReadLongDoc; the ideal
	// still stops at ten.
	one := LongDocQuestion{Answers: []string{"a single snippet of thirty chars"}}
	if sc := one.Score([]string{none, "A single snippet of thirty chars."}); !near(sc.NDCG10, d(2)) {
		t.Errorf("one snippet at rank 2: nDCG %v, want %v", sc.NDCG10, d(2))
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestLongDocScore averages over the set: a question without results
// scores 0 and is counted as missing, foreign ids are ignored, and the
// mean length is over all top-5 passages together.
func TestLongDocScore(t *testing.T) {
	set := &LongDoc{Questions: []LongDocQuestion{
		{ID: "x", Answers: []string{"the answer to x is somewhere here"}},
		{ID: "y", Answers: []string{"the answer to y is in two places", "and its second half is elsewhere"}},
		{ID: "z", Answers: []string{"no strategy will ever find this one"}},
	}}
	px := "Yes: the answer to x is somewhere here."
	py1 := "the answer to y is in two places"
	py2 := "filler"
	py3 := "And its second half is elsewhere, of course."
	m := set.Score(map[string][]string{
		"x":     {px},
		"y":     {py1, py2, py3},
		"other": {"ignored entirely"},
	})
	d3 := 1 / math.Log2(4)
	ndcgY := (1 + d3) / (1 + 1/math.Log2(3))
	if m.Questions != 3 || m.Missing != 1 {
		t.Errorf("questions %d, missing %d; want 3, 1", m.Questions, m.Missing)
	}
	if !near(m.Recall5, 2.0/3) || !near(m.Recall20, 2.0/3) || !near(m.NDCG10, (1+ndcgY)/3) {
		t.Errorf("metrics %v: want recall %.4f, nDCG %.4f", m, 2.0/3, (1+ndcgY)/3)
	}
	total := 0
	for _, p := range []string{px, py1, py2, py3} {
		total += tokens.Count(p)
	}
	if !near(m.MeanTokens5, float64(total)/4) {
		t.Errorf("mean tokens@5 %v, want %v", m.MeanTokens5, float64(total)/4)
	}
	if s := m.String(); !strings.Contains(s, "Recall@5 0.667") || !strings.Contains(s, "missing 1") {
		t.Errorf("String() = %q", s)
	}
	if m := set.Score(nil); m.Missing != 3 || m.Recall5 != 0 || m.MeanTokens5 != 0 {
		t.Errorf("no results: %v", m)
	}
}

// TestLongDocQuotes: an answer quotes a snippet when it holds 40 of its
// normalised characters in a row (or all of a shorter one), whatever its
// case, spacing and line breaks; a run of 39 is not enough.
func TestLongDocQuotes(t *testing.T) {
	q := LongDocQuestion{Answers: []string{
		"We randomly select 1,000 examples from the development set of each dataset for ALCE.",
		"with an average answer length of 131 words",
	}}
	run := Normalize(q.Answers[0])[10:50]
	for _, c := range []struct {
		answer string
		want   bool
	}{
		{"They write: we RANDOMLY select 1,000 examples from the\ndevelopment set. [1]", true},
		{"…" + run + "…", true},
		{"…" + run[:39] + "…", false},
		{"ELI5, with an average answer length of 131 words, is long.", true},
		{"an average answer length of 131 words", false}, // 37 of 42
		{"", false},
	} {
		if got := q.Quotes(c.answer); got != c.want {
			t.Errorf("Quotes(%q) = %v, want %v", c.answer, got, c.want)
		}
	}
}

// TestLongDocFollowups checks the follow-up pairs' shape: each names the
// question asked before it, and its snippets are found as the set's are
// (TestLongDocSnippetsInText reads both files).
func TestLongDocFollowups(t *testing.T) {
	s, err := ReadLongDoc(longDocFollowups)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Questions) < 8 {
		t.Errorf("%d follow-up pairs, want at least 8", len(s.Questions))
	}
	for _, q := range s.Questions {
		if strings.TrimSpace(q.After) == "" || q.After == q.Question {
			t.Errorf("%s: a follow-up needs the question asked before it", q.ID)
		}
	}
}
