package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/store"
)

// focusMark is the gutter mark of the lines of the cited segment's focus.
const focusMark = "█ "

// focusLineText is the text of the cited parent's lines that its best
// child covers, told apart from the rest so tests can find them.
const focusLineText = "the nest core stays near 35 degrees, the part that matched"

// hierFixture lays doc2 of the fake library out as the hierarchical
// strategy does: its four passages are parents, a PDF on pages 9 to 11,
// each four paragraphs of hard-wrapped lines, then its index rows (one
// child per paragraph, a generated question). The cited parent (doc2:3,
// from page 10 onto 11) matched through the child holding its lines 22 to
// 27, inside its third paragraph; the fake's source carries that focus.
// It returns the child's text.
func hierFixture(b *fakeBackend) string {
	doc := b.docs["doc2"]
	doc.Format, doc.Path, doc.Pages = "pdf", "/papers/paper2.pdf", 11
	doc.Meta = map[string]string{"passages": "4"}
	pages := [][2]int{{9, 9}, {9, 9}, {10, 10}, {10, 11}}
	var segs, rows []store.Segment
	off, child := 0, ""
	for i := range 4 {
		var lines []string
		for j := range 40 {
			if i == 3 && j >= 22 && j <= 27 {
				lines = append(lines, fmt.Sprintf("Child line %d: %s", j, focusLineText))
				continue
			}
			lines = append(lines, fmt.Sprintf("Passage %d line %d: retrieval with citations ties each claim to its page", i, j))
		}
		var paras []string
		for p := range 4 {
			paras = append(paras, strings.Join(lines[p*10:p*10+10], "\n"))
		}
		text := strings.Join(paras, "\n\n")
		id := fmt.Sprintf("doc2:%d", i)
		segs = append(segs, store.Segment{ID: id, DocumentID: "doc2", Index: i, Text: text, Section: []string{"Results"},
			PageStart: pages[i][0], PageEnd: pages[i][1], Start: off, End: off + len(text)})
		at := 0
		for _, p := range paras {
			at += strings.Index(text[at:], p)
			rows = append(rows, store.Segment{Text: p, Parent: id, PageStart: pages[i][0], PageEnd: pages[i][1], Start: off + at, End: off + at + len(p)})
			at += len(p)
		}
		if i == 3 {
			child = strings.Join(lines[22:28], "\n")
			a := strings.Index(text, child)
			rows = append(rows, store.Segment{Text: child, Parent: id, PageStart: 10, PageEnd: 11, Start: off + a, End: off + a + len(child)})
			b.focus = map[string][2]int{id: {a, a + len(child)}}
		}
		off += len(text) + 2
	}
	rows = append(rows, store.Segment{IndexText: "How warm is the nest core kept?", Parent: "doc2:3"})
	for _, r := range rows {
		r.DocumentID, r.Index, r.Section = "doc2", len(segs), []string{"Results"}
		r.ID = fmt.Sprintf("doc2:%d", r.Index)
		segs = append(segs, r)
	}
	doc.Segments = len(segs)
	b.docs["doc2"], b.segs["doc2"] = doc, segs
	return child
}

// bodyRows are the viewer's body rows on scr: below its header's rule, down
// to the next pane's title.
func bodyRows(scr string) []string {
	_, body, _ := strings.Cut(scr, "────────\n")
	body, _, _ = strings.Cut(body, "\n── ")
	return strings.Split(body, "\n")
}

