package support

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sync"
)

// Figures are the checker's measures on a labelled set.
type Figures struct {
	Set string
	// Focus is hit@1 of the focus: over the cases with rationale
	// sentences, the share whose supporting span overlaps a rationale
	// sentence more than any other sentence of the set's split.
	Focus  float64
	FocusN int
	// AUC is the area under the ROC curve of the score, evidential cases
	// (supporting, partial or contradicting evidence) against cases
	// without evidence; AUCSupport counts only supporting cases as
	// positive (partial and contradicting left out).
	AUC, AUCSupport float64
	Positives       int
	Negatives       int
	// UnsupportedPrecision is the share of cases without evidence among
	// those judged Unsupported (NaN when none is); Unsupported counts
	// them.
	UnsupportedPrecision float64
	Unsupported          int
	// Confusion counts cases by gold label and verdict.
	Confusion map[Label]map[Verdict]int
}

// CheckFunc checks one case's claim against its passage. Measure calls
// it from several goroutines at once.
type CheckFunc func(c *Case) Result

// measureWorkers is how many cases Measure checks at once (a model pass
// bounds its requests itself, Judge).
const measureWorkers = 8

// Checker returns the lexical checker as a CheckFunc for set s (its
// rarity).
func (s *Set) Checker() CheckFunc {
	return func(c *Case) Result { return Analyse(c.Passage).Check(c.Claim, s.Rarity) }
}

// Measure checks every case of s with check and returns the figures.
func Measure(s *Set, check CheckFunc) Figures {
	f := Figures{Set: s.Name, Confusion: map[Label]map[Verdict]int{}}
	results := make([]Result, len(s.Cases))
	next := make(chan int)
	var wg sync.WaitGroup
	for range measureWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = check(&s.Cases[i])
			}
		}()
	}
	for i := range s.Cases {
		next <- i
	}
	close(next)
	wg.Wait()
	var scored []scoredCase
	hits := 0
	unsup, unsupRight := 0, 0
	for i := range s.Cases {
		c := &s.Cases[i]
		r := results[i]
		if f.Confusion[c.Label] == nil {
			f.Confusion[c.Label] = map[Verdict]int{}
		}
		f.Confusion[c.Label][r.Verdict]++
		scored = append(scored, scoredCase{r.Score, c.Label})
		if r.Verdict == Unsupported {
			unsup++
			if !c.Label.Evidential() {
				unsupRight++
			}
		}
		if c.Rationales() {
			f.FocusN++
			if hit(c, r) {
				hits++
			}
		}
	}
	if f.FocusN > 0 {
		f.Focus = float64(hits) / float64(f.FocusN)
	}
	f.AUC, f.Positives, f.Negatives = auc(scored, Label.Evidential)
	f.AUCSupport, _, _ = auc(scored, func(l Label) bool { return l == LabelSupport })
	f.Unsupported = unsup
	f.UnsupportedPrecision = nan()
	if unsup > 0 {
		f.UnsupportedPrecision = float64(unsupRight) / float64(unsup)
	}
	return f
}

func nan() float64 { var z float64; return z / z }

// hit reports whether r's span falls on a rationale sentence of c: the
// gold sentence it overlaps most is one.
func hit(c *Case, r Result) bool {
	seg := -1
	for i, s := range c.Passage.Segments {
		if s.ID == r.Segment {
			seg = i
		}
	}
	if seg < 0 {
		return false
	}
	best, most := -1, 0
	for i, g := range c.Gold {
		if g.Segment != seg {
			continue
		}
		if o := min(g.End, r.End) - max(g.Start, r.Start); o > most {
			best, most = i, o
		}
	}
	return best >= 0 && c.Gold[best].Rationale
}

type scoredCase struct {
	score float64
	label Label
}

// auc is the area under the ROC curve of the scores, positive(label)
// against the cases with no evidence (ties count half); cases neither
// positive nor without evidence are left out.
func auc(cs []scoredCase, positive func(Label) bool) (a float64, pos, neg int) {
	var kept []scoredCase
	for _, c := range cs {
		if positive(c.label) || !c.label.Evidential() {
			kept = append(kept, c)
		}
	}
	slices.SortFunc(kept, func(x, y scoredCase) int { return cmp.Compare(x.score, y.score) })
	// Mann–Whitney: the sum of the positives' ranks, ties given their
	// mean rank.
	var rankSum float64
	for i := 0; i < len(kept); {
		j := i
		for j < len(kept) && kept[j].score == kept[i].score {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1 … j
		for k := i; k < j; k++ {
			if positive(kept[k].label) {
				rankSum += mid
				pos++
			} else {
				neg++
			}
		}
		i = j
	}
	if pos == 0 || neg == 0 {
		return nan(), pos, neg
	}
	return (rankSum - float64(pos)*float64(pos+1)/2) / (float64(pos) * float64(neg)), pos, neg
}

// Print writes f as the eval command shows it.
func (f Figures) Print(w io.Writer) {
	fmt.Fprintf(w, "%s: %d cases\n", f.Set, f.Positives+f.Negatives)
	fmt.Fprintf(w, "  focus hit@1            %.3f  (%d cases with rationales)\n", f.Focus, f.FocusN)
	fmt.Fprintf(w, "  verdict AUC            %.3f  (%d with evidence, %d without)\n", f.AUC, f.Positives, f.Negatives)
	fmt.Fprintf(w, "  verdict AUC, support   %.3f  (supporting evidence only against none)\n", f.AUCSupport)
	fmt.Fprintf(w, "  unsupported precision  %.3f  (%d judged unsupported)\n", f.UnsupportedPrecision, f.Unsupported)
	labels := []Label{LabelSupport, LabelPartial, LabelContradict, LabelNone}
	verdicts := []Verdict{Supported, Partial, Unsupported, Unchecked}
	fmt.Fprintf(w, "  %-12s", "gold\\verdict")
	for _, v := range verdicts {
		fmt.Fprintf(w, " %11s", v)
	}
	fmt.Fprintln(w)
	for _, l := range labels {
		row := f.Confusion[l]
		if row == nil {
			continue
		}
		fmt.Fprintf(w, "  %-12s", l)
		for _, v := range verdicts {
			fmt.Fprintf(w, " %11d", row[v])
		}
		fmt.Fprintln(w)
	}
}
