package extractive_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/extractive"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/retrieve"
)

// TestStudyLongDoc prints, for each question of the long-document set
// that the answer misses, why (IBID_ANSWERS_STUDY=store folder).
func TestStudyLongDoc(t *testing.T) {
	dir := os.Getenv("IBID_ANSWERS_STUDY")
	if dir == "" {
		t.Skip("IBID_ANSWERS_STUDY=/tmp/folder runs the study")
	}
	ctx := context.Background()
	setDir := "../retrieve/testdata/longdoc"
	set, err := retrieve.ReadLongDoc(filepath.Join(setDir, "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fu, err := retrieve.ReadLongDoc(filepath.Join(setDir, "followups.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(ctx, library.Options{Name: "longdoc", Store: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if n, _ := lib.Len(ctx); n == 0 {
		paths, err := set.Docs(setDir, shareddata.Path(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lib.AddWith(ctx, paths, library.AddOptions{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var info extractive.TraceInfo
	extractive.SetTrace(func(in extractive.TraceInfo) { info = in })
	defer extractive.SetTrace(nil)
	var opt rag.PipelineOptions
	fmt.Sscan(os.Getenv("IBID_STUDY_K"), &opt.K)
	fmt.Sscan(os.Getenv("IBID_STUDY_NEIGHBOURS"), &opt.Neighbours)
	p := rag.NewPipeline(lib, rag.ExtractiveAnswerer(), opt)
	ask := func(conv *rag.Conversation, q string) string {
		info = extractive.TraceInfo{}
		var b strings.Builder
		if err := p.Answer(ctx, conv, q, func(e rag.Event) {
			if e.Type == rag.EventText {
				b.WriteString(e.Text)
			}
		}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	only := os.Getenv("IBID_STUDY_ONLY")
	verbose := os.Getenv("IBID_STUDY_VERBOSE") != ""
	type tally struct{ n, hit, dec int }
	var first, all, fol tally
	byDoc := map[string]*tally{}
	var groups []string
	group := func(doc string) string {
		if strings.HasPrefix(doc, "docs/") {
			return "ibid docs"
		}
		return doc
	}
	report := func(q retrieve.LongDocQuestion, a string) bool {
		hit := q.Quotes(a)
		dec := strings.HasPrefix(a, rag.DeclineText)
		if hit && !verbose {
			return true
		}
		fmt.Printf("\n=== %s [%s] %q  hit=%v declined=%v\n", q.ID, info.Kind, q.Question, hit, dec)
		fmt.Printf("  terms: %v %.2f focus %v\n", info.Terms, info.Weights, info.Focus)
		for _, e := range q.Answers {
			fmt.Printf("  evidence: %q\n", e)
		}
		// Where the evidence is among the passages read.
		pos := -1
		leaders := 0
		for i, w := range info.Windows {
			if info.Absorbed[i] {
				continue
			}
			for _, e := range q.Answers {
				if retrieve.Contains(w, e) && pos < 0 {
					pos = leaders
				}
			}
			leaders++
		}
		deep := -1
		ps, _ := lib.Search(ctx, q.Question, retrieve.Options{K: 20})
		for i, pp := range ps {
			for _, e := range q.Answers {
				if deep < 0 && retrieve.Contains(retrieve.WindowText(pp), e) {
					deep = i
				}
			}
		}
		fmt.Printf("  evidence passage: %d of %d read (-1 none); in top-20 search at %d\n", pos, leaders, deep)
		for _, qt := range info.Quotes {
			fmt.Printf("  QUOTED: %.200s\n", qt)
		}
		for i, c := range info.Cands {
			ev := false
			for _, e := range q.Answers {
				if (retrieve.LongDocQuestion{Answers: []string{e}}).Quotes(c.Text) {
					ev = true
				}
			}
			if g := os.Getenv("IBID_STUDY_GREP"); g != "" && strings.Contains(c.Text, g) {
				ev = true
			}
			if i < 3 || ev {
				mark := "   "
				if ev {
					mark = "EV "
				}
				fmt.Printf("  %s#%d p%d %.150q\n        %s\n", mark, i, c.Rank, c.Text, strings.Join(c.Why, "; "))
			}
		}
		return hit
	}
	for _, q := range set.Questions {
		if only != "" && !strings.Contains(" "+only+" ", " "+q.ID+" ") {
			continue
		}
		a := ask(rag.NewConversation("study"), q.Question)
		hit := report(q, a)
		dec := strings.HasPrefix(a, rag.DeclineText)
		g := group(q.Doc)
		if byDoc[g] == nil {
			byDoc[g] = &tally{}
			groups = append(groups, g)
		}
		for _, tl := range []*tally{&all, &first, byDoc[g]} {
			if tl == byDoc[g] && q.Added != "" {
				continue
			}
			if tl == &first && q.Added != "" {
				continue
			}
			tl.n++
			if hit {
				tl.hit++
			}
			if dec {
				tl.dec++
			}
		}
	}
	for _, q := range fu.Questions {
		if only != "" && !strings.Contains(" "+only+" ", " "+q.ID+" ") {
			continue
		}
		conv := rag.NewConversation("study")
		ask(conv, q.After)
		a := ask(conv, q.Question)
		fol.n++
		if report(q, a) {
			fol.hit++
		}
		if strings.HasPrefix(a, rag.DeclineText) {
			fol.dec++
		}
	}
	f := func(t tally) string {
		return fmt.Sprintf("%.3f (%d/%d) declined %d", float64(t.hit)/float64(max(1, t.n)), t.hit, t.n, t.dec)
	}
	fmt.Printf("\nFIRST78 %s\nALL96 %s\nFOLLOWUPS %s\n", f(first), f(all), f(fol))
	for _, g := range groups {
		fmt.Printf("FIRST78 of %s: %s\n", g, f(*byDoc[g]))
	}
}
