//go:build unix

// Command storebench measures the embedded store at several sizes: it
// builds libraries of clustered vectors (package synthvec) and synthetic
// prose (package synthtext), or reuses those it built before, then opens
// each in a fresh process and prints how long the open took (wall clock
// and CPU), the process's peak resident memory, the median and 95th
// percentile of top-10 dense and keyword queries, and the recall@10 of
// dense search against an exact scan of every vector.
//
//	go run ./store/embedded/storebench -sizes 100k,300k,1M -dir /tmp/ibid-storebench
//
// Sizes and folder may also come from IBID_STOREBENCH_SIZES and
// IBID_STOREBENCH_DIR. A library of 1M segments of dimension 768 takes
// about 4.4 GB of disk (3 GB of vectors); building it needs about as much
// memory as opening it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/internal/cputime"
	"github.com/ibid-dev/ibid/internal/synthtext"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/embedded"
	"github.com/ibid-dev/ibid/store/internal/synthvec"
)

const (
	perDoc   = 100  // segments per document
	batch    = 50   // documents per commit
	textPool = 8192 // distinct texts, reused: memory stays small at any size
	clusters = 1000
	seed     = 1
)

// openDone ends what measures the open (a CPU profile).
var openDone = func() {}

// result is what a measuring child prints, one JSON line.
type result struct {
	Segments   int     `json:"segments"`
	OpenMS     float64 `json:"open_ms"`
	OpenCPUMS  float64 `json:"open_cpu_ms"`
	PeakRSSMB  float64 `json:"peak_rss_mb"`
	DataMB     float64 `json:"data_mb"`
	DenseP50   float64 `json:"dense_p50_ms"`
	DenseP95   float64 `json:"dense_p95_ms"`
	KeywordP50 float64 `json:"keyword_p50_ms"`
	KeywordP95 float64 `json:"keyword_p95_ms"`
	Recall     float64 `json:"recall_at_10"`
}

