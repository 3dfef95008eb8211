package ui

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag"
)

// benchAnswer builds an answer of about words words with a fixed seed:
// headings, paragraphs, lists, a table and reference nodes.
func benchAnswer(words int) []rag.Event {
	rng := rand.New(rand.NewSource(int64(words)))
	vocab := strings.Fields("the method measures effect sample cohort results suggest that variance across sites remains small while larger studies confirm robust estimates under several assumptions although one analysis disagrees")
	var evs []rag.Event
	text := func(s string) {
		for len(s) > 0 { // 5-character chunks, as a slow model streams
			n := min(5, len(s))
			evs = append(evs, rag.Event{Type: rag.EventText, Text: s[:n]})
			s = s[n:]
		}
	}
	cited := 0
	ref := func() {
		n := rng.Intn(cited+1) + 1
		if n > cited {
			cited++
			n = cited
			evs = append(evs, rag.Event{Type: rag.EventCitation, Number: n, Source: &rag.Source{Number: n, Title: fmt.Sprintf("Paper %d", n), SegmentID: fmt.Sprintf("d%d:0", n)}})
		}
		evs = append(evs, rag.Event{Type: rag.EventRef, Number: n})
	}
	w := 0
	for w < words {
		switch rng.Intn(8) {
		case 0:
			text(fmt.Sprintf("## Section %d\n\n", w))
		case 1:
			for i := 0; i < 3; i++ {
				text("- " + vocab[rng.Intn(len(vocab))] + " " + vocab[rng.Intn(len(vocab))] + " ")
				ref()
				text("\n")
				w += 3
			}
			text("\n")
		default:
			for i, n := 0, 40+rng.Intn(60); i < n; i++ {
				text(vocab[rng.Intn(len(vocab))])
				if rng.Intn(12) == 0 {
					text(" ")
					ref()
				}
				if i < n-1 {
					text(" ")
				}
				w++
			}
			text(".\n\n")
		}
	}
	return append(evs, rag.Event{Type: rag.EventDone, Total: cited})
}

// BenchmarkStreamRender streams answers of 2,000 and 10,000 words in
// 5-character chunks, drawing a frame (the transcript's View) after every
// chunk. render-ratio is the total time spent drawing the frames divided
// by the time of one render of the finished answer from scratch (all
// blocks through glamour); glamour-ratio is the same for the bytes handed
// to glamour. ns/frame is the mean cost of a frame.
func BenchmarkStreamRender(b *testing.B) {
	for _, words := range []int{2000, 10000} {
		b.Run(fmt.Sprintf("words=%d", words), func(b *testing.B) {
			evs := benchAnswer(words)
			var ratio, gratio, perFrame, lastFrames float64
			b.ReportAllocs()
			for b.Loop() {
				c := &Common{Styles: NewStyles(true), Keys: DefaultKeyMap()}
				tr := newTranscript(c)
				tr.SetSize(100, 40)
				tu := &turn{question: "q", streaming: true}
				tr.turns = append(tr.turns, tu)
				var spent time.Duration
				frames := 0
				var lastSpent time.Duration // the last tenth of the frames
				for i, e := range evs {
					if e.Type == rag.EventCitation {
						tu.sources = append(tu.sources, *e.Source)
						continue
					}
					if e.Type == rag.EventDone {
						tu.streaming = false
						tu.doc.finish()
					} else {
						tu.doc.applyEvent(e)
					}
					start := time.Now()
					_ = tr.View()
					d := time.Since(start)
					spent += d
					frames++
					if i >= len(evs)*9/10 {
						lastSpent += d
					}
				}
				streamBytes := tr.r.Bytes
				// one full render of the finished answer, from scratch; the
				// fastest of three, so the ratio errs on the high side
				var one time.Duration
				var full *transcript
				for range 3 {
					full = newTranscript(c)
					full.SetSize(100, 40)
					full.turns = []*turn{tu}
					for i := range tu.doc.blocks {
						tu.doc.blocks[i].width = 0
					}
					start := time.Now()
					_ = full.View()
					if d := time.Since(start); one == 0 || d < one {
						one = d
					}
				}
				ratio = float64(spent) / float64(one)
				gratio = float64(streamBytes) / float64(full.r.Bytes)
				perFrame = float64(spent.Nanoseconds()) / float64(frames)
				lastFrames = float64(lastSpent.Nanoseconds()) / float64(frames/10)
			}
			b.ReportMetric(ratio, "render-ratio")
			b.ReportMetric(gratio, "glamour-ratio")
			b.ReportMetric(perFrame, "ns/frame")
			b.ReportMetric(lastFrames, "ns/late-frame")
		})
	}
}

// BenchmarkLongConversation measures the cost of a frame while an answer
// streams after 50 finished answers of 2,000 words, against the same
// answer streaming as the first of its conversation: frame-ratio is the
// first divided by the second (goal: at most 1.2, finished answers being
// drawn from their cache and a new turn drawing only itself). Both ask as
// the chat does (transcript.begin), then stream the first 600 chunks of a
// 2,000-word answer with a frame after each, the first frame included.
//
// The two are measured in turns, each iteration a pair, and the means are
// over all iterations; the garbage of building the 50 answers (all at once
// here, over an afternoon in the chat) is collected before the frames, so
// that a collection it set off is not billed to them.
//
//	go test ./ui -run '^$' -bench LongConversation -benchtime 10x
func BenchmarkLongConversation(b *testing.B) {
	finished := benchAnswer(2000)
	next := benchAnswer(2001)
	frame := func(prior int) (time.Duration, int) {
		c := &Common{Styles: NewStyles(true), Keys: DefaultKeyMap()}
		tr := newTranscript(c)
		tr.SetSize(100, 40)
		for range prior {
			tr.begin("q", 0)
			for _, e := range finished {
				if e.Type == rag.EventDone {
					tr.end(nil)
				} else {
					tr.apply(e)
				}
			}
		}
		_ = tr.View() // the finished answers are drawn once, then cached
		runtime.GC()
		tr.begin("q", 0)
		var spent time.Duration
		frames := 0
		for _, e := range next[:min(600, len(next))] {
			tr.apply(e)
			if e.Type == rag.EventCitation {
				continue
			}
			start := time.Now()
			_ = tr.View()
			spent += time.Since(start)
			frames++
		}
		return spent, frames
	}
	var long, short time.Duration
	var nLong, nShort int
	for b.Loop() {
		d, n := frame(50)
		long, nLong = long+d, nLong+n
		d, n = frame(0)
		short, nShort = short+d, nShort+n
	}
	perLong := float64(long.Nanoseconds()) / float64(nLong)
	perShort := float64(short.Nanoseconds()) / float64(nShort)
	b.ReportMetric(perLong, "ns/frame-after-50")
	b.ReportMetric(perShort, "ns/frame-first")
	b.ReportMetric(perLong/perShort, "frame-ratio")
}
