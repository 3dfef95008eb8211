package extractive

// TraceCand is a candidate as the long-document study sees it.
type TraceCand struct {
	Text      string
	Score     float64
	Why       []string
	K, Rank   int
	Seg       string
	Chosen    bool
	Fragment  bool
	Quoteable bool
}

// TraceInfo is one answer's candidates and choice.
type TraceInfo struct {
	Kind     string
	Terms    []string
	Weights  []float64
	Focus    []string
	Cands    []TraceCand
	Quotes   []string
	Windows  []string // each passage's window text, in the order read (empty: absorbed)
	Absorbed []bool
}

// SetTrace makes every Answer tell f of its candidates (nil: stop).
func SetTrace(f func(TraceInfo)) {
	if f == nil {
		trace = nil
		return
	}
	trace = func(qu *question, cands []*cand, quotes []run, passages []Passage) {
		in := TraceInfo{Kind: qu.kind.String(), Terms: qu.terms, Weights: qu.weights}
		for i, t := range qu.terms {
			if qu.focus[i] {
				in.Focus = append(in.Focus, t)
			}
		}
		chosen := map[*cand]bool{}
		for _, r := range quotes {
			var txt string
			for _, u := range r.units {
				chosen[u] = true
				txt += u.text + " "
			}
			in.Quotes = append(in.Quotes, txt)
		}
		for _, c := range cands {
			in.Cands = append(in.Cands, TraceCand{Text: c.text, Score: c.score, Why: c.why, K: c.k, Rank: c.rank, Seg: c.seg.ID, Chosen: chosen[c], Fragment: c.fragment})
		}
		for _, p := range passages {
			var t string
			for _, s := range p.Window {
				t += s.Text + "\n\n"
			}
			in.Windows = append(in.Windows, t)
			in.Absorbed = append(in.Absorbed, p.Window == nil)
		}
		f(in)
	}
}