func main() {
	sizes := flag.String("sizes", env("IBID_STOREBENCH_SIZES", "100k,300k"), "library sizes in segments, comma-separated (k and M suffixes)")
	dir := flag.String("dir", env("IBID_STOREBENCH_DIR", filepath.Join(os.TempDir(), "ibid-storebench")), "folder of the libraries (kept between runs)")
	dim := flag.Int("dim", 768, "vector dimension")
	queries := flag.Int("queries", 200, "queries of each kind")
	recallQueries := flag.Int("recall-queries", 50, "queries whose recall@10 is measured against an exact scan")
	measure := flag.String("measure", "", "internal: measure the library in this folder (run in a fresh process)")
	profile := flag.String("cpuprofile", "", "with -measure: write a CPU profile of the open to this file")
	flag.Parse()
	if *measure != "" {
		if *profile != "" {
			f, err := os.Create(*profile)
			if err != nil {
				fmt.Fprintln(os.Stderr, "storebench:", err)
				os.Exit(1)
			}
			pprof.StartCPUProfile(f)
			openDone = pprof.StopCPUProfile
		}
		if err := measureLibrary(*measure, *dim, *queries, *recallQueries); err != nil {
			fmt.Fprintln(os.Stderr, "storebench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*sizes, *dir, *dim, *queries, *recallQueries); err != nil {
		fmt.Fprintln(os.Stderr, "storebench:", err)
		os.Exit(1)
	}
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func parseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1000, s[:len(s)-1]
	case strings.HasSuffix(s, "M"), strings.HasSuffix(s, "m"):
		mult, s = 1_000_000, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q: want a number of segments such as 100k or 1M", s)
	}
	return n * mult, nil
}

func run(sizes, dir string, dim, queries, recallQueries int) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Printf("%d cores (GOMAXPROCS %d); dimension %d; %d queries of each kind, recall over %d\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), dim, queries, recallQueries)
	fmt.Printf("%10s %9s %10s %10s %10s %12s %12s %12s %12s %9s\n",
		"segments", "data MB", "open ms", "open CPU", "peak RSS", "dense p50", "dense p95", "keyword p50", "keyword p95", "recall@10")
	for _, s := range strings.Split(sizes, ",") {
		n, err := parseSize(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		lib := filepath.Join(dir, fmt.Sprintf("lib-%d-%d", n, dim))
		if err := build(lib, n, dim); err != nil {
			return err
		}
		var r result
		for try := range 2 { // the first open after building may find the page cache cold
			cmd := exec.Command(exe, "-measure", lib, "-dim", strconv.Itoa(dim),
				"-queries", strconv.Itoa(queries), "-recall-queries", strconv.Itoa(recallQueries))
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				return fmt.Errorf("measuring %s: %w", lib, err)
			}
			if err := json.Unmarshal(out, &r); err != nil {
				return fmt.Errorf("measuring %s printed %q: %w", lib, out, err)
			}
			if try == 0 {
				continue
			}
		}
		fmt.Printf("%10d %9.0f %10.0f %10.0f %8.0f MB %9.2f ms %9.2f ms %9.2f ms %9.2f ms %9.4f\n",
			r.Segments, r.DataMB, r.OpenMS, r.OpenCPUMS, r.PeakRSSMB, r.DenseP50, r.DenseP95, r.KeywordP50, r.KeywordP95, r.Recall)
	}
	return nil
}

// build makes the library of n segments in lib unless it is there.
func build(lib string, n, dim int) error {
	info := store.Info{Embedder: "storebench", Dimension: dim}
	ctx := context.Background()
	if s, err := embedded.OpenDir(ctx, lib, store.Options{ReadOnly: true}); err == nil {
		have, err := s.Len(ctx)
		s.Close()
		if err == nil && have == n {
			return nil
		}
		return fmt.Errorf("%s holds %d segments, not %d: remove it to build it again", lib, have, n)
	}
	start := time.Now()
	fmt.Fprintf(os.Stderr, "building %s (%d segments)...\n", lib, n)
	s, err := embedded.OpenDir(ctx, lib, store.Options{Info: info, Create: true})
	if err != nil {
		return err
	}
	defer s.Close()
	texts := synthtext.Segments(textPool, 180) // about 1,200 bytes each
	sp := synthvec.New(seed, dim, clusters)
	var puts []store.Put
	for d := 0; d*perDoc < n; d++ {
		puts = append(puts, benchPut(d, min(perDoc, n-d*perDoc), dim, sp, texts))
		if len(puts) == batch || (d+1)*perDoc >= n {
			if err := s.Update(ctx, puts, nil); err != nil {
				return err
			}
			puts = puts[:0]
			if done := min(n, (d+1)*perDoc); done%100_000 == 0 || done == n {
				fmt.Fprintf(os.Stderr, "  %d segments, %v\n", done, time.Since(start).Round(time.Second))
			}
		}
	}
	return nil
}

// benchPut is document d of the library: count segments whose vectors,
// the next ones of sp, lie in a block of their own. (The documents of a
// batch once shared one block, so that Update stored the batch's last
// document's vectors fifty times: every vector had 49 copies, more than
// the 4×10 candidates of a top-10 query, and a query whose two best
// distinct vectors the codes ordered the wrong way lost all ten.)
func benchPut(d, count, dim int, sp *synthvec.Space, texts []string) store.Put {
	id := fmt.Sprintf("doc%07d", d)
	doc := store.Document{ID: id, Path: "/bench/" + id + ".pdf", Format: "pdf", Title: "Document " + id}
	vecs := make([]float32, count*dim)
	segs := make([]store.Segment, count)
	for i := range segs {
		v := vecs[i*dim : (i+1)*dim : (i+1)*dim]
		sp.Fill(v)
		k := (d*perDoc + i) * 7919 % len(texts)
		segs[i] = store.Segment{ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i, Text: texts[k],
			Section: []string{"Results", "Table " + strconv.Itoa(i%7)}, PageStart: i/3 + 1, PageEnd: i/3 + 1,
			Start: i * 1200, End: (i + 1) * 1200, Vector: v}
	}
	return store.Put{Document: doc, Segments: segs}
}

// measureLibrary is the fresh process: open, queries, peak memory, then
// recall against an exact scan.
func measureLibrary(lib string, dim, queries, recallQueries int) error {
	ctx := context.Background()
	var r result
	for _, pat := range []string{"segments-*.log", "vectors-*.f32", "codes-*.q8", "snapshot-*", "bm25.idx"} {
		names, _ := filepath.Glob(filepath.Join(lib, pat))
		for _, name := range names {
			if fi, err := os.Stat(name); err == nil {
				r.DataMB += float64(fi.Size()) / 1e6
			}
		}
	}
	cpu0 := cputime.Process()
	start := time.Now()
	s, err := embedded.OpenDir(ctx, lib, store.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Damage(); err != nil {
		return err
	}
	r.OpenMS = ms(time.Since(start))
	r.OpenCPUMS = ms(cputime.Process() - cpu0)
	openDone()
	if r.Segments, err = s.Len(ctx); err != nil {
		return err
	}

	qs := synthvec.New(seed, dim, clusters).Fork(99)
	qvecs := make([][]float32, queries)
	var lat []time.Duration
	for i := range qvecs {
		qvecs[i] = qs.Vector()
		t := time.Now()
		if _, err := s.Dense(ctx, qvecs[i], 10, store.Filter{}); err != nil {
			return err
		}
		lat = append(lat, time.Since(t))
	}
	r.DenseP50, r.DenseP95 = pct(lat, 0.5), pct(lat, 0.95)

	texts := synthtext.Segments(textPool, 180)
	rng := rand.New(rand.NewPCG(7, 7))
	lat = lat[:0]
	for range queries {
		words := strings.Fields(texts[rng.IntN(len(texts))])
		j := rng.IntN(len(words) - 4)
		t := time.Now()
		if _, err := s.Keyword(ctx, strings.Join(words[j:j+4], " "), 10, store.Filter{}); err != nil {
			return err
		}
		lat = append(lat, time.Since(t))
	}
	r.KeywordP50, r.KeywordP95 = pct(lat, 0.5), pct(lat, 0.95)
	r.PeakRSSMB = float64(peakRSS()) / 1e6

	r.Recall, err = recall(ctx, s, qvecs[:min(recallQueries, len(qvecs))])
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// recall is the share of the exact top 10 that Dense returns, the exact
// answer found by scoring every vector of the library (read a document at
// a time).
func recall(ctx context.Context, s *embedded.Store, qs [][]float32) (float64, error) {
	type hit struct {
		id    string
		score float32
	}
	better := func(a, b hit) bool { return a.score > b.score || a.score == b.score && a.id < b.id }
	best := make([][]hit, len(qs))
	docs, err := s.Documents(ctx)
	if err != nil {
		return 0, err
	}
	for _, doc := range docs {
		vecs, err := s.Vectors(ctx, doc.ID)
		if err != nil {
			return 0, err
		}
		segs, err := s.Segments(ctx, doc.ID, 0, -1)
		if err != nil {
			return 0, err
		}
		for i, v := range vecs {
			if !slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
				continue
			}
			for q, qv := range qs {
				h := hit{segs[i].ID, dot(qv, v)}
				b := best[q]
				if len(b) == 10 && !better(h, b[9]) {
					continue
				}
				b = append(b, h)
				slices.SortFunc(b, func(x, y hit) int {
					if better(x, y) {
						return -1
					}
					return 1
				})
				best[q] = b[:min(len(b), 10)]
			}
		}
	}
	found, total := 0, 0
	for q, qv := range qs {
		got, err := s.Dense(ctx, qv, 10, store.Filter{})
		if err != nil {
			return 0, err
		}
		want := map[string]bool{}
		for _, h := range best[q] {
			want[h.id] = true
		}
		for _, h := range got {
			if want[h.Segment.ID] {
				found++
			}
		}
		total += len(best[q])
	}
	return float64(found) / float64(max(total, 1)), nil
}

// dot is the similarity of a query (normalised here) and a stored vector
// (normalised by the store), as the store computes it.
func dot(q, v []float32) float32 {
	var qq float64
	for _, x := range q {
		qq += float64(x) * float64(x)
	}
	n := float32(1 / math.Sqrt(qq))
	var sum float32
	for i := range q {
		sum += q[i] * n * v[i]
	}
	return sum
}

func pct(d []time.Duration, p float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return ms(s[min(len(s)-1, int(float64(len(s))*p))])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// peakRSS is the process's peak resident set size in bytes (VmHWM; 0 where
// /proc is missing).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
