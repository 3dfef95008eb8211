package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// loadMarkdown loads a Markdown file of n sections written to a temporary
// folder.
func loadMarkdown(t *testing.T, n int) *Loaded {
	t.Helper()
	var b strings.Builder
	for i := range n {
		b.WriteString("## Part " + strconv.Itoa(i) + "\n\nThe measurements of part " + strconv.Itoa(i) +
			" show that the sample cools slowly. Nothing else happened.\n\n")
	}
	path := filepath.Join(t.TempDir(), "paper.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := NewLoader("").Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Segments) != n {
		t.Fatalf("%d segments, want %d", len(l.Segments), n)
	}
	return l
}

func TestAddQuestions(t *testing.T) {
	l := loadMarkdown(t, 3)
	before := slices.Clone(l.Segments)
	AddQuestions(l, [][]string{
		{"Does the sample cool?", "  ", "How slowly?"},
		nil, // stays a plain passage
		{"What did part 2 show?"},
		{"past the passages: ignored"},
	})
	const p = 3
	want := 3 + (1 + 2) + (1 + 1)
	if len(l.Segments) != want || l.Document.Segments != want {
		t.Fatalf("%d segments (document says %d), want %d", len(l.Segments), l.Document.Segments, want)
	}
	if l.Document.Meta[MetaStrategy] != string(Questions) || l.Document.Meta[MetaPassages] != strconv.Itoa(p) {
		t.Errorf("meta = %v", l.Document.Meta)
	}
	for i, s := range l.Segments {
		if s.Index != i || s.ID != l.Document.ID+":"+strconv.Itoa(i) || s.DocumentID != l.Document.ID {
			t.Errorf("segment %d numbered %d %q", i, s.Index, s.ID)
		}
		if l.Text[s.Start:s.End] != s.Text {
			t.Errorf("segment %d: its text is not the document's at its offsets", i)
		}
		if i < p && s.Parent != "" {
			t.Errorf("passage %d has a parent", i)
		}
		if i >= p && s.Parent == "" {
			t.Errorf("row %d has no parent", i)
		}
	}
	for i := range p {
		if !segEqual(l.Segments[i], before[i]) {
			t.Errorf("passage %d changed: %+v, was %+v", i, l.Segments[i], before[i])
		}
	}
	rows := l.Segments[p:]
	type row struct{ parent, text, index string }
	var got []row
	for _, r := range rows {
		got = append(got, row{r.Parent, r.Text, r.IndexText})
	}
	p0, p2 := before[0], before[2]
	wantRows := []row{
		{p0.ID, p0.Text, ""}, {p0.ID, "", "Does the sample cool?"}, {p0.ID, "", "How slowly?"},
		{p2.ID, p2.Text, ""}, {p2.ID, "", "What did part 2 show?"},
	}
	if !slices.Equal(got, wantRows) {
		t.Errorf("rows = %q\nwant %q", got, wantRows)
	}
	// The mirror keeps the passage's place; a question sits at its start.
	if m := rows[0]; m.Start != p0.Start || m.End != p0.End || !slices.Equal(m.Section, p0.Section) {
		t.Errorf("mirror row %+v does not mirror %+v", m, p0)
	}
	if q := rows[1]; q.Start != p0.Start || q.End != p0.Start || !slices.Equal(q.Section, p0.Section) ||
		q.PageStart != p0.PageStart || q.PageEnd != p0.PageEnd {
		t.Errorf("question row %+v not at its passage's start and section", q)
	}
	if slices.ContainsFunc(l.Segments[:p], func(s store.Segment) bool { return s.ID == "" }) {
		t.Error("a passage lost its id")
	}
}

func TestAddQuestionsNone(t *testing.T) {
	l := loadMarkdown(t, 2)
	before := slices.Clone(l.Segments)
	AddQuestions(l, [][]string{{" "}, nil})
	if len(l.Segments) != 2 || l.Document.Segments != 2 || l.Document.Meta[MetaPassages] != "" ||
		l.Document.Meta[MetaStrategy] != string(Questions) {
		t.Errorf("no questions: %d segments, meta %v", len(l.Segments), l.Document.Meta)
	}
	for i := range before {
		if !segEqual(l.Segments[i], before[i]) {
			t.Errorf("passage %d changed", i)
		}
	}
}

func segEqual(a, b store.Segment) bool {
	return a.ID == b.ID && a.Index == b.Index && a.Text == b.Text && a.IndexText == b.IndexText &&
		a.Parent == b.Parent && slices.Equal(a.Section, b.Section) && a.Start == b.Start && a.End == b.End &&
		a.PageStart == b.PageStart && a.PageEnd == b.PageEnd
}
