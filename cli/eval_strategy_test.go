package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
	"github.com/ibid-dev/ibid/internal/shareddata"
)

// longDocFigures are ibid eval --bm25-only --strategy S on the
// long-document set, as docs/indexing.md reports them: Recall@5,
// Recall@20, nDCG@10 and the mean tokens of the top five. The set reads
// a frozen snapshot of ibid's docs (rag/retrieve/testdata/longdoc/docs)
// and the shared PDFs, so the figures move only when ibid's indexing or
// retrieval does; they are held to within longDocSlack (tokens within
// 5%), the order of the strategies exactly.
var longDocFigures = map[string][4]float64{
	"recursive":    {0.875, 0.958, 0.730, 1212},
	"semantic":     {0.823, 0.948, 0.708, 1014},
	"hierarchical": {0.865, 0.969, 0.698, 1032},
}

const longDocSlack = 0.015

// answerFigures are the answers lines of ibid eval on the long-document
// set with the default strategy, as docs/answers.md reports them: the
// evidence hit rate and the declines, of the 96 questions, of the first
// 78 (the set the answerer's targets are stated on) and of the follow-up
// pairs. Held within answerSlack, declines exactly; the first 78 also
// at issue 20's target (firstTarget, at most firstMaxDeclined declined).
var answerFigures = struct {
	questions, first, followups                float64
	declined, firstDeclined, followupsDeclined int
}{0.750, 0.718, 0.800, 1, 1, 0}

const (
	firstTarget      = 0.70
	firstMaxDeclined = 3
)

const answerSlack = 0.03

// longDocRuns memoises ibid eval --bm25-only --strategy S on the
// long-document set: each strategy is indexed and measured once per
// package, whichever tests read it.
var longDocRuns = struct {
	sync.Mutex
	out map[string]map[string]string // strategy → line name → the rest of its line
}{out: map[string]map[string]string{}}

// longDocRun is the output of ibid eval --bm25-only --strategy s on the
// long-document set, by line name ("bm25", "answers", "follow-ups", …).
func longDocRun(t *testing.T, s string) map[string]string {
	t.Helper()
	shared := filepath.Dir(shareddata.Path(t, "pdf"))
	longDocRuns.Lock()
	defer longDocRuns.Unlock()
	if lines, ok := longDocRuns.out[s]; ok {
		return lines
	}
	cmdEnv(t)
	// The PDF engine's compiled code is cached, as the rag packages' tests
	// cache it: compiling it again for each strategy (minutes under -race)
	// measures nothing.
	t.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ibid-rag-test-cache"))
	code, out, errs := runCmd(t, "eval", "--bm25-only", "--strategy", s, "--shared", shared, "../rag/retrieve/testdata/longdoc")
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", s, code, errs)
	}
	raw := strings.Split(strings.TrimSpace(out), "\n")
	if raw[0] != "strategy "+s {
		t.Fatalf("%s: output\n%s", s, out)
	}
	lines := map[string]string{}
	for _, l := range raw[1:] {
		name, rest, ok := strings.Cut(l, "  ")
		if !ok {
			t.Fatalf("%s: line %q", s, l)
		}
		lines[strings.TrimSpace(name)] = strings.TrimSpace(rest)
	}
	longDocRuns.out[s] = lines
	return lines
}

