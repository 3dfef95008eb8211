package citations

// numberer applies the numbering rule to recognised ids and emits the
// citation, ref and unknown events; it knows nothing of bytes or syntax.
//
// Invariant: local holds exactly the offered aliases cited so far in this
// answer, rep.Order lists them in first-appearance order, and a
// KindCitation was emitted for each just before its first KindRef.
type numberer struct {
	h       Handler
	offered func(int) bool
	reg     *Registry // nil: numbers are 1.. per answer
	local   map[int]int
	unknown map[int]bool
	used    []int // every alias cited, offered or not, first appearance
	usedSet map[int]bool
	rep     Report
}

func newNumberer(h Handler, opt Options, mode Mode) numberer {
	return numberer{h: h, offered: opt.Offered, reg: opt.Registry, rep: Report{Mode: mode.String()}}
}

// id draws one id: k as written raw.
func (n *numberer) id(k int, raw []byte) {
	if !n.usedSet[k] {
		if n.usedSet == nil {
			n.usedSet = make(map[int]bool)
		}
		n.usedSet[k] = true
		n.used = append(n.used, k)
	}
	if n.offered != nil && !n.offered(k) {
		if !n.unknown[k] {
			if n.unknown == nil {
				n.unknown = make(map[int]bool)
			}
			n.unknown[k] = true
			n.rep.Unknown = append(n.rep.Unknown, string(raw))
		}
		n.rep.UnknownRefs++
		n.h(Event{Kind: KindUnknown, Text: raw, Source: k})
		return
	}
	num, ok := n.local[k]
	if !ok {
		if n.reg != nil {
			num, _ = n.reg.Assign(k)
			n.rep.Numbers = append(n.rep.Numbers, num)
		} else {
			num = len(n.rep.Order) + 1
		}
		if n.local == nil {
			n.local = make(map[int]int)
		}
		n.local[k] = num
		n.rep.Order = append(n.rep.Order, k)
		n.h(Event{Kind: KindCitation, Source: k, Number: num})
	}
	n.rep.Refs++
	n.h(Event{Kind: KindRef, Source: k, Number: num})
}

// done emits KindDone with a copy of the report.
func (n *numberer) done() {
	rep := n.rep
	if rep.Order == nil {
		rep.Order = []int{}
	}
	n.h(Event{Kind: KindDone, Report: &rep})
}

// compare fills the json mode's comparison of declared ids with the body.
func (n *numberer) compare(declared []int) {
	n.rep.Declared = declared
	if declared == nil {
		n.rep.Declared = []int{}
	}
	dset := make(map[int]bool, len(declared))
	for _, k := range declared {
		dset[k] = true
		if !n.usedSet[k] {
			n.rep.DeclaredNotUsed = append(n.rep.DeclaredNotUsed, k)
		}
	}
	var a, b []int
	for _, k := range n.used {
		if !dset[k] {
			n.rep.UsedNotDeclared = append(n.rep.UsedNotDeclared, k)
		} else {
			a = append(a, k)
		}
	}
	for _, k := range declared {
		if n.usedSet[k] {
			b = append(b, k)
		}
	}
	for i := range a {
		if a[i] != b[i] {
			n.rep.OrderDiffers = true
		}
	}
}
