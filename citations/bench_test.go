package citations

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// mixedAnswer builds a deterministic answer of about size bytes, shaped
// like real ones: paragraphs of English prose citing about once per 100
// bytes (the density of the ALCE answers) with single and multi-id tokens
// and a markdown link now and then; about a quarter of the bytes CJK
// (Chinese and Japanese with full-width punctuation, cited with 【】);
// an inline code span per ~2 KB and a fenced block per ~10 KB, both
// holding token-like text that must stay text.
func mixedAnswer(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	prose := []string{
		"Honey bees pollinate almonds and many other crops across the valley",
		"Varroa mites weaken colonies during the winter months",
		"The 2019 survey counted losses in 38 states, see [the report](https://example.org/r)",
		"Researchers measured foraging distance with radio tags",
		"Colony collapse remains poorly understood, although several causes are known",
	}
	cjk := []string{
		"蜜蜂为杏树授粉，也为许多其他作物授粉。",
		"瓦螨在冬季削弱蜂群、尤其是在北方。",
		"研究人员用无线电标签测量觅食距离（见附录）。",
		"ミツバチは多くの作物を受粉させる。",
	}
	src := func() string { return strconv.Itoa(1 + rng.IntN(30)) }
	var b bytes.Buffer
	for b.Len() < size {
		switch r := rng.IntN(100); {
		case r < 70:
			b.WriteString(prose[rng.IntN(len(prose))])
			switch rng.IntN(3) {
			case 0:
				b.WriteString(" [source_" + src() + ", source_" + src() + "]. ")
			default:
				b.WriteString(" [source_" + src() + "]. ")
			}
		case r < 94:
			b.WriteString(cjk[rng.IntN(len(cjk))])
			if rng.IntN(2) == 0 {
				b.WriteString("【source_" + src() + "】")
			}
		case r < 97:
			b.WriteString("\n\n")
		case r < 99:
			b.WriteString("Run `bees --count [source_1]` to count. ")
		default:
			b.WriteString("\n```\nfor b in hive: print(b)  # [source_2]\n```\n")
		}
	}
	return b.Bytes()
}

var (
	benchOnce sync.Once
	benchText []byte
)

func benchAnswer() []byte {
	benchOnce.Do(func() { benchText = mixedAnswer(10 << 20) })
	return benchText
}

var benchSizes = []int{4, 4096}

// BenchmarkRenumber feeds the 10 MB answer in chunks of 4 and 4096 bytes.
func BenchmarkRenumber(b *testing.B) {
	text := benchAnswer()
	for _, size := range benchSizes {
		b.Run("chunk="+strconv.Itoa(size), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var n int
			h := func(e Event) { n += len(e.Text) }
			for b.Loop() {
				r := NewRenumberer(h, Options{})
				for i := 0; i < len(text); i += size {
					r.Write(text[i:min(i+size, len(text))])
				}
				r.Flush()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64((len(text)+size-1)/size), "ns/chunk")
		})
	}
}

// BenchmarkFindBaseline is the floor the engine is measured against: per
// chunk, find every '[' (bytes.IndexByte from each one to the next) and
// append the chunk to an output buffer. Finding only the first '[' would
// measure a memory copy, not a scan.
func BenchmarkFindBaseline(b *testing.B) {
	text := benchAnswer()
	for _, size := range benchSizes {
		b.Run("chunk="+strconv.Itoa(size), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			out := make([]byte, 0, len(text))
			found := 0
			for b.Loop() {
				out = out[:0]
				for i := 0; i < len(text); i += size {
					chunk := text[i:min(i+size, len(text))]
					for j := 0; j < len(chunk); {
						k := bytes.IndexByte(chunk[j:], '[')
						if k < 0 {
							break
						}
						found++
						j += k + 1
					}
					out = append(out, chunk...)
				}
			}
			if found == 0 {
				b.Fatal("no '[' found in the answer")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64((len(text)+size-1)/size), "ns/chunk")
		})
	}
}

// BenchmarkManyIDs reads a sections answer whose one section lists n
// distinct ids, and a json answer declaring n: the time per id must not
// grow with n (it did, quadratically, before the ids were kept in sets).
func BenchmarkManyIDs(b *testing.B) {
	for _, n := range []int{1000, 8000} {
		var sec, dec strings.Builder
		for i := range n {
			if i > 0 {
				sec.WriteByte(',')
				dec.WriteByte(',')
			}
			sec.WriteString(`"source_` + strconv.Itoa(i+1) + `"`)
			dec.WriteString(strconv.Itoa(i + 1))
		}
		answers := map[Mode][]byte{
			ModeSections: []byte(`{"sections": [{"text": "Bees.", "source_ids": [` + sec.String() + `]}]}`),
			ModeJSON:     []byte(`{"body": "Bees [source_1].", "citedSourceIds": [` + dec.String() + `]}`),
		}
		for _, mode := range []Mode{ModeSections, ModeJSON} {
			b.Run(mode.String()+"/ids="+strconv.Itoa(n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					s := NewStream(mode, func(Event) {}, Options{})
					s.Write(answers[mode])
					s.Flush()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/id")
			})
		}
	}
}

// TestNoAllocPerChunk checks that, once every source has been seen,
// writing chunks allocates nothing.
func TestNoAllocPerChunk(t *testing.T) {
	text := mixedAnswer(64 << 10)
	for _, size := range benchSizes {
		r := NewRenumberer(func(Event) {}, Options{Registry: NewRegistry()})
		r.Write(text) // warm up: every source numbered, buffers grown
		allocs := testing.AllocsPerRun(20, func() {
			for i := 0; i < len(text); i += size {
				r.Write(text[i:min(i+size, len(text))])
			}
		})
		if allocs != 0 {
			t.Errorf("chunk=%d: %.1f allocations per pass over %d bytes, want 0", size, allocs, len(text))
		}
	}
	if !strings.Contains(string(text), "【source_") {
		t.Error("the mixed answer has no lenticular tokens")
	}
}
