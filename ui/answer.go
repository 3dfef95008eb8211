package ui

import (
	"sort"
	"strings"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/ui/render"
)

// maxOpenBlock bounds the block still streaming: past it, the block is
// closed at its last complete line (outside a code fence), so drawing the
// unfinished tail stays cheap however long a paragraph-less answer grows.
const maxOpenBlock = 4096

// node is one reference node of an answer, in order of appearance.
type node struct {
	kind render.NodeKind
	num  int
	off  int // offset of its placeholder in the answer's Markdown source
}

// block is a finished Markdown block of an answer: src[start:end]. Its
// glamour render is cached per width (raw, placeholders still in), and its
// drawn lines per selection.
type block struct {
	start, end int
	firstNode  int // index of its first node in answerDoc.nodes
	nodes      int

	width int      // width raw was rendered for; 0: not rendered
	raw   []string // glamour output with placeholders
	sel   int      // selected node index lines were drawn for (-1: none inside)
	lines []string // raw with chips; nil once fitted holds them
	// nodeLine[i] is the line (within lines) of the block's i-th node.
	nodeLine []int
	// fitted is lines as the transcript shows them (indented, padded or
	// cut to fitWidth); nil when lines changed since. Once it is built the
	// transcript drops lines, which only fitted reads: a finished answer
	// keeps its glamour render (raw, for drawing another selection) and
	// what it shows, not a third copy.
	fitted   []string
	fitWidth int
}

// answerDoc is one answer as it streams: Markdown source with node
// placeholders, split into finished blocks (rendered once per width) and an
// open tail.
//
// Invariants: blocks cover src[:closed] in order without gaps; every node's
// placeholder lies in src; text only ever appends, except that inferred
// nodes, which arrive after the text, are inserted at their offsets by
// rebuilding (which drops the block caches).
type answerDoc struct {
	src    []byte
	nodes  []node
	blocks []block
	closed int // end of the last finished block

	// line scanner state over src[closed:]
	lineStart int  // start of the current, incomplete line
	inFence   bool // inside a fenced code block
	fence     byte // its fence character and run length (ingest.FenceOpen)
	fenceLen  int
	content   bool // the open block has a non-blank line

	finished bool // the stream ended: the tail is a block too

	// text is the answer's text without nodes, and textOffs maps every
	// node to its offset in it, to place inferred nodes.
	text     strings.Builder
	textOffs []int
	// seen holds the display numbers drawn so far: the sources pane lists
	// a source only once its node is on screen, so both grow in step.
	seen map[int]bool
	// verdicts are the footnotes' support checks (the last of each): the
	// nodes of a number whose verdict is Unsupported are Unsupported.
	verdicts rag.Verdicts

	tail render.Tail // draws the open block, src[closed:]
}

// addText appends streamed text.
func (d *answerDoc) addText(s string) {
	d.src = append(d.src, s...)
	d.text.WriteString(s)
	d.scan()
}

// addNode appends a node at the current end.
func (d *answerDoc) addNode(k render.NodeKind, n int) {
	d.nodes = append(d.nodes, node{kind: k, num: n, off: len(d.src)})
	if k != render.Unknown {
		if d.seen == nil {
			d.seen = map[int]bool{}
		}
		d.seen[n] = true
	}
	d.textOffs = append(d.textOffs, d.text.Len())
	d.src = append(d.src, render.Placeholder(k, n)...)
}

// insertInferred places an inferred node at text offset off (the end of
// the paragraph it was attributed to) and rebuilds the source.
func (d *answerDoc) insertInferred(n, off int) {
	text := d.text.String()
	type item struct {
		off  int
		kind render.NodeKind
		num  int
	}
	items := make([]item, 0, len(d.nodes)+1)
	for i, nd := range d.nodes {
		items = append(items, item{d.textOffs[i], nd.kind, nd.num})
	}
	// an inferred node goes before any trailing newlines of its paragraph
	for off > 0 && off <= len(text) && text[off-1] == '\n' {
		off--
	}
	items = append(items, item{min(max(off, 0), len(text)), render.Inferred, n})
	sort.SliceStable(items, func(i, j int) bool { return items[i].off < items[j].off })
	*d = answerDoc{finished: d.finished, verdicts: d.verdicts}
	pos := 0
	for _, it := range items {
		d.addText(text[pos:it.off])
		pos = it.off
		d.addNode(it.kind, it.num)
	}
	d.addText(text[pos:])
	if d.finished {
		d.finish()
	}
}

// scan closes the blocks that the newly complete lines end.
func (d *answerDoc) scan() {
	for {
		i := strings.IndexByte(string(d.src[d.lineStart:]), '\n')
		if i < 0 {
			break
		}
		line := string(d.src[d.lineStart : d.lineStart+i])
		end := d.lineStart + i + 1
		d.lineStart = end
		trimmed := strings.TrimSpace(line)
		if d.inFence && ingest.FenceCloses(line, d.fence, d.fenceLen) {
			d.inFence = false
			d.content = true
			continue
		}
		if c, n, ok := ingest.FenceOpen(line); !d.inFence && ok {
			d.inFence, d.fence, d.fenceLen = true, c, n
			d.content = true
			continue
		}
		if d.inFence {
			continue
		}
		if trimmed == "" {
			if d.content {
				d.closeBlock(end)
			}
			continue
		}
		d.content = true
		if end-d.closed > maxOpenBlock {
			d.closeBlock(end)
		}
	}
}

