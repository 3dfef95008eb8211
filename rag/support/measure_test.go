package support

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
)

func TestAUC(t *testing.T) {
	sc := func(pairs ...any) []scoredCase {
		var out []scoredCase
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, scoredCase{pairs[i].(float64), pairs[i+1].(Label)})
		}
		return out
	}
	for _, c := range []struct {
		name string
		cs   []scoredCase
		want float64
	}{
		{"perfect", sc(0.9, LabelSupport, 0.8, LabelContradict, 0.1, LabelNone), 1},
		{"reversed", sc(0.1, LabelSupport, 0.9, LabelNone), 0},
		{"ties count half", sc(0.5, LabelSupport, 0.5, LabelNone), 0.5},
		{"one of four pairs wrong", sc(0.9, LabelSupport, 0.4, LabelSupport, 0.5, LabelNone, 0.1, LabelNone), 0.75},
	} {
		if got, _, _ := auc(c.cs, Label.Evidential); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: AUC %v, want %v", c.name, got, c.want)
		}
	}
	if got, _, _ := auc(sc(0.5, LabelNone), Label.Evidential); !math.IsNaN(got) {
		t.Errorf("no positives: AUC %v, want NaN", got)
	}
}

// TestMeasureSmall: the figures of a set built by hand.
func TestMeasureSmall(t *testing.T) {
	text := "Bees forage in spring. Varroa mites infest brood cells."
	g := []GoldSentence{{Start: 0, End: 22}, {Start: 23, End: len(text), Rationale: true}}
	s := &Set{Name: "hand", Cases: []Case{
		{ID: "1", Claim: "Varroa mites infest brood cells.", Passage: one(text), Gold: g, Label: LabelSupport},
		{ID: "2", Claim: "Bees forage in spring.", Passage: one(text), Gold: []GoldSentence{{Start: 0, End: 22}, {Start: 23, End: len(text)}}, Label: LabelNone},
		{ID: "3", Claim: "Whales sing at dusk.", Passage: one(text), Gold: g[:1], Label: LabelNone},
	}}
	f := Measure(s, s.Checker())
	if f.FocusN != 1 || f.Focus != 1 {
		t.Errorf("focus %v of %d", f.Focus, f.FocusN)
	}
	if f.Positives != 1 || f.Negatives != 2 || f.Confusion[LabelNone][Unsupported] != 1 || f.Unsupported != 1 || f.UnsupportedPrecision != 1 {
		t.Errorf("figures %+v", f)
	}
	var b bytes.Buffer
	f.Print(&b)
	for _, want := range []string{"focus hit@1            1.000", "unsupported precision  1.000", "none"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("printed figures lack %q:\n%s", want, b.String())
		}
	}
}

var (
	wiceOnce sync.Once
	wiceSet  *Set
	wiceErr  error
)

func wiceDev(t testing.TB) *Set {
	t.Helper()
	path := sharedData(t, "wice-claim") + "/dev.jsonl"
	wiceOnce.Do(func() { wiceSet, wiceErr = ReadWiCE(path) })
	if wiceErr != nil {
		t.Fatal(wiceErr)
	}
	return wiceSet
}

// sample is every nth case of s.
func sample(s *Set, n int) *Set {
	out := &Set{Name: s.Name + " sample", df: s.df, docs: s.docs}
	for i := 0; i < len(s.Cases); i += n {
		out.Cases = append(out.Cases, s.Cases[i])
	}
	return out
}

// pinned are the checker's figures as docs/support.md reports them: on a
// sample (every fifth SciFact case, every second WiCE case) always
// (TestFigures, seconds), on every case with IBID_FIGURES=1
// (TestFiguresFull, about a minute). A change to the checker that moves
// them must update the docs.
var pinned = map[string]struct{ focus, auc, aucSupport, precision float64 }{
	"scifact claims_train sample": {0.695, 0.903, 0.895, 0.889},
	"scifact claims_train":        {0.720, 0.894, 0.888, 0.940},
	"wice dev sample":             {0.810, 0.769, 0.843, 1.000},
	"wice dev":                    {0.824, 0.837, 0.924, 0.857},
}

func TestFigures(t *testing.T) {
	checkFigures(t, sample(sciFactTrain(t), 5), sample(wiceDev(t), 2))
}

func TestFiguresFull(t *testing.T) {
	figures.Require(t)
	checkFigures(t, sciFactTrain(t), wiceDev(t))
}

func checkFigures(t *testing.T, sets ...*Set) {
	t.Helper()
	for _, s := range sets {
		f := Measure(s, s.Checker())
		var b bytes.Buffer
		f.Print(&b)
		t.Log("\n" + b.String())
		want, ok := pinned[f.Set]
		if !ok {
			t.Fatalf("no pinned figures for %q", f.Set)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"focus hit@1", f.Focus, want.focus},
			{"verdict AUC", f.AUC, want.auc},
			{"verdict AUC, support", f.AUCSupport, want.aucSupport},
			{"unsupported precision", f.UnsupportedPrecision, want.precision},
		} {
			if math.Abs(c.got-c.want) > 0.0005 {
				t.Errorf("%s: %s %.3f, pinned %.3f", f.Set, c.name, c.got, c.want)
			}
		}
	}
}
