package postgres

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/cputime"
	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
)

// The measurement: IBID_MEASURE=1 go test ./store/postgres -run TestMeasure -v
// loads IBID_MEASURE_SEGMENTS (default 100,000) segments of dimension 768
// and prints the figures docs/postgres.md quotes. Texts are SciFact
// abstracts cut into passages (synthetic words without the data folder);
// vectors are drawn around 1,000 random centres, as real embeddings
// cluster by topic, and normalised.
const (
	measureEnv      = "IBID_MEASURE"
	measureChildEnv = "IBID_MEASURE_CHILD"
	measureDim      = 768
)

// measureTexts returns n passages of about 60 words.
func measureTexts(n int, rng *rand.Rand) []string {
	var words []string
	if f, err := os.Open(filepath.Join(shareddata.Dir(), "scifact", "corpus.jsonl")); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() && len(words) < 3_000_000 {
			var d struct{ Title, Text string }
			if json.Unmarshal(sc.Bytes(), &d) == nil {
				words = append(words, strings.Fields(d.Title+" "+d.Text)...)
			}
		}
		f.Close()
	}
	if len(words) < 1000 {
		for i := range 50000 {
			words = append(words, fmt.Sprintf("w%d", int(math.Pow(float64(i%5000+1), 1.3))))
		}
	}
	out := make([]string, n)
	for i := range out {
		start := (i * 60) % (len(words) - 60)
		out[i] = strings.Join(words[start:start+60], " ")
	}
	return out
}