// closeBlock finishes the block src[closed:end].
func (d *answerDoc) closeBlock(end int) {
	if end <= d.closed {
		return
	}
	b := block{start: d.closed, end: end, firstNode: len(d.nodes), sel: -2}
	for i, nd := range d.nodes {
		if nd.off >= d.closed && nd.off < end {
			if b.nodes == 0 {
				b.firstNode = i
			}
			b.nodes++
		}
	}
	d.blocks = append(d.blocks, b)
	d.closed = end
	d.content = false
	d.tail.Reset()
}

// finish ends the stream: the tail becomes the last block.
func (d *answerDoc) finish() {
	d.finished = true
	d.inFence = false
	if strings.TrimSpace(string(d.src[d.closed:])) != "" {
		d.closeBlock(len(d.src))
	} else if len(d.src) > d.closed && len(d.blocks) > 0 {
		// trailing blank space belongs to the last block
		last := &d.blocks[len(d.blocks)-1]
		last.end = len(d.src)
		d.closed = len(d.src)
	}
}

// tailNodes returns the index of the first node in the tail and how many.
func (d *answerDoc) tailNodes() (first, n int) {
	first = len(d.nodes)
	for i := len(d.nodes) - 1; i >= 0 && d.nodes[i].off >= d.closed; i-- {
		first = i
	}
	return first, len(d.nodes) - first
}

// drawTail draws the open block (render.Tail.Draw) for width, after
// indent, with selected node sel.
func (d *answerDoc) drawTail(width int, indent string, st *styles, sel int, r *render.Renderer) (lines []string, nodeLine []int) {
	first, _ := d.tailNodes()
	return d.tail.Draw(d.src[d.closed:], first, width, indent, st, sel, r)
}

// drawBlock returns block i drawn for width and selected node sel,
// rendering with r (RenderBlock: raw is shared, never modified) only
// when the width changed: its lines, or, when they were dropped, its
// fitted lines for that selection.
func (d *answerDoc) drawBlock(i int, r *render.Renderer, st *styles, sel int) *block {
	b := &d.blocks[i]
	if b.width != r.Width() {
		b.raw = r.RenderBlock(string(d.src[b.start:b.end]))
		b.width = r.Width()
		b.sel = -2
	}
	s := -1
	if sel >= b.firstNode && sel < b.firstNode+b.nodes {
		s = sel
	}
	if b.sel != s || b.lines == nil && b.fitted == nil {
		b.lines, b.nodeLine = render.DrawChips(b.raw, b.firstNode, s, st)
		b.sel = s
		b.fitted = nil
	}
	return b
}

// applyEvent feeds one answer event into the document.
func (d *answerDoc) applyEvent(e rag.Event) {
	switch e.Type {
	case rag.EventText:
		d.addText(e.Text)
	case rag.EventRef:
		if e.Inferred && d.finishedText(e) {
			d.insertInferred(e.Number, e.Offset)
			return
		}
		k := render.Cited
		switch {
		case e.Inferred:
			k = render.Inferred
		case d.unsupported(e.Number):
			k = render.Unsupported
		}
		d.addNode(k, e.Number)
	case rag.EventSupport:
		was := d.unsupported(e.Number)
		d.verdicts.Add(e)
		if bad := d.unsupported(e.Number); bad != was {
			d.setUnsupported(e.Number, bad)
		}
	case rag.EventUnknown:
		d.addNode(render.Unknown, 0)
	}
}

// unsupported reports whether footnote n's verdict is Unsupported.
func (d *answerDoc) unsupported(n int) bool {
	s := d.verdicts[n]
	return s != nil && s.Verdict == rag.Unsupported
}

// setUnsupported draws every node numbered n (cited ones) as unsupported
// ([n✗]) or not: its placeholder changes width, so the source after it
// moves, the block holding it is drawn again and the blocks after it keep
// their renders, only their offsets move.
func (d *answerDoc) setUnsupported(n int, on bool) {
	from, to := render.Cited, render.Unsupported
	if !on {
		from, to = to, from
	}
	for i := range d.nodes {
		nd := &d.nodes[i]
		if nd.num != n || nd.kind != from {
			continue
		}
		old, repl := render.Placeholder(from, n), render.Placeholder(to, n)
		at, delta := nd.off, len(repl)-len(old)
		d.src = append(d.src[:at], append([]byte(repl), d.src[at+len(old):]...)...)
		nd.kind = to
		for j := i + 1; j < len(d.nodes); j++ {
			d.nodes[j].off += delta
		}
		for b := range d.blocks {
			bl := &d.blocks[b]
			switch {
			case bl.start > at:
				bl.start += delta
				bl.end += delta
			case bl.end > at:
				bl.end += delta
				bl.width, bl.raw, bl.lines, bl.fitted = 0, nil, nil, nil
			}
		}
		if at >= d.closed {
			d.tail.Reset()
		} else {
			d.closed += delta
		}
		if at < d.lineStart {
			d.lineStart += delta
		}
	}
}

// finishedText reports whether an inferred ref points before the end of
// the text (it arrived after the text and must be inserted).
func (d *answerDoc) finishedText(e rag.Event) bool {
	return e.Offset < d.text.Len()
}
