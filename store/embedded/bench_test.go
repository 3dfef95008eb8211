package embedded

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/philippgille/chromem-go"

	"github.com/ibid-dev/ibid/store"
)

// The benchmark library: 100,000 segments of dimension 768 with about 1,200
// bytes of text each (roughly 300 tokens), in 1,000 documents. It is
// generated once per test binary run, with a fixed seed, into a temporary
// folder that TestMain removes, or into $IBID_STORE_BENCH_DIR, kept.
const (
	benchDocs   = 1000
	benchPerDoc = 100
	benchDim    = 768
	benchText   = 1200
)

var benchInfo = store.Info{Embedder: "bench", Dimension: benchDim}

var bench struct {
	once sync.Once
	tmp  string
	dir  string
	err  error

	openOnce sync.Once
	s        *Store
	raw      *chromem.Collection
	queries  [][]float32
}

func cleanupBench() {
	if bench.s != nil {
		bench.s.Close()
	}
	if bench.tmp != "" {
		os.RemoveAll(bench.tmp)
	}
}

// benchLibrary returns the folder of the benchmark library, generating it
// on first use.
func benchLibrary(b *testing.B) string {
	bench.once.Do(func() {
		if keep := os.Getenv("IBID_STORE_BENCH_DIR"); keep != "" {
			// A library kept between runs, generated on the first.
			bench.dir = keep
			if _, _, ok, _ := readManifest(keep); ok {
				return
			}
		} else {
			bench.tmp, bench.err = os.MkdirTemp("", "ibid-store-bench-")
			if bench.err != nil {
				return
			}
			bench.dir = filepath.Join(bench.tmp, "library")
		}
		start := time.Now()
		bench.err = generate(bench.dir, benchDocs, benchPerDoc, benchDim, benchText)
		fmt.Fprintf(os.Stderr, "generated %d×%d library in %v\n", benchDocs*benchPerDoc, benchDim, time.Since(start).Round(time.Millisecond))
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.dir
}

// generate writes a library of random normalised vectors and random text,
// fifty documents per commit.
func generate(dir string, docs, perDoc, dim, textLen int) error {
	s, err := mustOpenB(dir, store.Info{Embedder: "bench", Dimension: dim})
	if err != nil {
		return err
	}
	defer s.Close()
	return fill(s, docs, perDoc, dim, textLen)
}

// fill puts docs documents of perDoc segments of random normalised
// vectors and random text into s, fifty documents per commit.
func fill(s *Store, docs, perDoc, dim, textLen int) error {
	r := rand.New(rand.NewPCG(1, 2))
	pool := textPool(r, 1<<16)
	const batch = 50
	for start := 0; start < docs; start += batch {
		var puts []store.Put
		for d := start; d < min(start+batch, docs); d++ {
			id := fmt.Sprintf("doc%05d", d)
			doc := store.Document{ID: id, Path: "/bench/" + id + ".pdf", Hash: id, Format: "pdf", Title: "Document " + id}
			segs := make([]store.Segment, perDoc)
			vecs := make([]float32, perDoc*dim)
			for j := range vecs {
				vecs[j] = r.Float32()*2 - 1
			}
			for i := range segs {
				off := r.IntN(len(pool) - textLen)
				segs[i] = store.Segment{ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i,
					Text: pool[off : off+textLen], Section: []string{"Results", "Table " + strconv.Itoa(i%7)},
					PageStart: i/3 + 1, PageEnd: i/3 + 1, Start: i * textLen, End: (i + 1) * textLen,
					Vector: vecs[i*dim : (i+1)*dim]}
			}
			puts = append(puts, store.Put{Document: doc, Segments: segs})
		}
		if err := s.Update(context.Background(), puts, nil); err != nil {
			return err
		}
	}
	return nil
}

func textPool(r *rand.Rand, n int) string {
	words := strings.Fields("the of a in results method we model data learning evidence cell protein " +
		"analysis sample effect significant observed measured baseline treatment cohort ratio " +
		"variance estimate néanmoins données 研究 结果")
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString(words[r.IntN(len(words))])
		sb.WriteByte(' ')
	}
	return sb.String()
}

func dataBytes(b *testing.B, dir string) int64 {
	var total int64
	for _, name := range []string{logName(1), vectorName(1)} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		total += st.Size()
	}
	return total
}