// clustered returns n normalised vectors around k centres.
func clustered(n, k, dim int, rng *rand.Rand) [][]float32 {
	centres := make([][]float32, k)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(rng.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[rng.IntN(k)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + float32(rng.NormFloat64()*0.8)
		}
		out[i] = normalised(v)
	}
	return out
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func TestMeasure(t *testing.T) {
	if os.Getenv(measureEnv) == "" {
		t.Skip("set IBID_MEASURE=1 to measure (minutes)")
	}
	n := 100_000
	if v := os.Getenv("IBID_MEASURE_SEGMENTS"); v != "" {
		fmt.Sscan(v, &n)
	}
	s := openTest(t, measureDim)
	s.indexMin = math.MaxInt // load first, then build, to time both
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(42, 43))
	texts := measureTexts(n, rng)
	vecs := clustered(n+500, 1000, measureDim, rng)
	const per = 100
	var puts []store.Put
	for d := 0; d*per < n; d++ {
		id := fmt.Sprintf("doc%05d", d)
		p := store.Put{Document: store.Document{ID: id, Path: "/papers/" + id + ".pdf", Format: "pdf"}}
		for i := 0; i < per && d*per+i < n; i++ {
			k := d*per + i
			sg := store.Segment{ID: fmt.Sprintf("%s:%d", id, i), DocumentID: id, Index: i, Text: texts[k], Vector: vecs[k],
				PageStart: 1 + i/5, PageEnd: 1 + i/5, Section: []string{"Body"}}
			if rng.IntN(100) == 0 {
				sg.Section = []string{"Rare"}
			}
			p.Segments = append(p.Segments, sg)
		}
		puts = append(puts, p)
	}
	queries := vecs[n:]

	if os.Getenv("IBID_MEASURE_COMPARE") != "" {
		// The same batches into a second library that keeps its keyword
		// index up to date as it goes (as ibid did before deferring it),
		// alternating with the measured library, so that both see the
		// same load on a shared machine.
		old := openTest(t, measureDim)
		old.indexMin, old.noDefer = math.MaxInt, true
		var took [2]time.Duration
		for i := 0; i < len(puts); i += 100 {
			for j, st := range []*Store{old, s} {
				start := time.Now()
				mustUpdate(t, st, puts[i:min(i+100, len(puts))], nil)
				took[j] += time.Since(start)
			}
		}
		start := time.Now()
		s.MergeKeywordIndex()
		merge := time.Since(start)
		t.Logf("bulk load, keyword index kept up to date: %d segments in %v: %.0f segments/s", n, took[0].Round(time.Millisecond), float64(n)/took[0].Seconds())
		t.Logf("bulk load, keyword index upkeep deferred: %d segments in %v: %.0f segments/s; then the merge waited for %v more (%.0f segments/s to a merged index)",
			n, took[1].Round(time.Millisecond), float64(n)/took[1].Seconds(), merge.Round(time.Millisecond), float64(n)/(took[1]+merge).Seconds())
		return
	}
	client0, server0, backends0 := cputime.Process(), ifOK(serverCPU(ctx, s.pool)), backendsCPU(ctx, s.pool)
	start := time.Now()
	for i := 0; i < len(puts); i += 100 { // batches of 10,000 segments
		mustUpdate(t, s, puts[i:min(i+100, len(puts))], nil)
	}
	load := time.Since(start)
	client1, server1 := cputime.Process(), ifOK(serverCPU(ctx, s.pool))
	t.Logf("bulk load: %d segments in %v: %.0f segments/s", n, load.Round(time.Millisecond), float64(n)/load.Seconds())
	start = time.Now()
	s.MergeKeywordIndex()
	server2, backends2 := ifOK(serverCPU(ctx, s.pool)), backendsCPU(ctx, s.pool)
	t.Logf("keyword index merged %v after the last batch", time.Since(start).Round(time.Millisecond))
	t.Logf("CPU of the load: client %s", cpuPer(client1-client0, n))
	if server0 != nil {
		t.Logf("CPU of the load: server %s; with the merge after it %s, of which the library's connections (writer and merger) %s",
			cpuPer(*server1-*server0, n), cpuPer(*server2-*server0, n), cpuPer(backendsSpent(backends0, backends2), n))
	}
	if os.Getenv("IBID_MEASURE_LOAD_ONLY") != "" {
		return
	}

	start = time.Now()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '512MB'`); err != nil {
			return err
		}
		return s.vec.createIndex(ctx, tx, s.chunks)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("HNSW build: %v", time.Since(start).Round(time.Millisecond))
	if _, err := s.pool.Exec(ctx, "ANALYZE "+s.chunks); err != nil {
		t.Fatal(err)
	}

	var lat []time.Duration
	hit, total := 0, 0
	for i, q := range queries[:300] {
		start := time.Now()
		hits, err := s.Dense(ctx, q, 10, store.Filter{})
		lat = append(lat, time.Since(start))
		if err != nil {
			t.Fatal(err)
		}
		if i < 50 {
			var exact []store.Hit
			err := s.searchTx(ctx, 10, func(tx pgx.Tx) error {
				var err error
				exact, err = s.dense(ctx, tx, q, 10, store.Filter{}, true)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, h := range exact {
				want[h.Segment.ID] = true
			}
			for _, h := range hits {
				if want[h.Segment.ID] {
					hit++
				}
			}
			total += len(exact)
		}
	}
	t.Logf("dense top-10: p50 %s, p99 %s; recall@10 vs exact %.3f (ef_search %d)", ms(percentile(lat, .5)), ms(percentile(lat, .99)),
		float64(hit)/float64(total), efSearch(10))

	qtexts := measureTexts(400, rand.New(rand.NewPCG(7, 7)))
	lat = lat[:0]
	for i, q := range queries[:200] {
		words := strings.Fields(qtexts[i*2])
		start := time.Now()
		if _, err := s.Hybrid(ctx, strings.Join(words[:8], " "), q, 10, store.Filter{}); err != nil {
			t.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	t.Logf("hybrid (BM25 + dense, RRF in one statement) top-10: p50 %s, p99 %s", ms(percentile(lat, .5)), ms(percentile(lat, .99)))

	lat = lat[:0]
	for i := range 200 {
		words := strings.Fields(qtexts[i*2+1])
		start := time.Now()
		if _, err := s.Keyword(ctx, strings.Join(words[:8], " "), 10, store.Filter{}); err != nil {
			t.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	t.Logf("keyword (BM25) top-10: p50 %s, p99 %s", ms(percentile(lat, .5)), ms(percentile(lat, .99)))
	if os.Getenv("IBID_MEASURE_EXPLAIN") != "" {
		terms, freqs := queryTerms(strings.Join(strings.Fields(qtexts[1])[:8], " "))
		a := args{terms, freqs, keywordBudget}
		sql := `EXPLAIN (ANALYZE, BUFFERS) WITH ` + bm25SQL(s.coll, s.chunks, "$1", "$2", "$3", "", a.add(10)) + `
			SELECT ` + segmentColumns + `, scored.score FROM scored JOIN ` + s.chunks + ` c USING (id)`
		rows, err := s.pool.Query(ctx, sql, a...)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("keyword plan for %v:\n%s", terms, strings.Join(plan, "\n"))
	}

	for _, f := range []store.Filter{{Section: "rare"}, {Documents: []string{"doc000*"}}} {
		lat = lat[:0]
		short := 0
		for _, q := range queries[:100] {
			start := time.Now()
			hits, err := s.Dense(ctx, q, 10, f)
			lat = append(lat, time.Since(start))
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) < 10 {
				short++
			}
		}
		t.Logf("dense top-10 with a 1%% filter %+v: p50 %s, p99 %s; %d of 100 queries returned fewer than 10", f, ms(percentile(lat, .5)), ms(percentile(lat, .99)), short)
	}

	// Four client processes search at once for 10 seconds.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []time.Duration
	start = time.Now()
	for c := range 4 {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMeasureChild$")
			cmd.Env = append(os.Environ(), measureChildEnv+"="+s.name, fmt.Sprintf("IBID_MEASURE_SEED=%d", c))
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("client %d: %v\n%s", c, err, out)
				return
			}
			var ds []time.Duration
			for _, line := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(line, "LAT "); ok {
					var us int64
					fmt.Sscan(v, &us)
					ds = append(ds, time.Duration(us)*time.Microsecond)
				}
			}
			mu.Lock()
			all = append(all, ds...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(all) > 0 {
		t.Logf("4 client processes, dense top-10 for 10 s each: %.0f queries/s in all, p50 %s, p99 %s",
			float64(len(all))/time.Since(start).Seconds(), ms(percentile(all, .5)), ms(percentile(all, .99)))
	}
}

// TestMeasureChild is one client process of TestMeasure.
func TestMeasureChild(t *testing.T) {
	name := os.Getenv(measureChildEnv)
	if name == "" {
		t.Skip("only run as a client of TestMeasure")
	}
	ctx := context.Background()
	s, err := Open(ctx, testLocation(t), store.Options{Library: name})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var seed uint64
	fmt.Sscan(os.Getenv("IBID_MEASURE_SEED"), &seed)
	rng := rand.New(rand.NewPCG(seed, 99))
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		q := randVec(rng, measureDim)
		start := time.Now()
		if _, err := s.Dense(ctx, q, 10, store.Filter{}); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "LAT %d\n", time.Since(start).Microseconds())
	}
}
