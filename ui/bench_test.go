package ui

import (
	"fmt"
	"math/rand"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
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
				c := &common{Styles: newStyles(true), Keys: defaultKeyMap()}
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
// the chat does (transcript.begin), then stream the whole 2,000-word
// answer with a frame after each chunk, the first frame included.
//
// The garbage of building the 50 answers (all at once here, over an
// afternoon in the chat) is collected before the frames. The collector's
// share of a frame is its work per cycle spread over the frames of a
// cycle: the means are over whole cycles (from the end of the first
// collection during the frames to the end of the last), so that each case
// is billed the collections its frames set off, neither a cycle's pause
// without its frames nor a cycle's frames without its pause. (Timed from
// before the frames, the long case, whose cycles are as long as its heap
// is large, met no collection at all and the short one met one.) When a
// case sees fewer than two collections the mean is over all its frames.
//
// heap-MB is the live heap after the 50 answers; B/frame the size of a
// frame, so that both are seen to draw a full window.
//
//	go test ./ui -run '^$' -bench LongConversation -benchtime 4x
func BenchmarkLongConversation(b *testing.B) {
	finished := benchAnswer(2000)
	next := benchAnswer(2001)
	gcs := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	cycles := func() uint64 { metrics.Read(gcs); return gcs[0].Value.Uint64() }
	type result struct {
		spent         time.Duration // over whole cycles, or all frames
		frames, bytes int
		heap          uint64
		cycles        int
	}
	frame := func(prior int) result {
		c := &common{Styles: newStyles(true), Keys: defaultKeyMap()}
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
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		tr.begin("q", 0)
		var all, atFirst, atLast time.Duration
		var frames, fFirst, fLast, bytes int
		start0 := cycles()
		seen := start0
		for _, e := range next {
			if e.Type == rag.EventDone {
				break
			}
			tr.apply(e)
			if e.Type == rag.EventCitation {
				continue
			}
			start := time.Now()
			v := tr.View()
			all += time.Since(start)
			frames++
			bytes += len(v)
			if n := cycles(); n != seen { // a collection ended since the last frame
				if seen == start0 {
					atFirst, fFirst = all, frames
				}
				seen, atLast, fLast = n, all, frames
			}
		}
		r := result{spent: all, frames: frames, bytes: bytes / frames, heap: ms.HeapAlloc, cycles: int(seen - start0)}
		if seen-start0 >= 2 {
			r.spent, r.frames = atLast-atFirst, fLast-fFirst
		}
		return r
	}
	var long, short time.Duration
	var nLong, nShort, bLong, bShort, cLong, cShort int
	var heap uint64
	for b.Loop() {
		r := frame(50)
		long, nLong, bLong, cLong, heap = long+r.spent, nLong+r.frames, r.bytes, cLong+r.cycles, r.heap
		r = frame(0)
		short, nShort, bShort, cShort = short+r.spent, nShort+r.frames, r.bytes, cShort+r.cycles
	}
	perLong := float64(long.Nanoseconds()) / float64(nLong)
	perShort := float64(short.Nanoseconds()) / float64(nShort)
	b.ReportMetric(perLong, "ns/frame-after-50")
	b.ReportMetric(perShort, "ns/frame-first")
	b.ReportMetric(perLong/perShort, "frame-ratio")
	b.ReportMetric(float64(heap)/1e6, "heap-MB-after-50")
	b.ReportMetric(float64(bLong), "B/frame-after-50")
	b.ReportMetric(float64(bShort), "B/frame-first")
	b.ReportMetric(float64(cLong)/float64(b.N), "gcs-after-50")
	b.ReportMetric(float64(cShort)/float64(b.N), "gcs-first")
}

// BenchmarkFrame draws the whole screen (Model.render) at 160×40, a
// frame per message, as the program draws them: "streaming" while an
// answer of 2,000 words streams in 5-character chunks (the box keeps its
// view), "typing" while a question is typed under a finished answer (the
// box is drawn again each key). ns/op is a frame.
func BenchmarkFrame(b *testing.B) {
	b.Run("streaming", func(b *testing.B) {
		evs := benchAnswer(2000)
		d := newDrive(&testing.T{}, newFakeBackend(sampleAnswer), 160, 40)
		m := d.m
		begin := func() {
			m.req++
			m.tr.turns = append(m.tr.turns[:0], &turn{question: "q", streaming: true, req: m.req})
			m.tr.redraw(0)
			m.stream = &answerStream{req: m.req}
		}
		begin()
		b.ResetTimer()
		for i := range b.N {
			e := evs[i%len(evs)]
			if e.Type == rag.EventDone {
				begin()
				continue
			}
			m.Update(streamMsg{req: m.req, events: []rag.Event{e}})
			_ = m.render()
		}
	})
	b.Run("typing", func(b *testing.B) {
		d := newDrive(&testing.T{}, newFakeBackend(sampleAnswer), 160, 40)
		d.typeText("does the effect hold across sites?")
		d.send(press("enter"))
		keys := []rune("and across samples of different sizes, too? ")
		b.ResetTimer()
		for i := range b.N {
			if i%len(keys) == 0 {
				d.m.in.SetValue("") // a question of a line at most
			}
			r := keys[i%len(keys)]
			d.deliver(tea.KeyPressMsg{Code: r, Text: string(r)})
			_ = d.m.render()
		}
	})
}