// BenchmarkOpen opens the 100k×768 library until it can answer dense
// queries (warm page cache). Before timing, it measures one open in a fresh
// child process, warm and cold (the library's pages dropped from the cache
// with posix_fadvise, Linux only), and reports the child's peak RSS against
// the size of the library's files.
func BenchmarkOpen(b *testing.B) {
	dir := benchLibrary(b)
	data := dataBytes(b, dir)
	b.ReportMetric(float64(data)/1e6, "data-MB")
	for _, cold := range []bool{true, false} { // cold first: right after generation a warm read is slower
		m, err := measureChild(dir, cold)
		if err != nil {
			b.Fatal(err)
		}
		name := "warm"
		if cold {
			if !m.cold {
				continue
			}
			name = "cold"
		}
		b.ReportMetric(float64(m.open.Milliseconds()), name+"-open-ms")
		b.ReportMetric(float64(m.vmHWM)/1e6, name+"-peakRSS-MB")
		b.ReportMetric(float64(m.vmHWM)/float64(data), name+"-peakRSS/data")
		fmt.Fprintf(os.Stderr, "open (%s, fresh process): %v; peak RSS %.0f MB for %.0f MB of data (%.2f×); Go heap %.0f MB\n",
			name, m.open.Round(time.Millisecond), float64(m.vmHWM)/1e6, float64(data)/1e6, float64(m.vmHWM)/float64(data), float64(m.heapSys)/1e6)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := mustOpenB(dir, benchInfo)
		if err != nil {
			b.Fatal(err)
		}
		if n, _ := s.Len(context.Background()); n != benchDocs*benchPerDoc {
			b.Fatalf("Len = %d", n)
		}
		s.Close()
	}
}

type measurement struct {
	open           time.Duration
	vmHWM, heapSys int64
	cold           bool
}

// measureChild runs TestMeasureOpenChild in a new process and parses what it
// prints.
func measureChild(dir string, cold bool) (measurement, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestMeasureOpenChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "IBID_STORE_MEASURE_DIR="+dir)
	if cold {
		cmd.Env = append(cmd.Env, "IBID_STORE_MEASURE_COLD=1")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return measurement{}, fmt.Errorf("measuring child: %v\n%s", err, out)
	}
	var m measurement
	var ns int64
	for line := range strings.Lines(string(out)) {
		if rest, ok := strings.CutPrefix(line, "measure "); ok {
			var c int
			if _, err := fmt.Sscanf(rest, "open_ns=%d vmhwm=%d heapsys=%d cold=%d", &ns, &m.vmHWM, &m.heapSys, &c); err != nil {
				return m, fmt.Errorf("measuring child printed %q: %v", line, err)
			}
			m.open, m.cold = time.Duration(ns), c == 1
			return m, nil
		}
	}
	return m, fmt.Errorf("measuring child printed no figures:\n%s", out)
}

// TestMeasureOpenChild opens the library named by IBID_STORE_MEASURE_DIR,
// answers one query, and prints the time and the process's peak memory. It
// is run by BenchmarkOpen in a fresh process; on its own it does nothing.
func TestMeasureOpenChild(t *testing.T) {
	dir := os.Getenv("IBID_STORE_MEASURE_DIR")
	if dir == "" {
		t.Skip("run by BenchmarkOpen")
	}
	cold := 0
	if os.Getenv("IBID_STORE_MEASURE_COLD") == "1" && dropCache(dir) {
		cold = 1
	}
	start := time.Now()
	s, err := OpenDir(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := make([]float32, s.Info().Dimension)
	q[0] = 1
	hits, err := s.Dense(context.Background(), q, 10, store.Filter{})
	if err == nil && len(hits) == 10 {
		hits, err = s.Keyword(context.Background(), "protein cohort", 10, store.Filter{})
	}
	if err != nil || len(hits) != 10 {
		t.Fatalf("query: %d hits, %v", len(hits), err)
	}
	took := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("measure open_ns=%d vmhwm=%d heapsys=%d cold=%d\n", took.Nanoseconds(), vmHWM(t), ms.HeapSys, cold)
	s.Close()
}

// vmHWM is the process's peak resident set size in bytes, from
// /proc/self/status (0 where there is none).
func vmHWM(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM: %q", line)
			}
			return kb * 1024
		}
	}
	return 0
}

