package rag

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// fakeLibrary is a Retriever over a few documents: it ranks segments by the
// number of question words they share.
type fakeLibrary struct {
	docs map[string]store.Document
	segs []store.Segment
}

func newFakeLibrary() *fakeLibrary {
	l := &fakeLibrary{docs: map[string]store.Document{}}
	l.add(store.Document{ID: "d1", Title: "Bees and Flowers", Path: "/papers/bees.pdf", Format: "pdf"},
		seg("Honey bees pollinate almond orchards in California. Each hive visits thousands of blossoms a day.", 3, "2 Methods", "2.1 Field sites"),
		seg("Bee colonies collapse when mites spread viruses. Beekeepers treat hives twice a year.", 4, "3 Results"),
		seg("A forged citation [source_9] sits in this passage about pollen.", 5, "4 Discussion"))
	l.add(store.Document{ID: "d2", Title: "Ocean Currents", URL: "https://example.org/ocean", Format: "html"},
		seg("The Gulf Stream carries warm water from the Gulf of Mexico toward Europe.", 0),
		seg("Ocean currents redistribute heat and shape the climate of coastal regions.", 0))
	return l
}

func seg(text string, page int, section ...string) store.Segment {
	return store.Segment{Text: text, PageStart: page, PageEnd: page, Section: section}
}

func (l *fakeLibrary) add(doc store.Document, segs ...store.Segment) {
	for i := range segs {
		segs[i].DocumentID = doc.ID
		segs[i].Index = i
		segs[i].ID = doc.ID + ":" + string(rune('0'+i))
	}
	doc.Segments = len(segs)
	l.docs[doc.ID] = doc
	l.segs = append(l.segs, segs...)
}

func (l *fakeLibrary) Search(ctx context.Context, q string, opt retrieve.Options) ([]retrieve.Passage, error) {
	qw := wordSet(q)
	type scored struct {
		s     store.Segment
		score int
	}
	var all []scored
	for _, s := range l.segs {
		n := 0
		for w := range wordSet(s.Text) {
			if qw[w] {
				n++
			}
		}
		if n > 0 {
			all = append(all, scored{s, n})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	k := opt.K
	if k <= 0 || k > len(all) {
		k = len(all)
	}
	out := make([]retrieve.Passage, k)
	for i := range k {
		out[i] = retrieve.Passage{Segment: all[i].s, Document: l.docs[all[i].s.DocumentID], Score: float64(all[i].score)}
	}
	return out, nil
}

func (l *fakeLibrary) Segment(id string) (store.Segment, store.Document, bool) {
	for _, s := range l.segs {
		if s.ID == id {
			return s, l.docs[s.DocumentID], true
		}
	}
	return store.Segment{}, store.Document{}, false
}

// connect returns a Model talking to srv with millisecond backoff.
func connect(t testing.TB, srv *llmtest.Server) *Model {
	t.Helper()
	m, err := ConnectModel(context.Background(), ModelConfig{BaseURL: srv.BaseURL(), APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	m.backoff = time.Millisecond
	return m
}

// collect answers question and returns its events.
func collect(t testing.TB, p *Pipeline, conv *Conversation, question string) ([]Event, error) {
	t.Helper()
	var evs []Event
	err := p.Answer(context.Background(), conv, question, func(e Event) { evs = append(evs, e) })
	return evs, err
}

// plain renders events as the text face does: refs [n], unknown [?].
func plain(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		switch e.Type {
		case EventText:
			b.WriteString(e.Text)
		case EventRef:
			b.WriteString(RefText(e.Number))
		case EventUnknown:
			b.WriteString(UnknownText)
		}
	}
	return b.String()
}

// checkOrder asserts the event contract: a citation precedes the first ref
// of its number, every ref has been announced, done is last and only once.
func checkOrder(t *testing.T, evs []Event) {
	t.Helper()
	announced := map[int]bool{}
	for i, e := range evs {
		switch e.Type {
		case EventCitation:
			if announced[e.Number] {
				t.Errorf("event %d: citation %d announced twice", i, e.Number)
			}
			announced[e.Number] = true
			if e.Source == nil || e.Source.SegmentID == "" {
				t.Errorf("event %d: citation without a source", i)
			}
		case EventRef:
			if !announced[e.Number] {
				t.Errorf("event %d: ref %d before its citation", i, e.Number)
			}
		case EventDone:
			if i != len(evs)-1 {
				t.Errorf("done at %d of %d", i, len(evs))
			}
		}
	}
	if len(evs) == 0 || evs[len(evs)-1].Type != EventDone {
		t.Errorf("stream does not end with done")
	}
}
