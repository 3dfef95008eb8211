package retrieve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
)

// BEIR is a retrieval test collection in BEIR's format: corpus.jsonl
// ({"_id","title","text"} a line), queries.jsonl ({"_id","text"}) and
// qrels.tsv (query-id, corpus-id, score, with a header line; also found as
// qrels/test.tsv).
type BEIR struct {
	Corpus  []BEIRDoc
	Queries []BEIRQuery
	Qrels   map[string]map[string]int // query id → doc id → graded relevance
}

// BEIRDoc is one corpus document.
type BEIRDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// BEIRQuery is one query.
type BEIRQuery struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// ReadBEIR reads a BEIR folder. Only queries with at least one judgment
// are kept, in file order.
func ReadBEIR(dir string) (*BEIR, error) {
	b := &BEIR{Qrels: map[string]map[string]int{}}
	qrels := filepath.Join(dir, "qrels.tsv")
	if _, err := os.Stat(qrels); errors.Is(err, os.ErrNotExist) {
		qrels = filepath.Join(dir, "qrels", "test.tsv")
	}
	if err := readLines(qrels, func(n int, line string) error {
		f := strings.Split(line, "\t")
		if n == 1 && len(f) >= 3 {
			if _, err := strconv.Atoi(strings.TrimSpace(f[len(f)-1])); err != nil {
				return nil // header
			}
		}
		if len(f) != 3 {
			return fmt.Errorf("want 3 tab-separated fields, have %d", len(f))
		}
		g, err := strconv.Atoi(strings.TrimSpace(f[2]))
		if err != nil {
			return fmt.Errorf("bad score %q", f[2])
		}
		q := strings.TrimSpace(f[0])
		if b.Qrels[q] == nil {
			b.Qrels[q] = map[string]int{}
		}
		b.Qrels[q][strings.TrimSpace(f[1])] = g
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readLines(filepath.Join(dir, "corpus.jsonl"), func(_ int, line string) error {
		var d BEIRDoc
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			return err
		}
		b.Corpus = append(b.Corpus, d)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readLines(filepath.Join(dir, "queries.jsonl"), func(_ int, line string) error {
		var q BEIRQuery
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return err
		}
		if len(b.Qrels[q.ID]) > 0 {
			b.Queries = append(b.Queries, q)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return b, nil
}

func readLines(path string, fn func(n int, line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("couldn't read BEIR folder: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := fn(n, line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("couldn't read %s: %w", path, err)
	}
	return nil
}

// NDCG is nDCG@k of a ranking with trec_eval's semantics: gain is the
// graded relevance (rel/log2(rank+1), linear gains), the ideal ranking
// sorts all judged-relevant documents by grade, and a ranking without a
// relevant document scores 0.
func NDCG(ranked []string, rel map[string]int, k int) float64 {
	var dcg float64
	for i, id := range ranked[:min(k, len(ranked))] {
		if g := rel[id]; g > 0 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	var grades []int
	for _, g := range rel {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	slices.Sort(grades)
	slices.Reverse(grades)
	var idcg float64
	for i, g := range grades[:min(k, len(grades))] {
		idcg += float64(g) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// Recall is Recall@k: the share of the judged-relevant documents found in
// the first k of ranked (0 when none is judged relevant).
func Recall(ranked []string, rel map[string]int, k int) float64 {
	relevant := 0
	for _, g := range rel {
		if g > 0 {
			relevant++
		}
	}
	if relevant == 0 {
		return 0
	}
	found := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if rel[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(relevant)
}

// Scores are a retrieval run's means over the queries with judgments.
type Scores struct {
	NDCG10 float64 // nDCG@10
	Recall float64 // Recall@depth
}

// Evaluate searches st with emb for every query of b in mode, depth
// passages deep and without neighbours, and returns the mean nDCG@10 and
// Recall@depth. The store's documents are b's (document id = BEIR _id, as
// Load puts them); as in BEIR, a hit whose document id equals the query's
// id is dropped.
func Evaluate(ctx context.Context, st store.Store, emb Embedder, b *BEIR, mode Mode, depth int) (Scores, error) {
	var s Scores
	if len(b.Queries) == 0 {
		return s, errors.New("no query has a judgment")
	}
	for _, q := range b.Queries {
		ps, err := Search(ctx, st, emb, q.Text, Options{K: depth, Neighbours: -1, Mode: mode})
		if err != nil {
			return s, err
		}
		ranked := make([]string, 0, len(ps))
		for _, p := range ps {
			if p.Document.ID != q.ID {
				ranked = append(ranked, p.Document.ID)
			}
		}
		s.NDCG10 += NDCG(ranked, b.Qrels[q.ID], 10)
		s.Recall += Recall(ranked, b.Qrels[q.ID], depth)
	}
	s.NDCG10 /= float64(len(b.Queries))
	s.Recall /= float64(len(b.Queries))
	return s, nil
}

// BM25 parameters of the embedded store's keyword index (for `ibid eval`'s
// flags; embedded.Store.SetBM25 tunes them).
const (
	DefaultK1 = keyword.DefaultK1
	DefaultB  = keyword.DefaultB
)

// Load puts b's corpus into st, one document of one segment per BEIR
// document (title and text as one field, document id = BEIR _id), with
// vectors[i] for document i (nil vectors: a constant vector each, for
// keyword-only runs in a store of dimension 1), in batches of 1,024.
func Load(ctx context.Context, st store.Store, b *BEIR, vectors [][]float32) error {
	const batch = 1024
	for start := 0; start < len(b.Corpus); start += batch {
		end := min(start+batch, len(b.Corpus))
		puts := make([]store.Put, 0, end-start)
		for i := start; i < end; i++ {
			d := b.Corpus[i]
			text := CorpusText(d)
			v := []float32{1}
			if vectors != nil {
				v = vectors[i]
			}
			seg := store.Segment{ID: d.ID + ":0", DocumentID: d.ID, Text: text, End: len(text), Vector: v}
			puts = append(puts, store.Put{Document: store.Document{ID: d.ID, Path: d.ID, Title: d.Title, Format: store.FormatText, Segments: 1},
				Segments: []store.Segment{seg}})
		}
		if err := st.Update(ctx, puts, nil); err != nil {
			return fmt.Errorf("couldn't load the BEIR corpus: %w", err)
		}
	}
	return nil
}

// CorpusText is the text of a BEIR document as Load indexes it: title and
// text as one field.
func CorpusText(d BEIRDoc) string { return d.Title + "\n" + d.Text }