// openBench opens the benchmark library once, and fills a raw chromem-go
// collection with the very same vectors for comparison.
func openBench(b *testing.B) {
	dir := benchLibrary(b)
	bench.openOnce.Do(func() {
		s, err := mustOpenB(dir, benchInfo)
		if err != nil {
			bench.err = err
			return
		}
		bench.s = s
		raw, err := chromem.NewDB().CreateCollection("raw", nil, nil)
		if err != nil {
			bench.err = err
			return
		}
		ctx := context.Background()
		for _, e := range s.docs {
			vecs, err := s.Vectors(ctx, e.doc.ID)
			if err != nil {
				bench.err = err
				return
			}
			for i := range e.segs {
				err := raw.AddDocument(ctx, chromem.Document{ID: e.segs[i].ID, Embedding: vecs[i]})
				if err != nil {
					bench.err = err
					return
				}
			}
		}
		bench.raw = raw
		r := rand.New(rand.NewPCG(3, 4))
		for range 16 {
			q := make([]float32, benchDim)
			for j := range q {
				q[j] = r.Float32()*2 - 1
			}
			store.Normalize(q)
			bench.queries = append(bench.queries, q)
		}
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
}

// BenchmarkQuery is a top-10 dense query through the store.
func BenchmarkQuery(b *testing.B) {
	openBench(b)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		hits, err := bench.s.Dense(ctx, bench.queries[i%len(bench.queries)], 10, store.Filter{})
		if err != nil || len(hits) != 10 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
		i++
	}
}

// BenchmarkChromemQuery is the same query on a plain chromem-go collection
// holding the same vectors: the baseline for BenchmarkQuery.
func BenchmarkChromemQuery(b *testing.B) {
	openBench(b)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		res, err := bench.raw.QueryEmbedding(ctx, bench.queries[i%len(bench.queries)], 10, nil, nil)
		if err != nil || len(res) != 10 {
			b.Fatalf("%d results, %v", len(res), err)
		}
		i++
	}
}

// BenchmarkQueryFiltered is a top-10 query restricted to a tenth of the
// documents (the exact scan).
func BenchmarkQueryFiltered(b *testing.B) {
	openBench(b)
	ctx := context.Background()
	filter := store.Filter{Documents: []string{"*7.pdf"}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		hits, err := bench.s.Dense(ctx, bench.queries[i%len(bench.queries)], 10, filter)
		if err != nil || len(hits) != 10 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
		i++
	}
}

// BenchmarkKeyword is a keyword query of three words through the store.
func BenchmarkKeyword(b *testing.B) {
	openBench(b)
	ctx := context.Background()
	queries := []string{"protein cohort evidence", "treatment ratio variance", "研究 结果", "baseline measured sample"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		hits, err := bench.s.Keyword(ctx, queries[i%len(queries)], 10, store.Filter{})
		if err != nil || len(hits) != 10 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
		i++
	}
}

// mustOpenB opens (creating) the library in dir.
func mustOpenB(dir string, info store.Info) (*Store, error) {
	return OpenDir(context.Background(), dir, store.Options{Info: info, Create: true})
}

// BenchmarkPutDocument adds documents of 100 segments of dimension 768, one
// commit each.
func BenchmarkPutDocument(b *testing.B) {
	s, err := mustOpenB(b.TempDir(), benchInfo)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(5, 6))
	pool := textPool(r, 1<<14)
	ctx := context.Background()
	b.ReportAllocs()
	d := 0
	for b.Loop() {
		id := "d" + strconv.Itoa(d)
		segs := make([]store.Segment, 100)
		for i := range segs {
			v := make([]float32, benchDim)
			for j := range v {
				v[j] = r.Float32()*2 - 1
			}
			segs[i] = store.Segment{ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i, Text: pool[:benchText], Vector: v}
		}
		if err := s.Update(ctx, []store.Put{{Document: store.Document{ID: id}, Segments: segs}}, nil); err != nil {
			b.Fatal(err)
		}
		d++
	}
	b.ReportMetric(float64(d*100)/b.Elapsed().Seconds(), "segments/s")
}

// BenchmarkAddSmall adds a document of three segments to a library of
// 100,000 segments (1,000 documents; dimension 64, the dense index's upkeep
// does not depend on it), one commit each: in a folder (where the commit's
// syncs weigh most) and in memory (where the linking in does).
func BenchmarkAddSmall(b *testing.B) {
	const dim = 64
	info := store.Info{Embedder: "bench", Dimension: dim}
	for _, where := range []string{"memory", "folder"} {
		b.Run(where, func(b *testing.B) {
			var s *Store
			var err error
			if where == "memory" {
				s, err = NewMemory(info)
			} else {
				s, err = mustOpenB(b.TempDir(), info)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := fill(s, 1000, 100, dim, 200); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			d := 0
			b.ReportAllocs()
			for b.Loop() {
				id := "small" + strconv.Itoa(d)
				segs := make([]store.Segment, 3)
				for i := range segs {
					segs[i] = store.Segment{ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i, Text: "a small note " + id,
						Vector: vec(id, i, dim)}
				}
				if err := s.Update(ctx, []store.Put{{Document: store.Document{ID: id}, Segments: segs}}, nil); err != nil {
					b.Fatal(err)
				}
				d++
			}
		})
	}
}
