package ingest

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/store"
)

// AddQuestions indexes l's passages by the questions written for them
// (the Questions strategy): questions[i] belongs to passage i, the i-th
// segment of l (the passages are the segments before the first one with
// Parent set; entries past them are ignored, blank questions skipped).
//
// Each passage with at least one question becomes a parent: after the
// passages (and any index rows l already had), in passage order, come one
// index row that mirrors it (same Text, Start, End, Section, pages and
// boxes, so its own words still find it) and one row per question (Text
// "", IndexText the question, Start == End == the passage's Start, same
// Section and pages, no boxes), all with Parent = the passage's ID. A passage
// without questions stays a plain searchable passage. Rows are numbered on
// from the passages (ID == Document.ID + ":" + Index); Document.Segments,
// Meta[MetaStrategy] (Questions) and, when there are index rows,
// Meta[MetaPassages] are set. Passages themselves are not changed.
func AddQuestions(l *Loaded, questions [][]string) {
	p := passagesBeforeRows(l.Segments)
	var rows []store.Segment
	for i := 0; i < p && i < len(questions); i++ {
		var qs []string
		for _, q := range questions[i] {
			if q = strings.TrimSpace(q); q != "" {
				qs = append(qs, q)
			}
		}
		if len(qs) == 0 {
			continue
		}
		parent := l.Segments[i]
		mirror := parent
		mirror.IndexText, mirror.Parent, mirror.Vector = "", parent.ID, nil
		mirror.Section, mirror.Boxes = slices.Clone(parent.Section), slices.Clone(parent.Boxes)
		rows = append(rows, mirror)
		for _, q := range qs {
			rows = append(rows, store.Segment{DocumentID: parent.DocumentID, IndexText: q, Parent: parent.ID,
				Section: slices.Clone(parent.Section), PageStart: parent.PageStart, PageEnd: parent.PageEnd,
				Start: parent.Start, End: parent.Start})
		}
	}
	l.Segments = append(l.Segments, rows...)
	for i := p; i < len(l.Segments); i++ {
		l.Segments[i].Index = i
		l.Segments[i].ID = l.Document.ID + ":" + strconv.Itoa(i)
	}
	l.Document.Segments = len(l.Segments)
	if l.Document.Meta == nil {
		l.Document.Meta = map[string]string{}
	}
	l.Document.Meta[MetaStrategy] = string(Questions)
	if len(l.Segments) > p {
		l.Document.Meta[MetaPassages] = strconv.Itoa(p)
	}
}

// passagesBeforeRows is the number of passages of segs: the segments before the
// first index row.
func passagesBeforeRows(segs []store.Segment) int {
	for i, s := range segs {
		if s.Parent != "" {
			return i
		}
	}
	return len(segs)
}
