package extractive

import (
	"context"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// repairDoc is a list after a short lead-in (too short to be quoted on
// its own) whose items open in lower case, and prose after the list.
const repairDoc = "Every command that opens a damaged library says so and says what to run.\n\n" +
	"`--repair`:\n\n" +
	"- writes a damaged or lost manifest again from the copy the log keeps;\n" +
	"- when records or vectors are damaged, builds a new generation from every\n  readable document and switches to it;\n" +
	"- moves the damaged files into `damaged-TIME/` in the library's folder,\n  never deleting them. Until then nothing is lost;\n\n" +
	"A library in PostgreSQL is checked by the database's own tools."

// TestListItemsKnowTheirLeadIn: every item of a list, and a sentence
// inside an item, knows the list's lead-in; the prose after the list
// does not; a list that opens a segment takes the lead-in of the
// segment before.
func TestListItemsKnowTheirLeadIn(t *testing.T) {
	us := units(repairDoc, "", false)
	lead := map[string]string{}
	for _, u := range us {
		l := ""
		if u.list != nil {
			l = u.list.text
		}
		lead[u.text[:12]] = l
	}
	for start, want := range map[string]string{
		"Every comman": "", "writes a dam": "`--repair`:", "when records": "`--repair`:",
		"moves the da": "`--repair`:", "Until then n": "`--repair`:", "A library in": "",
	} {
		if got, ok := lead[start]; !ok || got != want {
			t.Errorf("%q…: lead-in %q (found %v), want %q", start, got, ok, want)
		}
	}
	// A segment cut inside the list.
	i := strings.Index(repairDoc, "- moves")
	first, second := units(repairDoc[:i], "", false), units(repairDoc[i:], repairDoc[:i], true)
	continueList(second, &first[len(first)-1])
	if second[0].list == nil || second[0].list.text != "`--repair`:" || !second[0].leadGap {
		t.Errorf("a list that opens a segment: %+v, want the lead-in of the segment before, items apart", second[0])
	}
	// A segment cut inside an item: its sentences and the items after
	// them are still the list's.
	i = strings.Index(repairDoc, "Until then")
	first, second = units(repairDoc[:i], "", false), units(repairDoc[i:], repairDoc[:i], true)
	continueList(second, &first[len(first)-1])
	for _, u := range second[:1] {
		if u.list == nil || u.list.text != "`--repair`:" {
			t.Errorf("%q, in a list that opens a segment inside an item: no lead-in", u.text)
		}
	}
	if last := second[len(second)-1]; last.list != nil {
		t.Errorf("%q, after the list: lead-in %q", last.text, last.list.text)
	}
	// A segment that opens with prose after one ending with a colon is
	// no list.
	prose := units("The figures below are measured.", "", false)
	continueList(prose, &cand{asLead: &listLead{text: "Figures:"}})
	if prose[0].list != nil {
		t.Errorf("prose after a colon took it as its lead-in")
	}
}

// TestListItemQuotedWithLeadIn: an item in lower case is quoted after its
// list's lead-in ("…" where other items lie between), and the lead-in's
// words count for every item of its list.
func TestListItemQuotedWithLeadIn(t *testing.T) {
	doc := store.Document{ID: "s", Title: "Storage"}
	p := passage(1, doc, store.Segment{ID: "s:0", Text: repairDoc, Section: []string{"Doctor"}})
	res, err := Answer(context.Background(), Query{Question: "Does repair delete the damaged files?", Passages: []Passage{p}})
	if err != nil || len(res.Quotes) == 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	q := res.Quotes[0]
	want := "`--repair`: … moves the damaged files into `damaged-TIME/` in the library's folder, never deleting them."
	if !strings.HasPrefix(q.Text, want) {
		t.Errorf("quote %q, want it to open %q", q.Text, want)
	}
	if got := q.Segment.Text[q.Span.Start:q.Span.End]; !strings.HasPrefix(got, "moves the damaged files") {
		t.Errorf("span %q: the highlight is the item", got)
	}
	res, _ = Answer(context.Background(), Query{Question: "What does repair do with a lost manifest?", Passages: []Passage{p}})
	if q := res.Quotes[0]; !strings.HasPrefix(q.Text, "`--repair`: writes a damaged or lost manifest") ||
		!strings.HasPrefix(q.Segment.Text[q.Span.Start:q.Span.End], "`--repair`:") {
		t.Errorf("first item: quote %q, span from %q; want the lead-in and the item in a row", q.Text, q.Segment.Text[q.Span.Start:])
	}
}

// TestListLeadInFramesItems: the words of a list's lead-in count for
// each item's opening sentence, as a table's header counts for a row,
// not for the sentences after it in the item.
func TestListLeadInFramesItems(t *testing.T) {
	qu := newQuestion("What does repair do to the damaged files?", nil)
	qu.weights = make([]float64, len(qu.terms))
	for i := range qu.weights {
		qu.weights[i] = 1
	}
	doc := store.Document{ID: "s", Title: "Storage"}
	cs := candidates(qu, []Passage{passage(1, doc, store.Segment{ID: "s:0", Text: repairDoc})})
	framed := map[string]bool{}
	for _, c := range cs {
		framed[c.text[:12]] = c.frame["repair"]
	}
	for start, want := range map[string]bool{"moves the da": true, "writes a dam": true, "Until then n": false, "A library in": false} {
		if framed[start] != want {
			t.Errorf("%q…: framed by the lead-in's %q: %v, want %v", start, "repair", framed[start], want)
		}
	}
}

// TestQuoteEntersListWithLeadIn: a quote that reads on from the prose
// before a list into its first items quotes the list's lead-in where the
// list begins, not items that open in lower case after a full stop.
func TestQuoteEntersListWithLeadIn(t *testing.T) {
	doc := store.Document{ID: "s", Title: "Storage"}
	p := passage(1, doc, store.Segment{ID: "s:0", Text: repairDoc, Section: []string{"Doctor"}})
	cs := []*cand{}
	for _, u := range units(repairDoc, "", false) {
		u := u
		u.seg, u.k = &p.Segment, 1
		cs = append(cs, &u)
	}
	got := render([]run{{first: cs[0], units: cs[:3]}})
	if len(got) != 1 {
		t.Fatalf("%d quotes, want 1", len(got))
	}
	want := "Every command that opens a damaged library says so and says what to run. `--repair`: writes a damaged or lost manifest again from the copy the log keeps; when records"
	if !strings.HasPrefix(got[0].Text, want) {
		t.Errorf("quote %q, want it to open %q", got[0].Text, want)
	}
}
