package ingest

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/internal/synthtext"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
	"github.com/ibid-dev/ibid/store"
)

// bagEmbed is a deterministic embedder for tests: each lower-cased word
// adds one to one of 64 dimensions, chosen by its hash, so texts that
// share words point the same way.
func bagEmbed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, 64)
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%64]++
		}
		out[i] = v
	}
	return out, nil
}

// topicEmbed encodes a text's topic: how many words it has about cats,
// how many about volcanoes, and a small constant.
func topicEmbed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := []float32{0, 0, 0.1}
		for _, w := range strings.Fields(strings.ToLower(s)) {
			switch strings.Trim(w, ".,") {
			case "cat", "cats", "kitten", "whiskers", "purr", "purrs":
				v[0]++
			case "volcano", "volcanoes", "lava", "magma", "eruption", "ash":
				v[1]++
			}
		}
		out[i] = v
	}
	return out, nil
}

// checkSemantic asserts what MakeSemanticPercentile promises about after,
// made from before with budget: the layout of Loaded with only passages,
// each within budget and one loaded section, ending where sentences end,
// and every non-space byte of before's segments in one of them.
func checkSemantic(t *testing.T, before, after *Loaded, budget int) {
	t.Helper()
	if p := checkLayout(t, after); p != len(after.Segments) {
		t.Fatalf("%d passages of %d segments", p, len(after.Segments))
	}
	if after.Document.Meta[MetaStrategy] != "semantic" {
		t.Errorf("strategy %q", after.Document.Meta[MetaStrategy])
	}
	if after.sections != nil {
		checkSections(t, after.Segments, after.sections)
	}
	covered := make([]bool, len(after.Text))
	for i, s := range after.Segments {
		if n := tokens.Count(s.Text); n > budget {
			t.Errorf("segment %d: %d tokens > %d", i, n, budget)
		}
		for k := s.Start; k < s.End; k++ {
			covered[k] = true
		}
	}
	for _, s := range before.Segments {
		for k := s.Start; k < s.End; k++ {
			if !covered[k] && !unicode.IsSpace(rune(after.Text[k])) && after.Text[k] < utf8.RuneSelf {
				t.Fatalf("byte %d (%q) of chunk %d is in no segment", k, after.Text[max(0, k-20):min(len(after.Text), k+20)], s.Index)
			}
		}
	}
}

func TestSemanticRealDocuments(t *testing.T) {
	for _, path := range realInputs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			l := loadOrSkip(t, path)
			before := cloneLoaded(l)
			if err := MakeSemantic(context.Background(), l, bagEmbed, 0); err != nil {
				t.Fatal(err)
			}
			checkSemantic(t, before, l, DefaultTokenBudget)
			t.Logf("%d recursive chunks → %d semantic", len(before.Segments), len(l.Segments))
			// Semantic segments then hierarchical parents over them.
			mid := cloneLoaded(l)
			MakeHierarchical(l, 0)
			checkHierarchical(t, mid, l, DefaultParentBudget)
		})
	}
}

const cats = "Cats purr when they are content. A kitten learns to purr early. " +
	"Whiskers help a cat judge narrow gaps. Most cats sleep through the afternoon. " +
	"An old cat still chases a kitten's toy."

const volcanoes = "A volcano erupts when magma rises. Lava flows downhill from the vent. " +
	"Ash from an eruption can travel far. Some volcanoes stay quiet for centuries. " +
	"Magma that reaches the surface is called lava."

