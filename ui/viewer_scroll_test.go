package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/ibid-dev/ibid/internal/argstub"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/ui/viewer"
)

// scrollPassages are the lines of scrollFixture's passages.
var scrollPassages = []int{6, 9, 5, 12, 7, 4, 10, 13, 6, 8}

// tokenText is passage i's text: paragraphs of five hard-wrapped lines,
// each of eight words that are all different ("t3.12.4": passage 3, line
// 12, word 4), so a word on screen says exactly where in the document it
// is.
func tokenText(i, lines int) string {
	var b strings.Builder
	for j := range lines {
		switch {
		case j > 0 && j%5 == 0:
			b.WriteString("\n\n")
		case j > 0:
			b.WriteString("\n")
		}
		for k := range 8 {
			if k > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "t%d.%d.%d", i, j, k)
		}
	}
	return b.String()
}

// scrollDoc is a document of ten short passages (scrollPassages), one
// blank line apart in its text: the segments (their offsets in text) and
// the text.
func scrollDoc(docID string) ([]store.Segment, string) {
	var segs []store.Segment
	var text strings.Builder
	for i, n := range scrollPassages {
		if i > 0 {
			text.WriteString("\n\n")
		}
		t := tokenText(i, n)
		segs = append(segs, store.Segment{ID: fmt.Sprintf("%s:%d", docID, i), DocumentID: docID, Index: i, Text: t,
			Section: []string{fmt.Sprintf("Part %d", i/3+1)}, Start: text.Len(), End: text.Len() + len(t)})
		text.WriteString(t)
	}
	return segs, text.String()
}

// scrollFixture turns doc2 of the fake library into a PDF of scrollDoc's
// ten passages on six pages: pages begin at passages 0, 2, 5 and 9, and
// inside passages 3 (the cited one, doc2:3, at its line 3) and 7 (at its
// line 6), mid-paragraph. It returns the document's page starts and text.
func scrollFixture(b *fakeBackend) ([]int, string) {
	segs, text := scrollDoc("doc2")
	at := func(w string) int { return strings.Index(text, w) }
	starts := []int{0, segs[2].Start, at("t3.3.0 "), segs[5].Start, at("t7.6.0 "), segs[9].Start}
	for i := range segs {
		segs[i].PageStart = pageAt(starts, segs[i].Start)
		segs[i].PageEnd = pageAt(starts, segs[i].End-1)
	}
	doc := b.docs["doc2"]
	doc.Format, doc.Path, doc.Pages, doc.Segments = "pdf", "/papers/paper2.pdf", len(starts), len(segs)
	b.docs["doc2"], b.segs["doc2"] = doc, segs
	return starts, text
}

// pageAt is the page that byte off of a text lies on, from the text's
// page starts.
func pageAt(starts []int, off int) int {
	p := 0
	for p < len(starts) && starts[p] <= off {
		p++
	}
	return p
}

var tokenRE = regexp.MustCompile(`t\d+\.\d+\.\d+`)

// viewRows are the viewer's header and its body rows on scr (the rows
// below the header's rule, as many as the view's height, the gutter
// left on).
func viewRows(scr string, bodyHeight int) (head string, rows []string) {
	head, body, _ := strings.Cut(scr, "────────\n")
	rows = strings.Split(body, "\n")
	return head, rows[:min(bodyHeight, len(rows))]
}

// ungutter is a body row without its gutter (▌, █ or spaces).
func ungutter(row string) string { return strings.TrimRight(strings.TrimLeft(row, "▌█ "), " ") }

// headerPages is the page (or pages) the header names: "p. 3", "pp. 3–4".
var headerPagesRE = regexp.MustCompile(`pp?\. [0-9–]+`)

// wantPage is the page the header must name for rows, a view from its top
// row on: a marker's page on top, else the page of the first word on top
// (a blank row takes the row below's: the blank line above a passage
// stands on the page of the passage's first line).
func wantPage(rows []string, starts []int, text string) string {
	for _, r := range rows {
		r = ungutter(r)
		if m := regexp.MustCompile(`^── (pp?\. [0-9–]+) `).FindStringSubmatch(r); m != nil {
			return m[1]
		}
		if w := tokenRE.FindString(r); w != "" {
			return rag.Pages(pageAt(starts, strings.Index(text, w+" ")), 0)
		}
	}
	return ""
}

