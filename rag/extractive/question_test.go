package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store/keyword"
)

func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		q    string
		want Kind
	}{
		{"How is citation recall computed?", KindDefinition},
		{"What is a citation token?", KindDefinition},
		{"What does MAUVE measure?", KindDefinition},
		{"What datasets does ALCE use?", KindList},
		{"Which TeX engines can compile this template?", KindList},
		{"How many examples per dataset did they keep?", KindNumber},
		{"How long is an ELI5 answer on average?", KindNumber},
		// A superlative of size asks for a limit.
		{"What's the biggest PDF I can add?", KindNumber},
		{"What is the longest answer it writes?", KindNumber},
		{"What is the most important finding?", KindDefinition},
		{"At what library size does the vector index get built?", KindNumber},
		{"Does ALCE come with training data?", KindYesNo},
		{"Why not?", KindReason},
		{"How do I compile ElegantPaper?", KindHowTo},
		{"参考文献的引用格式有哪几种选项？", KindList},
		{"英文模式下为什么不能输入中文？", KindReason},
		{"Bees and flowers", KindGeneral},
		// A question that asks two things wants the number its last
		// clause asks for when the first asks for nothing in particular.
		{"Which server errors make ibid try the request again, and how often?", KindNumber},
		{"How good is the approximate search's recall, and what setting matters?", KindNumber},
		{"Where is a conversation stored, and how do I pick up the last one again?", KindGeneral},
		{"Which folders are searched, and how many?", KindList},
		// A leading phrase sets the scene; the question proper decides.
		{"In the interactive method, how many documents may the model open at a time?", KindNumber},
		{"By how much does summarising the passages shrink them?", KindNumber},
		{"On QAMPARI, what recall-5 do the oracle's top 5 passages give?", KindNumber},
		// A verb that ends in s is no plural.
		{"What model decides whether the cited passages back up a sentence?", KindGeneral},
		{"Which folders are searched for image files?", KindList},
		// "What if" asks what happens, not which things.
		{"What if the power goes out while I'm adding papers?", KindCondition},
		{"What happens when the server goes silent?", KindCondition},
		{"How does the recall of the baseline compare with the plain approach?", KindCompare},
		{"Is BM25 better than GTR on ELI5?", KindCompare},
		{"What's the main limitation of attaching citations after generating the answer?", KindLimit},

		// A subject this long describes rather than names: here, a limit.
		{"What is the known blind spot of the automatic precision score when a source only partly backs a claim?", KindLimit},
		{"What is the known effect of the automatic precision score when a source only partly backs a claim?", KindGeneral},
	} {
		if got := kindOf(c.q); got != c.want {
			t.Errorf("kindOf(%q) = %s, want %s", c.q, got, c.want)
		}
	}
}

func TestQuestionSubject(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"How is citation recall computed?", analyse("citation recall")},
		{"What is a citation token?", analyse("citation token")},
		{"Which instruction-tuned LLaMA models were tried?", analyse("models")},
		{"How long can a citation token be before it is treated as plain text?", analyse("citation token")},
	} {
		qu := newQuestion(c.q, nil)
		var got []string
		for i, t := range qu.terms {
			if qu.focus[i] {
				got = append(got, t)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: subject %q, want %q", c.q, got, c.want)
		}
	}
}

// TestAnalyse: the forms stemming keeps apart meet, alike in questions
// and passages.
func TestAnalyse(t *testing.T) {
	for _, pair := range [][2]string{
		{"paid", "pay"}, {"computed", "calculated"}, {"accuracy", "accurate"},
		{"fluency", "fluent"}, {"summarising", "summarize"}, {"chosen", "choose"},
		{"correctly", "correct"}, {"fluently", "fluency"}, {"readable", "reads"}, {"comparable", "compare"},
	} {
		a, b := analyse(pair[0]), analyse(pair[1])
		if !slices.Equal(a, b) || len(a) == 0 {
			t.Errorf("analyse(%q) = %q, analyse(%q) = %q: want the same", pair[0], a, pair[1], b)
		}
	}
	if slices.Equal(analyse("precision"), analyse("recall")) {
		t.Error("analyse merges precision and recall")
	}
}

// TestQuestionTermsMeasure: "how long" asks for a measure; "long" is a
// content term elsewhere.
func TestQuestionTermsMeasure(t *testing.T) {
	if got := questionTerms("How long is an ELI5 answer?"); slices.Contains(got, "long") {
		t.Errorf("terms %q hold the measure word", got)
	}
	if got := questionTerms("Which answers are long?"); !slices.Contains(got, "long") {
		t.Errorf("terms %q lack a content word", got)
	}
}

