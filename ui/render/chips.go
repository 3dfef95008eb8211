package render

import (
	"strconv"
	"strings"
)

// Placeholders carry reference nodes through glamour: each has the width of
// the chip that replaces it ("⟦12⟧" and "[12]" are both 4 cells), so
// glamour wraps lines exactly as they will be drawn, and it cannot split
// them across colour codes the way it splits "[12]".
const (
	phOpen      = '⟦' // cited node: ⟦n⟧; unknown id: ⟦?⟧
	phClose     = '⟧'
	phInfOpen   = '⦃' // inferred node: ⦃n⦄
	phInfClose  = '⦄'
	phUnknownIn = "?"
	// unsupportedMark follows the number of a node whose passage does not
	// support the sentence that cites it: ⟦n✗⟧, drawn [n✗].
	unsupportedMark = "✗"
)

// NodeKind says how a reference node was made.
type NodeKind int

const (
	Cited    NodeKind = iota // cited by the model: [n]
	Inferred                 // attributed by overlap, not cited by the model
	Unknown                  // an id the model made up: [?]
	// Unsupported: cited by the model, but the passage cited does not
	// support the sentence that cites it: [n✗]. A node turns Unsupported
	// (and back) when a support check says so, after it was drawn.
	Unsupported
)

func (k NodeKind) String() string {
	return [...]string{"cited", "inferred", "unknown", "unsupported"}[k]
}

// Placeholder is the text standing for a node while glamour renders.
func Placeholder(k NodeKind, n int) string {
	switch k {
	case Inferred:
		return string(phInfOpen) + strconv.Itoa(n) + string(phInfClose)
	case Unknown:
		return string(phOpen) + phUnknownIn + string(phClose)
	case Unsupported:
		return string(phOpen) + strconv.Itoa(n) + unsupportedMark + string(phClose)
	}
	return string(phOpen) + strconv.Itoa(n) + string(phClose)
}

// ChipText is what a node reads as on screen.
func ChipText(k NodeKind, n int) string {
	switch k {
	case Unknown:
		return "[?]"
	case Unsupported:
		return "[" + strconv.Itoa(n) + unsupportedMark + "]"
	}
	return "[" + strconv.Itoa(n) + "]"
}

// SwapChips replaces the placeholders in line with styled chips. chip is
// called for each in order with the node's kind and number and returns the
// styled chip. A chip ends with a reset, so the colour codes in force
// before it are written again after it: the text that follows keeps
// glamour's style.
func SwapChips(line string, chip func(k NodeKind, n int) string) string {
	if !strings.ContainsRune(line, phOpen) && !strings.ContainsRune(line, phInfOpen) {
		return line
	}
	var b strings.Builder
	var sgr []string // SGR sequences in force (since the last reset)
	for i := 0; i < len(line); {
		if strings.HasPrefix(line[i:], "\x1b[") {
			j := i + 2
			for j < len(line) && (line[j] >= '0' && line[j] <= '9' || line[j] == ';' || line[j] == ':') {
				j++
			}
			if j < len(line) && line[j] == 'm' {
				seq := line[i : j+1]
				if seq == "\x1b[0m" || seq == "\x1b[m" {
					sgr = sgr[:0]
				} else {
					sgr = append(sgr, seq)
				}
				b.WriteString(seq)
				i = j + 1
				continue
			}
		}
		k, n, size := parsePlaceholder(line[i:])
		if size == 0 {
			b.WriteByte(line[i])
			i++
			continue
		}
		b.WriteString(chip(k, n))
		for _, s := range sgr {
			b.WriteString(s)
		}
		i += size
	}
	return b.String()
}

// parsePlaceholder reads a placeholder at the start of s; size 0 means none.
func parsePlaceholder(s string) (k NodeKind, n int, size int) {
	var closer rune
	switch {
	case strings.HasPrefix(s, string(phOpen)):
		k, closer = Cited, phClose
		s = s[len(string(phOpen)):]
		size = len(string(phOpen))
	case strings.HasPrefix(s, string(phInfOpen)):
		k, closer = Inferred, phInfClose
		s = s[len(string(phInfOpen)):]
		size = len(string(phInfOpen))
	default:
		return 0, 0, 0
	}
	j := 0
	for j < len(s) && j < 7 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == 0 && k == Cited && strings.HasPrefix(s, phUnknownIn) {
		k, j = Unknown, len(phUnknownIn)
	} else if j == 0 {
		return 0, 0, 0
	} else {
		n, _ = strconv.Atoi(s[:j])
		if k == Cited && strings.HasPrefix(s[j:], unsupportedMark) {
			k, j = Unsupported, j+len(unsupportedMark)
		}
	}
	if !strings.HasPrefix(s[j:], string(closer)) {
		return 0, 0, 0
	}
	return k, n, size + j + len(string(closer))
}

// CountPlaceholders counts the placeholders in s.
func CountPlaceholders(s string) int {
	c := 0
	for i := 0; i < len(s); {
		if _, _, size := parsePlaceholder(s[i:]); size > 0 {
			c++
			i += size
			continue
		}
		i++
	}
	return c
}

// Chips draws the chip of a node, selected or not. DrawChips and Tail
// keep what they drew until they are given another Chips value, so a
// value stands for one set of styles: give a new one (a new pointer)
// when the styles change, and values must be comparable.
type Chips interface {
	Chip(k NodeKind, n int, selected bool) string
}

// DrawChips swaps the placeholders in raw (a Renderer's lines) for chips,
// counting nodes from first (the index of raw's first node among the
// answer's; sel is the selected node's index, -1 for none), compacts each line (CompactSGR), and records each node's line.
func DrawChips(raw []string, first, sel int, chips Chips) (lines []string, nodeLine []int) {
	lines = make([]string, len(raw))
	idx := first
	for li, l := range raw {
		lines[li] = CompactSGR(SwapChips(l, func(k NodeKind, n int) string {
			s := chips.Chip(k, n, idx == sel)
			idx++
			nodeLine = append(nodeLine, li)
			return s
		}))
	}
	return lines, nodeLine
}