// bodyHeight is the number of the viewer's body rows on scr.
func bodyHeight(d *drive) int {
	scr := d.screen()
	return d.m.bodyHeight() - len(strings.Split(headerOf(scr), "\n"))
}

// openScrollFixture opens the scroll fixture's cited passage in a w×h
// chat whose backend knows the fixture's page starts.
func openScrollFixture(t *testing.T, w, h int) (d *drive, starts []int, text string) {
	t.Helper()
	fb := newFakeBackend(sampleAnswer)
	starts, text = scrollFixture(fb)
	d = newDrive(t, pageFinderBackend{fb, map[string][]int{"doc2": starts}}, w, h)
	d.openFirstSource()
	return d, starts, text
}

// TestViewerFillsTallScreen opens a citation of the fourth of ten short
// passages at 80×24 and 160×48: the view holds as many passages as fit
// (more than two after the cited one at 160×48), with no blank row at the
// bottom while text remains; scrolled to the end, the last passage's last
// line is the last row, and the view stays full.
func TestViewerFillsTallScreen(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		d, _, _ := openScrollFixture(t, w, h)
		scr := d.screen()
		golden(t, fmt.Sprintf("open_%dx%d", w, h), scr)
		head, rows := viewRows(scr, bodyHeight(d))
		if !strings.Contains(head, "segment 4 of 10") || strings.Contains(head, "not the cited") {
			t.Errorf("%dx%d: want the view on the cited passage, 4 of 10:\n%s", w, h, head)
		}
		if ungutter(rows[len(rows)-1]) == "" && ungutter(rows[len(rows)-2]) == "" {
			t.Errorf("%dx%d: blank rows at the bottom, though the document goes on:\n%s", w, h, scr)
		}
		if !strings.HasPrefix(ungutter(rows[0]), "t3.0.0 ") {
			t.Errorf("%dx%d: the view does not open on the cited passage's first line:\n%s", w, h, scr)
		}
		if h == 48 && !strings.Contains(scr, "t6.0.0 ") {
			t.Errorf("%dx%d: three passages after the cited one should be in view:\n%s", w, h, scr)
		}
		d.sendUntilStill(press("pgdown"), 500)
		scr = d.screen()
		golden(t, fmt.Sprintf("end_%dx%d", w, h), scr)
		_, rows = viewRows(scr, bodyHeight(d))
		last := fmt.Sprintf("t9.%d.7", scrollPassages[9]-1)
		if !strings.HasSuffix(ungutter(rows[len(rows)-1]), last) {
			t.Errorf("%dx%d: at the end, the last row is not the document's last line (%s):\n%s", w, h, last, scr)
		}
		if strings.Contains(headerOf(scr), "segment 4 of 10 ") || !strings.Contains(headerOf(scr), "(not the cited one)") {
			t.Errorf("%dx%d: at the end the header names the passage on top, not the cited one:\n%s", w, h, headerOf(scr))
		}
	}
}