func TestEvalLongDocStrategies(t *testing.T) {
	figures.Require(t)
	got := map[string][4]float64{}
	for _, s := range []string{"recursive", "semantic", "hierarchical"} {
		want := longDocFigures[s]
		line := longDocRun(t, s)["bm25"]
		var f [4]float64
		if _, err := fmt.Sscanf(line, "questions 96 (missing 0)  Recall@5 %f  Recall@20 %f  nDCG@10 %f  mean tokens@5 %f", &f[0], &f[1], &f[2], &f[3]); err != nil {
			t.Fatalf("%s: bm25 line %q: %v", s, line, err)
		}
		got[s] = f
		for i := range 3 {
			if math.Abs(f[i]-want[i]) > longDocSlack {
				t.Errorf("%s: %s\nwant %v (docs/indexing.md)", s, line, want)
				break
			}
		}
		if math.Abs(f[3]-want[3]) > 0.05*want[3] {
			t.Errorf("%s: mean tokens %v, docs/indexing.md says %v", s, f[3], want[3])
		}
	}
	// The default stands while no strategy reaches its Recall@5 or beats
	// its nDCG@10 by more than the slack; hierarchical finds at least as
	// many answers in its top 20 (its windows grow into short sections'
	// neighbours), with no longer passages.
	r := got["recursive"]
	for _, s := range []string{"semantic", "hierarchical"} {
		if g := got[s]; g[0] >= r[0] || g[2] > r[2]+longDocSlack {
			t.Errorf("%s %v is not below recursive %v: the default must be revisited (docs/indexing.md)", s, g, r)
		}
	}
	if h := got["hierarchical"]; h[1] < r[1] || h[3] > r[3] {
		t.Errorf("hierarchical %v against recursive %v: fewer answers in the top 20, or longer passages (docs/indexing.md)", h, r)
	}
}

func TestEvalLongDocAnswers(t *testing.T) {
	figures.Require(t)
	lines := longDocRun(t, "recursive")
	var q, q78, fu float64
	var qn, qd, q78n, q78d, fn, fd int
	if _, err := fmt.Sscanf(lines["answers"], "questions 96  evidence hit %f (%d)  declined %d  (first 78: evidence hit %f (%d)  declined %d)", &q, &qn, &qd, &q78, &q78n, &q78d); err != nil {
		t.Fatalf("answers line %q: %v", lines["answers"], err)
	}
	if _, err := fmt.Sscanf(lines["follow-ups"], "questions 10  evidence hit %f (%d)  declined %d", &fu, &fn, &fd); err != nil {
		t.Fatalf("follow-ups line %q: %v", lines["follow-ups"], err)
	}
	if math.Abs(q-answerFigures.questions) > answerSlack || math.Abs(q78-answerFigures.first) > answerSlack ||
		math.Abs(fu-answerFigures.followups) > answerSlack ||
		qd != answerFigures.declined || q78d != answerFigures.firstDeclined || fd != answerFigures.followupsDeclined {
		t.Errorf("answers:\n%s\n%s\nwant %+v (docs/answers.md)", lines["answers"], lines["follow-ups"], answerFigures)
	}
	if q78 < firstTarget || q78d > firstMaxDeclined {
		t.Errorf("first 78: evidence hit %.3f, declined %d; the target is at least %.2f with at most %d declined", q78, q78d, firstTarget, firstMaxDeclined)
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
	figures.Require(t) // indexes SciFact's 5,183 abstracts once per strategy
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

// heldOutAnswers is the answers line of ibid eval on the held-out
// long-document set (docs/answers.md): questions on pages of ibid's docs
// the set does not use, written before the third round's rules and never
// tuned on. Its hit rate is held within answerSlack, its declines
// exactly.
const (
	heldOutHit      = 0.706
	heldOutDeclined = 0
)

func TestEvalLongDocHeldOut(t *testing.T) {
	figures.Require(t)
	cmdEnv(t)
	code, out, errs := runCmd(t, "eval", "--bm25-only", "--strategy", "recursive", "../rag/retrieve/testdata/longdoc-heldout")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "answers ") {
			line = strings.TrimSpace(strings.TrimPrefix(l, "answers"))
		}
	}
	var hit float64
	var n, declined int
	if _, err := fmt.Sscanf(line, "questions 17  evidence hit %f (%d)  declined %d", &hit, &n, &declined); err != nil {
		t.Fatalf("answers line %q: %v\n%s", line, err, out)
	}
	if math.Abs(hit-heldOutHit) > answerSlack || declined != heldOutDeclined {
		t.Errorf("held out: %s, want evidence hit %.3f, declined %d (docs/answers.md)", line, heldOutHit, heldOutDeclined)
	}
}