// loadText loads text as a plain-text file (one section).
func loadText(t *testing.T, text string) *Loaded {
	t.Helper()
	l, err := testLoader(t).LoadBytes(context.Background(), filepath.Join(t.TempDir(), "notes.txt"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestSemanticCutsAtTopicChange(t *testing.T) {
	l := loadText(t, cats+"\n\n"+volcanoes+"\n")
	if len(l.Segments) != 1 {
		t.Fatalf("the recursive chunker made %d segments, want 1 (the test needs both topics in one)", len(l.Segments))
	}
	before := cloneLoaded(l)
	if err := MakeSemantic(context.Background(), l, topicEmbed, 0); err != nil {
		t.Fatal(err)
	}
	checkSemantic(t, before, l, DefaultTokenBudget)
	if len(l.Segments) != 2 || l.Segments[0].Text != cats || l.Segments[1].Text != volcanoes {
		t.Fatalf("segments %q, want the cats, then the volcanoes", segTexts(l))
	}
	// At the 100th percentile nothing is above the breakpoint: one segment.
	l = cloneLoaded(before)
	if err := MakeSemanticPercentile(context.Background(), l, topicEmbed, 0, 100); err != nil {
		t.Fatal(err)
	}
	if len(l.Segments) != 1 {
		t.Errorf("percentile 100: %d segments, want 1", len(l.Segments))
	}
	// Topic changes within one paragraph cut it too.
	l = loadText(t, "Cats purr. A kitten purrs. Lava flows. Magma rises. Ash falls. Cats purr.")
	if err := MakeSemanticPercentile(context.Background(), l, topicEmbed, 0, 50); err != nil {
		t.Fatal(err)
	}
	want := []string{"Cats purr. A kitten purrs.", "Lava flows. Magma rises. Ash falls.", "Cats purr."}
	if got := segTexts(l); !slices.Equal(got, want) {
		t.Errorf("one paragraph, three topics: segments %q, want %q", got, want)
	}
}

func segTexts(l *Loaded) []string {
	var out []string
	for _, s := range l.Segments {
		out = append(out, s.Text)
	}
	return out
}

func TestSemanticBudget(t *testing.T) {
	// Constant vectors: no topic cut, so only the budget cuts, at sentence
	// ends; one sentence is far over budget and is cut into pieces.
	same := func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{1, 2}
		}
		return out, nil
	}
	var b strings.Builder
	for _, s := range synthtext.Segments(30, 4) {
		b.WriteString(capital(s) + ". ")
	}
	b.WriteString("\n\n" + strings.Repeat("unending clause without a stop ", 40) + "\n\n")
	for _, s := range synthtext.Segments(20, 3) {
		b.WriteString(capital(s) + "! ")
	}
	text := b.String()
	l := loadText(t, text)
	before := cloneLoaded(l)
	const budget = 40
	if err := MakeSemantic(context.Background(), l, same, budget); err != nil {
		t.Fatal(err)
	}
	checkSemantic(t, before, l, budget)
	ends := map[int]bool{}
	starts := map[int]bool{}
	long := strings.Index(text, "unending")
	for _, s := range Sentences(text) {
		starts[s.Start], ends[s.End] = true, true
	}
	full := 0
	for i, s := range l.Segments {
		if s.Start >= long && s.Start < long+40*len("unending clause without a stop ") {
			continue // a piece of the long sentence (the last may take more)
		}
		if !starts[s.Start] || !ends[s.End] {
			t.Errorf("segment %d [%d,%d) %q does not start and end with a sentence", i, s.Start, s.End, s.Text)
		}
		if tokens.Count(s.Text) > budget*2/3 {
			full++
		}
	}
	if full < len(l.Segments)/2 {
		t.Errorf("only %d of %d segments are over two thirds full: budget cuts are not packing", full, len(l.Segments))
	}
}

// capital is s with its first letter upper-case, so that a sentence ends
// before it.
func capital(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func TestSemanticKeepsCodeWhole(t *testing.T) {
	// Every text gets its own direction, so the breakpoint falls between
	// most sentences; none may fall inside the fence or a code span.
	each := func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, s := range texts {
			h := fnv.New64a()
			h.Write([]byte(s))
			x := h.Sum64()
			v := make([]float32, 16)
			for k := range v {
				v[k] = float32(int64(x>>(k*4))&15) - 7.5
			}
			out[i] = v
		}
		return out, nil
	}
	text := "# Code\n\nFirst we call `x.Load(). then. y.Save().` in one go. Then more. And more.\n\n" +
		"```go\n// First. Second. Third.\nx := a.b. c()\n\ny := d. e()\n```\n\n" +
		"After the fence. Still after. Done here. One more sentence. And the last."
	l, err := testLoader(t).LoadBytes(context.Background(), filepath.Join(t.TempDir(), "code.md"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	before := cloneLoaded(l)
	if err := MakeSemanticPercentile(context.Background(), l, each, 0, 5); err != nil {
		t.Fatal(err)
	}
	checkSemantic(t, before, l, DefaultTokenBudget)
	if len(l.Segments) < 6 {
		t.Fatalf("segments %q: the embedder should make many cuts", segTexts(l))
	}
	fences := FencedBlocks(l.Text)
	code := append(fences, codeSpans(l.Text, fences)...)
	if len(code) != 2 {
		t.Fatalf("%d code spans, want the fence and one inline span", len(code))
	}
	for _, c := range code {
		c.End = c.Start + len(strings.TrimRightFunc(l.Text[c.Start:c.End], unicode.IsSpace))
		whole := false
		for _, s := range l.Segments {
			whole = whole || s.Start <= c.Start && c.End <= s.End
		}
		if !whole {
			t.Errorf("%q is cut: segments %q", l.Text[c.Start:c.End], segTexts(l))
		}
	}
}

// counting wraps embed, counting calls and texts, and failing calls with
// batches over embedBatch.
func counting(embed Embed, calls, texts *atomic.Int64) Embed {
	return func(ctx context.Context, in []string) ([][]float32, error) {
		calls.Add(1)
		texts.Add(int64(len(in)))
		if len(in) > embedBatch || len(in) == 0 {
			return nil, errors.New("bad batch size")
		}
		return embed(ctx, in)
	}
}

// longText is prose of n sentences.
func longText(n int) string {
	var b strings.Builder
	for i, s := range synthtext.Segments(n, 10) {
		b.WriteString(capital(s) + ".")
		if i%6 == 5 {
			b.WriteString("\n\n")
		} else {
			b.WriteString(" ")
		}
	}
	return b.String()
}

func TestSemanticBatches(t *testing.T) {
	l := loadText(t, longText(600))
	var calls, texts atomic.Int64
	if err := MakeSemantic(context.Background(), l, counting(bagEmbed, &calls, &texts), 0); err != nil {
		t.Fatal(err)
	}
	n := len(Sentences(l.Text))
	if texts.Load() != int64(n) || calls.Load() != int64((n+embedBatch-1)/embedBatch) {
		t.Errorf("%d calls for %d texts; want every one of %d sentences embedded once, %d per call", calls.Load(), texts.Load(), n, embedBatch)
	}
}

func TestSemanticErrorsLeaveLoadedUnchanged(t *testing.T) {
	fixed := func(vecs ...[]float32) Embed {
		return func(_ context.Context, texts []string) ([][]float32, error) {
			out := make([][]float32, len(texts))
			for i := range out {
				out[i] = vecs[i%len(vecs)]
			}
			return out, nil
		}
	}
	short := func(ctx context.Context, texts []string) ([][]float32, error) {
		v, err := bagEmbed(ctx, texts)
		return v[:len(v)-1], err
	}
	failing := func(context.Context, []string) ([][]float32, error) {
		return nil, errors.New("server said 503")
	}
	text := cats + "\n\n" + volcanoes
	hier := loadText(t, text)
	MakeHierarchical(hier, 0)
	for _, c := range []struct {
		name       string
		l          *Loaded
		embed      Embed
		percentile float64
		want       string
	}{
		{"embedder fails", loadText(t, text), failing, 95, "503"},
		{"too few vectors", loadText(t, text), short, 95, "9 vectors for 10"},
		{"dimensions differ", loadText(t, text), fixed([]float32{1, 2}, []float32{1, 2, 3}), 95, "dimensions"},
		{"empty vector", loadText(t, text), fixed([]float32{}), 95, "empty vector"},
		{"not a number", loadText(t, text), fixed([]float32{1, float32(math.NaN())}), 95, "not a number"},
		{"no embedder", loadText(t, text), nil, 95, "no embedder"},
		{"percentile 0", loadText(t, text), bagEmbed, 0, "percentile"},
		{"percentile 101", loadText(t, text), bagEmbed, 101, "percentile"},
		{"index rows", hier, bagEmbed, 95, "index rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := cloneLoaded(c.l)
			err := MakeSemanticPercentile(context.Background(), c.l, c.embed, 0, c.percentile)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one that says %q", err, c.want)
			}
			if !reflect.DeepEqual(c.l, want) {
				t.Error("the Loaded changed")
			}
		})
	}
}

func TestSemanticCancellation(t *testing.T) {
	l := loadText(t, longText(600))
	want := cloneLoaded(l)
	ctx, cancel := context.WithCancel(context.Background())
	var calls, texts atomic.Int64
	embed := counting(func(ctx context.Context, in []string) ([][]float32, error) {
		cancel() // the user gives up during the first batch, which succeeds
		return bagEmbed(ctx, in)
	}, &calls, &texts)
	if err := MakeSemantic(ctx, l, embed, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if calls.Load() != 1 {
		t.Errorf("%d calls after cancelling, want 1", calls.Load())
	}
	if !reflect.DeepEqual(l, want) {
		t.Error("the Loaded changed")
	}
	// Cancelled before: no call at all.
	calls.Store(0)
	if err := MakeSemantic(ctx, l, embed, 0); !errors.Is(err, context.Canceled) || calls.Load() != 0 {
		t.Errorf("cancelled context: err %v after %d calls", err, calls.Load())
	}
}

func TestPercentileOf(t *testing.T) {
	xs := []float64{4, 1, 3, 2, 5} // sorted: 1 2 3 4 5
	for _, c := range []struct{ p, want float64 }{{100, 5}, {50, 3}, {95, 4.8}, {10, 1.4}} {
		if got := percentileOf(xs, c.p); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("percentileOf(%v) = %v, want %v (numpy's)", c.p, got, c.want)
		}
	}
	if xs[0] != 4 {
		t.Error("percentileOf sorted its input")
	}
}

// BenchmarkMakeSemantic re-chunks a document of 5,000 sentences (about
// 400 KB) with the bag-of-words embedder: the chunker's own cost, without
// a server's (16 ms, 26 MB/s on the 2-core test machine).
func BenchmarkMakeSemantic(b *testing.B) {
	ld, err := testLoader(b).LoadBytes(context.Background(), "long.txt", []byte(longText(5000)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(ld.Text)))
	for b.Loop() {
		l := cloneLoaded(ld)
		if err := MakeSemantic(context.Background(), l, bagEmbed, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSemanticByHandKeepsSectionPaths(t *testing.T) {
	// A Loaded built without Load's sections, two sections on one line:
	// runs of equal Section paths are the sections, and neither run takes
	// the other's text.
	text := "Cats purr. A kitten purrs. Lava flows."
	l := &Loaded{Document: store.Document{ID: "d", Segments: 2}, Text: text, Segments: []store.Segment{
		{ID: "d:0", DocumentID: "d", Index: 0, Text: text[:26], Start: 0, End: 26, Section: []string{"Cats"}},
		{ID: "d:1", DocumentID: "d", Index: 1, Text: text[27:], Start: 27, End: len(text), Section: []string{"Lava"}},
	}}
	before := cloneLoaded(l)
	if err := MakeSemanticPercentile(context.Background(), l, topicEmbed, 0, 1); err != nil {
		t.Fatal(err)
	}
	checkSemantic(t, before, l, DefaultTokenBudget)
	want := []string{"Cats purr. A kitten purrs.", "Lava flows."}
	if got := segTexts(l); !slices.Equal(got, want) || l.Segments[1].Section[0] != "Lava" {
		t.Errorf("segments %q in %q, want %q", got, l.Segments[1].Section, want)
	}
}
