package cli

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
)

// longDocFigures are ibid eval --bm25-only --strategy S on the
// long-document set, as docs/indexing.md reports them: Recall@5,
// Recall@20, nDCG@10 and the mean tokens of the top five. The set reads
// six of ibid's own docs, which change as the docs are edited, so the
// figures are held to within longDocSlack (tokens within 5%); the order
// that makes recursive the default is held exactly.
var longDocFigures = map[string][4]float64{
	"recursive":    {0.896, 0.964, 0.740, 1335},
	"semantic":     {0.844, 0.948, 0.714, 1094},
	"hierarchical": {0.828, 0.943, 0.662, 648},
}

const longDocSlack = 0.015

// answerFigures are the answers lines of ibid eval on the long-document
// set with the default strategy, as docs/answers.md reports them: the
// evidence hit rate and the declines, of the questions and of the
// follow-up pairs. Held within answerSlack, declines exactly.
var answerFigures = struct {
	questions, followups        float64
	declined, followupsDeclined int
}{0.583, 0.800, 3, 0}

const answerSlack = 0.03

func TestEvalLongDocStrategies(t *testing.T) {
	shared := filepath.Dir(shareddata.Path(t, "pdf"))
	cmdEnv(t)
	got := map[string][4]float64{}
	for s, want := range longDocFigures {
		code, out, errs := runCmd(t, "eval", "--bm25-only", "--strategy", s, "--shared", shared, "../rag/retrieve/testdata/longdoc")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 || lines[0] != "strategy "+s || !strings.Contains(lines[1], "questions 96 (missing 0)") ||
			!strings.HasPrefix(lines[2], "answers      questions 96  evidence hit ") || !strings.HasPrefix(lines[3], "follow-ups   questions 10  evidence hit ") {
			t.Fatalf("%s: output\n%s", s, out)
		}
		if s == "recursive" {
			var q, fu float64
			var qn, qd, fn, fd int
			fmt.Sscanf(lines[2], "answers      questions 96  evidence hit %f (%d)  declined %d", &q, &qn, &qd)
			fmt.Sscanf(lines[3], "follow-ups   questions 10  evidence hit %f (%d)  declined %d", &fu, &fn, &fd)
			if math.Abs(q-answerFigures.questions) > answerSlack || math.Abs(fu-answerFigures.followups) > answerSlack ||
				qd != answerFigures.declined || fd != answerFigures.followupsDeclined {
				t.Errorf("answers:\n%s\n%s\nwant %+v (docs/answers.md)", lines[2], lines[3], answerFigures)
			}
		}
		var f [4]float64
		if _, err := fmt.Sscanf(lines[1][strings.Index(lines[1], "Recall@5"):], "Recall@5 %f  Recall@20 %f  nDCG@10 %f  mean tokens@5 %f", &f[0], &f[1], &f[2], &f[3]); err != nil {
			t.Fatalf("%s: %q: %v", s, lines[1], err)
		}
		got[s] = f
		for i := range 3 {
			if math.Abs(f[i]-want[i]) > longDocSlack {
				t.Errorf("%s: %s\nwant %v (docs/indexing.md)", s, lines[1], want)
			}
		}
		if math.Abs(f[3]-want[3]) > 0.05*want[3] {
			t.Errorf("%s: mean tokens %v, docs/indexing.md says %v", s, f[3], want[3])
		}
	}
	// The default stands while no strategy reaches its recall at 5 or 20
	// or beats its nDCG@10 by more than the slack.
	for _, s := range []string{"semantic", "hierarchical"} {
		g, r := got[s], got["recursive"]
		if g[0] >= r[0] || g[1] >= r[1] || g[2] > r[2]+longDocSlack {
			t.Errorf("%s %v is not below recursive %v: the default must be revisited (docs/indexing.md)", s, g, r)
		}
	}
}

// sciFactStrategyFigures are the BM25 lines of ibid eval --bm25-only
// --strategy S on SciFact's test split, as docs/indexing.md reports them
// (the strategies were compared on the training queries first).
var sciFactStrategyFigures = map[string]string{
	"semantic":     "bm25           nDCG@10 0.6694  Recall@100 0.9070",
	"hierarchical": "bm25           nDCG@10 0.6933  Recall@100 0.9176",
}

func TestEvalSciFactStrategies(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes SciFact's 5,183 abstracts once per strategy")
	}
	scifact := filepath.Dir(shareddata.Path(t, "scifact", "corpus.jsonl"))
	cmdEnv(t)
	for s, want := range sciFactStrategyFigures {
		code, out, errs := runCmd(t, "eval", "--bm25-only", "--strategy", s, scifact)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || lines[1] != want {
			t.Errorf("%s: output\n%s\nwant %s (docs/indexing.md)", s, out, want)
		}
	}
}
