package citations

// numberer applies the numbering rule to recognised ids and emits the
// citation, ref and unknown events; it knows nothing of bytes or syntax.
//
// Invariants: slot(k) is 0 for an alias not cited yet in this answer, -1
// for one cited but never offered, and its display number otherwise;
// rep.Order lists the numbered aliases in first-appearance order, and a
// KindCitation was emitted for each just before its first KindRef.
type numberer struct {
	h       Handler
	offered func(int) bool
	reg     *Registry // nil: numbers are 1.. per answer
	small   []int32   // slots of aliases below len(small)
	big     map[int]int32
	used    []int // every alias cited, offered or not, first appearance
	rep     Report
}

// smallSlots is how many aliases get a slot in a slice rather than a map.
const smallSlots = 1024

func newNumberer(h Handler, opt Options, mode Mode) numberer {
	return numberer{h: h, offered: opt.Offered, reg: opt.Registry, rep: Report{Mode: mode.String()}}
}

func (n *numberer) slot(k int) int32 {
	if k >= 0 && k < len(n.small) {
		return n.small[k]
	}
	return n.big[k]
}

func (n *numberer) setSlot(k int, v int32) {
	if k >= 0 && k < smallSlots {
		if k >= len(n.small) {
			n.small = append(n.small, make([]int32, max(k+1, 2*len(n.small), 32)-len(n.small))...)
		}
		n.small[k] = v
		return
	}
	if n.big == nil {
		n.big = make(map[int]int32)
	}
	n.big[k] = v
}

func (n *numberer) usedHas(k int) bool { return n.slot(k) != 0 }

// id draws one id: k as written raw.
func (n *numberer) id(k int, raw []byte) {
	num := n.slot(k)
	if num == 0 {
		n.used = append(n.used, k)
		if n.offered != nil && !n.offered(k) {
			n.setSlot(k, -1)
			n.rep.Unknown = append(n.rep.Unknown, string(raw))
			num = -1
		} else {
			if n.reg != nil {
				r, _ := n.reg.Assign(k)
				num = int32(r)
				n.rep.Numbers = append(n.rep.Numbers, r)
			} else {
				num = int32(len(n.rep.Order) + 1)
			}
			n.setSlot(k, num)
			n.rep.Order = append(n.rep.Order, k)
			n.h(Event{Kind: KindCitation, Source: k, Number: int(num)})
		}
	}
	if num < 0 {
		n.rep.UnknownRefs++
		n.h(Event{Kind: KindUnknown, Text: raw, Source: k})
		return
	}
	n.rep.Refs++
	n.h(Event{Kind: KindRef, Source: k, Number: int(num)})
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
		if !n.usedHas(k) {
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
		if n.usedHas(k) {
			b = append(b, k)
		}
	}
	for i := range a {
		if a[i] != b[i] {
			n.rep.OrderDiffers = true
		}
	}
}
