package eval

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// This file measures retrieval on a BEIR folder the fast way: each corpus
// document one segment of a store in memory (or of a temporary library
// in --store), searched by BM25, dense and hybrid retrieval.

// readBEIR reads the BEIR folder dir, which must judge some query.
func readBEIR(dir string) (*retrieve.BEIR, error) {
	data, err := retrieve.ReadBEIR(dir)
	if err != nil {
		return nil, err
	}
	if len(data.Queries) == 0 {
		return nil, fmt.Errorf("%s has no query with a judgment", dir)
	}
	return data, nil
}

type result struct {
	name         string
	ndcg, recall float64 // means over the queries with judgments
}

// measureBEIR runs the evaluation of cfg on the BEIR folder dir.
func measureBEIR(ctx context.Context, dir string, cfg config) ([]result, error) {
	logf := cfg.logf
	data, err := readBEIR(dir)
	if err != nil {
		return nil, err
	}
	logf("%s: %d documents, %d queries with judgments\n", dir, len(data.Corpus), len(data.Queries))

	tty := false
	if f, ok := cfg.progress.(*os.File); ok {
		tty = term.IsTerminal(f.Fd())
	}
	needDense := false
	for _, m := range cfg.modes {
		needDense = needDense || m != retrieve.Lexical
	}
	emb := &cachedEmbedder{Embedder: cfg.emb, cache: map[string][]float32{}}
	dim := 1
	if needDense {
		vs, err := cfg.emb.Embed(ctx, []string{"dimension probe"})
		if err != nil {
			return nil, fmt.Errorf("%w (check --embed-model, --base-url or OPENAI_BASE_URL, and OPENAI_API_KEY; or use --bm25-only)", err)
		}
		if len(vs) != 1 || len(vs[0]) == 0 {
			return nil, fmt.Errorf("embedder %s returned no vector", emb.Name())
		}
		dim = len(vs[0])
	}
	texts := make([]string, len(data.Corpus))
	for i, d := range data.Corpus {
		texts[i] = d.Title + "\n" + d.Text
	}
	var vecs [][]float32
	if needDense {
		start := time.Now()
		if vecs, err = embedAll(ctx, cfg.emb, texts, func(done int) {
			if done%1024 >= 64 && done != len(texts) {
				return
			}
			if tty {
				logf("\rembedding with %s: %d/%d documents", emb.Name(), done, len(texts))
			} else {
				logf("embedding with %s: %d/%d documents\n", emb.Name(), done, len(texts))
			}
		}); err != nil {
			return nil, err
		}
		if tty {
			logf("\n")
		}
		logf("embedded in %.1f s\n", time.Since(start).Seconds())
	}
	puts := make([]store.Put, len(data.Corpus))
	for i, d := range data.Corpus {
		seg := store.Segment{ID: d.ID + ":0", DocumentID: d.ID, Text: texts[i], End: len(texts[i])}
		if needDense {
			seg.Vector = vecs[i]
		} else {
			seg.Vector = []float32{1}
		}
		puts[i] = store.Put{Document: store.Document{ID: d.ID, Path: d.ID, Title: d.Title, Format: store.FormatText, Segments: 1}, Segments: []store.Segment{seg}}
	}
	start := time.Now()
	st, drop, err := openStore(ctx, cfg.store, store.Info{Embedder: emb.Name(), Dimension: dim}, puts)
	if err != nil {
		return nil, err
	}
	defer drop()
	if t, ok := st.(interface{ SetBM25(k1, b float64) }); ok {
		t.SetBM25(cfg.k1, cfg.b)
	} else if cfg.k1 != retrieve.DefaultK1 || cfg.b != retrieve.DefaultB {
		logf("this store ranks keywords its own way: --k1 and --b are ignored\n")
	}
	logf("BM25 index: %.2f s\n", time.Since(start).Seconds())
	if needDense {
		qs := make([]string, len(data.Queries))
		for i, q := range data.Queries {
			qs[i] = q.Text
		}
		if err := emb.warm(ctx, qs); err != nil {
			return nil, err
		}
	}

	var out []result
	for _, m := range cfg.modes {
		sc, err := retrieve.Evaluate(ctx, st, emb, data, m, cfg.depth)
		if err != nil {
			return nil, err
		}
		out = append(out, result{m.String(), sc.NDCG10, sc.Recall})
	}
	return out, nil
}

// openStore opens a store for an evaluation's corpus: in memory, or, with
// --store, a temporary library there that drop deletes; the store holds
// docs, each whole with its segments and vectors. info names the embedder
// and its dimension.
func openStore(ctx context.Context, location string, info store.Info, docs []store.Put) (st store.Store, drop func(), err error) {
	loc, name := "memory:", "eval"
	if location != "" {
		loc, name = location, fmt.Sprintf("ibid-eval-%d", os.Getpid())
	}
	st, err = store.Open(ctx, loc, store.Options{Library: name, Info: info, Create: true})
	if err != nil {
		return nil, nil, err
	}
	drop = func() {
		st.Close()
		if loc != "memory:" {
			store.Drop(context.WithoutCancel(ctx), loc, name)
		}
	}
	for start := 0; start < len(docs); start += 1024 {
		if err := st.Update(ctx, docs[start:min(start+1024, len(docs))], nil); err != nil {
			drop()
			return nil, nil, err
		}
	}
	return st, drop, nil
}