// TestViewerScrollsWholeDocument scrolls up from the cited passage a line
// at a time to the document's first line, then down to its last: each key
// moves the text by exactly one row (no jump, no blank row at the bottom),
// and the header names the page of the row on top (a marker's page when a
// marker is on top), computed here from the document's page starts.
func TestViewerScrollsWholeDocument(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		d, starts, text := openScrollFixture(t, w, h)
		seen := map[string]bool{}
		check := func(step string) []string {
			t.Helper()
			scr := d.screen()
			head, rows := viewRows(scr, bodyHeight(d))
			got, want := headerPagesRE.FindString(head), wantPage(rows, starts, text)
			if got != want {
				t.Fatalf("%dx%d %s: header names %q, the top row is on %q:\n%s", w, h, step, got, want, scr)
			}
			// a blank row stands between paragraphs, never two in a row: two
			// at the bottom are the end of the text
			if len(rows) < 2 || ungutter(rows[len(rows)-1]) == "" && ungutter(rows[len(rows)-2]) == "" {
				t.Fatalf("%dx%d %s: blank rows at the bottom:\n%s", w, h, step, scr)
			}
			seen[got] = true
			return rows
		}
		shifted := func(before, after []string, by int) bool {
			for i := range before {
				if j := i + by; j >= 0 && j < len(after) && ungutter(before[i]) != ungutter(after[j]) {
					return false
				}
			}
			return true
		}
		rows := check("open")
		ups := 0
		for ; ups < 500 && !strings.HasPrefix(ungutter(rows[0]), "── p. 1 "); ups++ {
			d.send(press("up"))
			next := check(fmt.Sprintf("up %d", ups+1))
			if !shifted(rows, next, 1) {
				t.Fatalf("%dx%d: up %d moved the text by more than a row:\n%q\n%q", w, h, ups+1, rows, next)
			}
			rows = next
		}
		if head := headerOf(d.screen()); !strings.Contains(head, "p. 1 ·") || !strings.Contains(head, "segment 1 of 10") {
			t.Fatalf("%dx%d: %d ups did not reach the first passage:\n%s", w, h, ups, d.screen())
		}
		if !seen["p. 2"] || !seen["p. 1"] {
			t.Errorf("%dx%d: scrolling up the header showed %v, want p. 2 and p. 1", w, h, seen)
		}
		d.send(press("up"))
		if next := check("up at the top"); !reflect.DeepEqual(next, rows) {
			t.Errorf("%dx%d: up at the top moved the view", w, h)
		}
		if !strings.HasPrefix(ungutter(rows[1]), "t0.0.0 ") {
			t.Errorf("%dx%d: the top is not the document's first line: %q", w, h, rows[:2])
		}

		last := fmt.Sprintf("t9.%d.7", scrollPassages[9]-1)
		downs := 0
		for ; downs < 1000 && !strings.HasSuffix(ungutter(rows[len(rows)-1]), last); downs++ {
			d.send(press("down"))
			next := check(fmt.Sprintf("down %d", downs+1))
			if !shifted(rows, next, -1) {
				t.Fatalf("%dx%d: down %d moved the text by more than a row:\n%q\n%q", w, h, downs+1, rows, next)
			}
			rows = next
		}
		if !strings.HasSuffix(ungutter(rows[len(rows)-1]), last) {
			t.Fatalf("%dx%d: %d downs did not reach the last line:\n%s", w, h, downs, d.screen())
		}
		var endPage int // every page up to the one on top at the end was on top on the way
		fmt.Sscanf(wantPage(rows, starts, text), "p. %d", &endPage)
		for p := 1; p <= endPage; p++ {
			if !seen[rag.Pages(p, 0)] {
				t.Errorf("%dx%d: the header never named p. %d on the way down to p. %d (%v)", w, h, p, endPage, seen)
			}
		}
		if endPage < 3 {
			t.Errorf("%dx%d: the view ends with p. %d on top, want p. 3 or later", w, h, endPage)
		}
		d.send(press("down"))
		if next := check("down at the end"); !reflect.DeepEqual(next, rows) {
			t.Errorf("%dx%d: down at the end moved the view", w, h)
		}
	}
}

// TestViewerOpenPageInView: o after scrolling from the cited passage (on
// p. 2) past the page that begins inside it runs the PDF viewer of
// Options.Open at the header's page, p. 3, through the real program loop
// (tea.ExecProcess).
func TestViewerOpenPageInView(t *testing.T) {
	t.Parallel()
	_, script, record := argstub.Script(t, "viewer")
	fb := newFakeBackend(sampleAnswer)
	starts, _ := scrollFixture(fb)
	opt := darkOpt()
	opt.Open = viewer.OpenSettings{PDFViewer: script + " --page={page} {file}"}
	opt.LibraryPoll = -1
	tm := newTMOpt(t, pageFinderBackend{fb, map[string][]int{"doc2": starts}}, opt, 80, 24)
	askAndOpenFirst(t, tm)
	scr := waitScreen(t, tm, "segment 4 of 10", "p. 2 ·")
	for i := 0; i < 40 && !strings.Contains(headerOf(scr), "p. 3 ·"); i++ {
		tm.Send(press("down"))
		scr = waitScreen(t, tm, "segment ")
	}
	if !strings.Contains(headerOf(scr), "p. 3 ·") {
		t.Fatalf("scrolling never reached p. 3:\n%s", scr)
	}
	tm.Send(press("o"))
	argstub.Wait(t, record)
	if got, want := argstub.Args(t, record), []string{"--page=3", "/papers/paper2.pdf"}; !reflect.DeepEqual(got, want) {
		t.Errorf("o at p. 3 ran the viewer with %q, want %q", got, want)
	}
	tm.Send(press("esc"))
	tm.Send(press("ctrl+c"))
}