// TestViewerFocus opens, at 80×24, a citation of a long parent whose child
// matched: the lines of the child are drawn on the stronger background
// with a gutter mark, the rest of the parent as cited text, and the view
// opens on the child a third down the body rather than on the parent's
// first line. Index rows are not shown as segments; p and n still move.
func TestViewerFocus(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	child := hierFixture(b)
	d := newDrive(t, b, 80, 24)
	d.openFirstSource()
	if !d.m.vw.IsOpen() || d.m.vw.Source().SegmentID != "doc2:3" {
		t.Fatalf("the viewer is not open on doc2:3: %+v", d.m.vw.Source())
	}
	scr := d.screen()
	golden(t, "focus_80x24", scr)
	if !strings.Contains(headerOf(scr), "segment 4 of 4") {
		t.Errorf("the header counts index rows as segments:\n%s", headerOf(scr))
	}

	// The marked lines of the layout hold the child's text and at most a
	// line's worth of the parent on each side.
	lines := d.m.vw.Lines()
	var marked []string
	for _, l := range lines {
		plain := ansi.Strip(l.Drawn)
		if l.Focus != strings.HasPrefix(plain, focusMark) {
			t.Errorf("line %q: focus %v but mark %q", plain, l.Focus, plain[:3])
		}
		if l.Focus {
			marked = append(marked, strings.TrimPrefix(plain, focusMark))
		} else if strings.Contains(plain, focusLineText[:20]) {
			t.Errorf("a line of the child is not marked: %q", plain)
		}
	}
	got, want := strings.Join(strings.Fields(strings.Join(marked, " ")), " "), strings.Join(strings.Fields(child), " ")
	if !strings.Contains(got, want) || len(got) > len(want)+2*80 {
		t.Errorf("marked lines %q\nwant the child %q with at most a line around it", got, want)
	}

	// On screen: the child a third down the body, the parent's first line
	// scrolled away, the child's lines on FocusBg, the parent's on AccentBg.
	rows := bodyRows(scr)
	first := -1
	for i, r := range rows {
		if strings.HasPrefix(r, focusMark) {
			first = i
			break
		}
	}
	if h := len(rows); first < h/4 || first > h/2 {
		t.Fatalf("the focus begins on body row %d of %d, want about a third down:\n%s", first, h, scr)
	}
	if strings.Contains(scr, "Passage 3 line 0:") {
		t.Errorf("opened on the parent's first line, not on the focus:\n%s", scr)
	}
	for i := first; i < first+len(marked) && i < len(rows); i++ {
		if !strings.HasPrefix(rows[i], focusMark) {
			t.Errorf("body row %d in the focus is not marked: %q", i, rows[i])
		}
	}
	st := d.m.c.Styles
	focusBg, citedBg := sgrBg(st.Theme.FocusBg), sgrBg(st.Theme.AccentBg)
	for _, l := range strings.Split(d.m.render(), "\n") {
		plain := ansi.Strip(l)
		switch {
		case strings.HasPrefix(plain, focusMark) && !strings.Contains(l, focusBg):
			t.Errorf("a focus line is not drawn on FocusBg (%s): %q", focusBg, l)
		case strings.HasPrefix(plain, "▌ Passage 3") && (strings.Contains(l, focusBg) || !strings.Contains(l, citedBg)):
			t.Errorf("a line of the parent outside the focus is not in the cited style: %q", l)
		}
	}

	// p leaves the cited parent, n comes back to its first line; the
	// focus stays marked.
	d.send(press("p"))
	if h := headerOf(d.screen()); !strings.Contains(h, "segment 3 of 4") || !strings.Contains(h, "not the cited one") {
		t.Errorf("p did not move to the passage before:\n%s", h)
	}
	d.send(press("n"))
	scr = d.screen()
	if !strings.Contains(scr, "Passage 3 line 0:") || !strings.Contains(headerOf(scr), "segment 4 of 4") {
		t.Errorf("n did not come back to the cited parent's start:\n%s", scr)
	}
	downs := 0
	for ; downs < 40 && !strings.Contains(d.screen(), focusMark); downs++ {
		d.send(press("down"))
	}
	if scr := d.screen(); downs == 0 || !strings.Contains(scr, focusMark+"Passage 3 line 21") {
		t.Errorf("scrolled down %d lines, the focus is not marked from its first line:\n%s", downs, scr)
	}

	// Opened again, the viewer seeks the focus again.
	d.send(press("esc"))
	d.send(press("enter"))
	if rows := bodyRows(d.screen()); first >= len(rows) || !strings.HasPrefix(rows[first], focusMark) || strings.HasPrefix(rows[first-1], focusMark) {
		t.Errorf("reopened, the focus does not begin on body row %d:\n%s", first, d.screen())
	}
}

// sgrBg is the SGR parameters lipgloss writes for a true-colour background.
func sgrBg(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("48;2;%d;%d;%d", r>>8, g>>8, b>>8)
}

// TestViewerStaleFocus: a focus that no longer fits the cited segment's
// text (the document changed since the answer) marks nothing, and the
// viewer opens on the segment's first line.
func TestViewerStaleFocus(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	hierFixture(b)
	b.focus["doc2:3"] = [2]int{10, len(b.segs["doc2"][3].Text) + 1}
	d := newDrive(t, b, 80, 24)
	d.openFirstSource()
	if scr := d.screen(); strings.Contains(scr, focusMark) || !strings.Contains(scr, "Passage 3 line 0:") {
		t.Errorf("a stale focus is drawn, or the view did not open on the segment's start:\n%s", scr)
	}
}