func TestResolve(t *testing.T) {
	for _, c := range []struct {
		q       string
		earlier []string
		carried string
	}{
		{"And how is precision computed?", []string{"How is citation recall computed?"}, "citation recall"},
		{"Why not?", []string{"Does ALCE come with training data?"}, "ALCE come training data"},
		{"What about Chinese fonts?", []string{"Which TeX engines can compile ElegantPaper?"}, "TeX engines compile ElegantPaper"},
		{"How long can it be?", []string{"What is a citation token?"}, "citation token"},
		// A question that stands alone carries nothing.
		{"What is MAUVE?", []string{"How is citation recall computed?"}, ""},
		{"Which folders are searched for image files?", []string{"How is citation recall computed?"}, ""},
		{"And how is precision computed?", nil, ""},
		// A follow-up of a follow-up carries on what was carried.
		{"Why?", []string{"How is citation recall computed?", "And precision?"}, "precision citation recall computed"},
	} {
		r := Resolve(c.q, c.earlier)
		if got := strings.Join(r.Carried, " "); got != c.carried {
			t.Errorf("Resolve(%q, %q) carried %q, want %q", c.q, c.earlier, got, c.carried)
		}
		if c.carried == "" && r.Query != c.q || c.carried != "" && r.Query != c.q+" "+c.carried {
			t.Errorf("Resolve(%q) query %q", c.q, r.Query)
		}
	}
	// Retrieval searches for an irregular verb's base form too, as the
	// answerer compares it: "paid" finds "The average pay …".
	if r := Resolve("How much were the annotators paid?", nil); r.Query != "How much were the annotators paid? pai" || len(r.Carried) != 0 {
		t.Errorf("query %q, carried %q", r.Query, r.Carried)
	}
	if got := keyword.Tokenize("The average pay to workers"); !slices.Contains(got, "pai") {
		t.Errorf("the base form is not as keyword search analyses pay: %q", got)
	}
}

func TestListItems(t *testing.T) {
	qu := newQuestion("What datasets does ALCE use?", nil)
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"We build ALCE on three datasets: ASQA, QAMPARI, and ELI5.", true},
		{"We also explore several models, including Alpaca-7B (Taori et al., 2023), Vicuna-13B (Chiang et al., 2023), and Oasst-33B (Köpf et al., 2023).", true},
		{"本模板还添加了 cite=numbers 、cite=super 和 cite=authoryear 三个参考文献选项。", true},
		{"此模板使用 BIBTEX 来生成参考文献，默认使用的文献样式是 GB/T 7714-2015。", false},
		{"The datasets are hard for current systems.", false},
	} {
		c2 := &cand{text: c.s}
		if got := listItems(qu, c2); got != c.want {
			t.Errorf("listItems(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

func TestHasNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"We divide the corpus into 100-word passages.":     true,
		"It calls the retriever once per question.":        true,
		"Text that cannot begin a token is shown at once.": false,
		"Most ELI5 questions ask how or why.":              false,
		"GPT-4 and recall-5 are names.":                    false,
		"As Gao et al. (2023) show in Table 3.":            false,
		"The loss falls by -3 points.":                     true,
	} {
		if got := hasNumber(&cand{text: s}); got != want {
			t.Errorf("hasNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

// Words that only stress ("actually", "simply") are no content terms.
func TestQuestionTermsFiller(t *testing.T) {
	got := questionTerms("What citation scores does simply returning the top passage actually get?")
	for _, w := range []string{"simpli", "actual"} {
		if slices.Contains(got, w) {
			t.Errorf("terms %q hold %q", got, w)
		}
	}
	if !slices.Contains(got, "citat") {
		t.Errorf("terms %q lack a content word", got)
	}
}

// A verb done again meets its "re-" form, in the answerer's terms and in
// what retrieval searches for: "try the request again" finds "retried".
func TestQuestionTermsAgain(t *testing.T) {
	for q, want := range map[string]string{
		"Which errors make ibid try the request again?": "retri",
		"Must I index the library again?":               "reindex",
		"Can I embed them again later?":                 "reemb",
	} {
		if got := questionTerms(q); !slices.Contains(got, want) {
			t.Errorf("questionTerms(%q) = %q, want %q among them", q, got, want)
		}
	}
	if got := questionTerms("What happens to the index?"); slices.ContainsFunc(got, func(t string) bool { return strings.HasPrefix(t, "re") && t != "index" }) {
		t.Errorf("no again, no re- form: %q", got)
	}
	if r := Resolve("Which errors make ibid try the request again?", nil); !strings.Contains(r.Query, "retry") {
		t.Errorf("query %q does not search for retry", r.Query)
	}
}