// askAndOpenFirst asks a question in tm's chat and opens the answer's
// first source in the viewer.
func askAndOpenFirst(t *testing.T, tm *teatest.TestModel) {
	t.Helper()
	tm.Type("q")
	tm.Send(press("enter"))
	waitScreen(t, tm, "In short")
	tm.Send(press("tab"))
	tm.Send(press("]"))
	tm.Send(press("enter"))
}

// TestViewerOpenLineInView: in a Markdown file (front matter first), o
// after scrolling into the passage after the cited one runs the editor at
// +N, N the file's line that holds the first word on top of the view.
func TestViewerOpenLineInView(t *testing.T) {
	t.Parallel()
	_, script, record := argstub.Script(t, "editor")
	segs, text := scrollDoc("doc2")
	front := "---\ntitle: Ten passages\nauthors: [A, B]\n---\n"
	path := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(path, []byte(front+text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fb := newFakeBackend(sampleAnswer)
	doc := fb.docs["doc2"]
	doc.Path, doc.Format, doc.Segments = path, "markdown", len(segs)
	fb.docs["doc2"], fb.segs["doc2"] = doc, segs
	opt := darkOpt()
	opt.Open = viewer.OpenSettings{Editor: script, PDFViewer: "false {file}"}
	opt.LibraryPoll = -1
	tm := newTMOpt(t, fb, opt, 80, 24)
	askAndOpenFirst(t, tm)
	scr := waitScreen(t, tm, "segment 4 of 10")
	// down into passage 4, then to a row with words on top
	var top string
	for i := 0; i < 80; i++ {
		_, rows := viewRows(scr, 1)
		top = tokenRE.FindString(ungutter(rows[0]))
		if strings.HasPrefix(top, "t4.2.") {
			break
		}
		tm.Send(press("down"))
		scr = waitScreen(t, tm, "segment ")
	}
	if !strings.HasPrefix(top, "t4.2.") {
		t.Fatalf("scrolling never put passage 4's third line on top:\n%s", scr)
	}
	if !strings.Contains(headerOf(scr), "segment 5 of 10") {
		t.Errorf("passage 4's line on top, the header does not name it:\n%s", headerOf(scr))
	}
	tm.Send(press("o"))
	argstub.Wait(t, record)
	data, _ := os.ReadFile(path)
	want := strings.Count(string(data[:strings.Index(string(data), top+" ")]), "\n") + 1
	if got := argstub.Args(t, record); !reflect.DeepEqual(got, []string{"+" + strconv.Itoa(want), path}) {
		t.Errorf("o with %s on top ran the editor with %q, want +%d", top, got, want)
	}
	tm.Send(press("esc"))
	tm.Send(press("ctrl+c"))
}

// TestViewerJumpNearTheEnd: n reaches the last passage at 160×48 though
// the view cannot bring it to the top (the document ends first): the
// header names the passage jumped to, the page of the top line; a line of
// scrolling and the header names the passage on top again.
func TestViewerJumpNearTheEnd(t *testing.T) {
	t.Parallel()
	d, starts, text := openScrollFixture(t, 160, 48)
	for i := 5; i <= 10; i++ {
		d.send(press("n"))
		if head := headerOf(d.screen()); !strings.Contains(head, fmt.Sprintf("segment %d of 10", i)) {
			t.Fatalf("n %d times: want segment %d in the header:\n%s", i-4, i, head)
		}
	}
	scr := d.screen()
	head, rows := viewRows(scr, bodyHeight(d))
	if got, want := headerPagesRE.FindString(head), wantPage(rows, starts, text); got != want || strings.Contains(ungutter(rows[0]), "t9.0.0") {
		t.Errorf("on the last passage, not on top: header page %q, want the top row's %q:\n%s", got, want, scr)
	}
	d.send(press("up"))
	if head := headerOf(d.screen()); strings.Contains(head, "segment 10 of 10") {
		t.Errorf("scrolled, the header still names the passage jumped to:\n%s", head)
	}
}
