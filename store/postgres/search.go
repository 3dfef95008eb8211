package postgres

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// Search settings. efSearch is HNSW's candidate list for a query of k
// results: at least 100 (pgvector's default of 40 gave a recall@10 of 0.94
// on 100,000 segments of dimension 768), twice k, at most 1,000
// (pgvector's limit). rrfK is the constant of reciprocal rank fusion; the
// hybrid query fuses the best fuseDepth(k) of each kind.
const (
	minEfSearch = 100
	maxEfSearch = 1000
	rrfK        = 60
)

func efSearch(k int) int { return min(max(minEfSearch, 2*k), maxEfSearch) }

func fuseDepth(k int) int { return max(4*k, 40) }

// checkQueryVector refuses a vector of the wrong dimension and reports
// whether it is all zeros (which matches nothing).
func (s *Store) checkQueryVector(vector []float32) (zero bool, err error) {
	if len(vector) != s.info.Dimension {
		return false, fmt.Errorf("%w: a query vector of dimension %d for library %q, whose vectors have %d",
			store.ErrEmbedderMismatch, len(vector), s.name, s.info.Dimension)
	}
	for _, x := range vector {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false, fmt.Errorf("query vector holds %v", x)
		}
		if x != 0 {
			return false, nil
		}
	}
	return true, nil
}

// searchTx runs fn in a read-only transaction whose HNSW settings suit k
// results: a candidate list from k and, so that a narrow filter still
// finds k, an iterative scan that goes on past the first candidates.
func (s *Store) searchTx(ctx context.Context, k int, fn func(tx pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`,
			fmt.Sprint(efSearch(k))); err != nil {
			return err
		}
		return fn(tx)
	})
}

// Dense implements store.Store. The query orders by the same expression
// the partition's HNSW index is built on, so the index answers it; with a
// filter the iterative scan keeps going until k rows pass it (or
// hnsw.max_scan_tuples is reached), and when fewer than k come back the
// query is answered exactly over the rows the filter admits.
func (s *Store) Dense(ctx context.Context, vector []float32, k int, f store.Filter) ([]store.Hit, error) {
	zero, err := s.checkQueryVector(vector)
	if err != nil || zero || k <= 0 {
		return nil, err
	}
	var hits []store.Hit
	err = s.read(ctx, "search", func(ctx context.Context) error {
		return s.searchTx(ctx, k, func(tx pgx.Tx) error {
			var err error
			hits, err = s.dense(ctx, tx, vector, k, f, false)
			if err != nil || len(hits) >= k {
				return err
			}
			hits, err = s.dense(ctx, tx, vector, k, f, true)
			return err
		})
	})
	return hits, err
}

// dense runs one dense query: through the index, or exactly.
func (s *Store) dense(ctx context.Context, tx pgx.Tx, vector []float32, k int, f store.Filter, exact bool) ([]store.Hit, error) {
	q, a := s.denseSQL(vector, k, f, exact)
	return queryHits(ctx, tx, q, a)
}

// denseSQL is the statement of a dense query. Through the index it orders
// by the index's expression alone with a LIMIT (what lets the planner use
// the HNSW index); exactly, it orders a materialised candidate set, which
// no index can.
func (s *Store) denseSQL(vector []float32, k int, f store.Filter, exact bool) (string, args) {
	a := args{pgvector.NewVector(vector)}
	where := "c.vector IS NOT NULL"
	if cond := filterSQL(f, s.coll, &a); cond != "" {
		where += " AND " + cond
	}
	lim := a.add(k)
	if exact {
		return `WITH cand AS MATERIALIZED (SELECT * FROM ` + s.chunks + ` c WHERE ` + where + `)
			SELECT ` + segmentColumns + `, 1 - ` + s.vec.distance(1) + ` FROM cand c
			ORDER BY ` + s.vec.distance(1) + `, c.id LIMIT ` + lim, a
	}
	return `SELECT ` + segmentColumns + `, 1 - ` + s.vec.distance(1) + ` FROM ` + s.chunks + ` c
			WHERE ` + where + ` ORDER BY ` + s.vec.distance(1) + ` LIMIT ` + lim, a
}

// queryHits runs a query of segmentColumns and a score, and returns its
// rows best first, ties by segment id (the order the contract promises,
// whatever order the index produced).
func queryHits(ctx context.Context, q querier, sql string, a args) ([]store.Hit, error) {
	rows, err := q.Query(ctx, sql, a...)
	if err != nil {
		return nil, err
	}
	hits, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Hit, error) {
		var h store.Hit
		var err error
		h.Segment, err = scanSegment(r, &h.Score)
		return h, err
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Segment.ID < hits[j].Segment.ID
	})
	return hits, nil
}

// queryTerms analyses a query as the chunks were analysed: its distinct
// terms and how often each occurs (a repeated term counts again, as in the
// embedded store's BM25).
func queryTerms(query string) ([]string, []int32) {
	// What PostgreSQL cannot hold cannot be in a chunk either.
	query = strings.ToValidUTF8(strings.ReplaceAll(query, "\x00", " "), " ")
	terms, freqs, _ := termFreqs(query)
	return terms, freqs
}

// keywordBudget bounds the work of a keyword query: its candidates are
// the chunks holding the query's rarest terms, taken rarest first while
// their document frequencies add up to at most this many (the rarest always
// counts); the candidates are then scored on every query term. A chunk
// holding only the query's most common words is left out, as Lucene's
// common-terms query does, unless that leaves fewer than k results.
const keywordBudget = 5000

// bm25SQL is a CTE list ending in "scored (id, score)": the BM25 scores
// (Lucene's idf, k1 and b of store/keyword) of the chunks of table holding
// any of the terms in argument tn (with query frequencies in fn) picked
// within the budget in argument bn, admitted by the condition cond, best
// lim first. N and the average length come from the collection's row (its
// chunks but the parents, which have no terms), the document frequencies
// from rag_terms.
func bm25SQL(coll int64, table, tn, fn, bn, cond, lim string) string {
	k1, b := fmt.Sprint(keyword.DefaultK1), fmt.Sprint(keyword.DefaultB)
	id := fmt.Sprint(coll)
	return `stats AS (
		SELECT (chunk_count - parent_count)::float8 AS n,
			greatest(term_total::float8 / greatest(chunk_count - parent_count, 1), 1) AS avglen
		FROM rag_collections WHERE id = ` + id + `),
	q AS (
		SELECT t.term, d.df, ln(1 + (stats.n - d.df + 0.5) / (d.df + 0.5)) * t.qtf * (` + k1 + ` + 1) AS w
		FROM unnest(` + tn + `::text[], ` + fn + `::int[]) AS t(term, qtf) CROSS JOIN stats
		JOIN rag_terms d ON d.collection_id = ` + id + ` AND d.term = t.term
		WHERE d.df > 0),
	picked AS (
		SELECT array_agg(term) AS terms FROM (
			SELECT term, df, sum(df) OVER (ORDER BY df, term) AS upto FROM q) x
		WHERE upto = df OR upto <= ` + bn + `),
	scored AS (
		SELECT c.id, sum(q.w * f.tf / (f.tf + ` + k1 + ` * (1 - ` + b + `) + ` + k1 + ` * ` + b + ` * c.term_count / stats.avglen)) AS score
		FROM ` + table + ` c CROSS JOIN stats CROSS JOIN q
		CROSS JOIN LATERAL (SELECT c.term_freqs[array_position(c.terms, q.term)]::float8 AS tf) f
		WHERE c.terms && (SELECT terms FROM picked) AND f.tf IS NOT NULL` + cond + `
		GROUP BY c.id ORDER BY score DESC, c.id LIMIT ` + lim + `)`
}

// Keyword implements store.Store: Okapi BM25 over the terms ibid's
// analyser finds (stemmed English, no stopwords, CJK bigrams), as the
// embedded store scores them, computed by the database.
func (s *Store) Keyword(ctx context.Context, query string, k int, f store.Filter) ([]store.Hit, error) {
	terms, freqs := queryTerms(query)
	if k <= 0 || len(terms) == 0 {
		return nil, nil
	}
	var hits []store.Hit
	err := s.read(ctx, "search", func(ctx context.Context) error {
		var err error
		hits, err = s.keyword(ctx, terms, freqs, k, f, keywordBudget)
		if err == nil && len(hits) < k {
			hits, err = s.keyword(ctx, terms, freqs, k, f, math.MaxInt32)
		}
		return err
	})
	return hits, err
}

// keyword runs one keyword query within a budget (see keywordBudget).
func (s *Store) keyword(ctx context.Context, terms []string, freqs []int32, k int, f store.Filter, budget int) ([]store.Hit, error) {
	a := args{terms, freqs, budget}
	cond := filterSQL(f, s.coll, &a)
	if cond != "" {
		cond = " AND " + cond
	}
	sql := `WITH ` + bm25SQL(s.coll, s.chunks, "$1", "$2", "$3", cond, a.add(k)) + `
		SELECT ` + segmentColumns + `, scored.score FROM scored JOIN ` + s.chunks + ` c USING (id)`
	return queryHits(ctx, s.pool, sql, a)
}

// Hybrid answers a question by dense and keyword search at once, fused by
// reciprocal rank in one statement: each kind ranks its best fuseDepth(k)
// segments, and a segment scores the sum of 1/(60+rank) over the kinds that
// found it. Scores are fusion scores, comparable only with each other. A
// zero vector (or an empty query) leaves only the other kind.
func (s *Store) Hybrid(ctx context.Context, query string, vector []float32, k int, f store.Filter) ([]store.Hit, error) {
	zero, err := s.checkQueryVector(vector)
	if err != nil || k <= 0 {
		return nil, err
	}
	var hits []store.Hit
	err = s.read(ctx, "search", func(ctx context.Context) error {
		return s.searchTx(ctx, fuseDepth(k), func(tx pgx.Tx) error {
			sql, a := s.hybridSQL(query, vector, zero, k, f)
			var err error
			hits, err = queryHits(ctx, tx, sql, a)
			return err
		})
	})
	return hits, err
}

// hybridSQL is the statement of a hybrid query: the keyword CTEs of
// bm25SQL, the dense candidates in the form the HNSW index answers, and
// their fusion.
func (s *Store) hybridSQL(query string, vector []float32, zero bool, k int, f store.Filter) (string, args) {
	depth := fuseDepth(k)
	terms, freqs := queryTerms(query)
	a := args{pgvector.NewVector(vector), terms, freqs, keywordBudget}
	cond := filterSQL(f, s.coll, &a)
	if cond != "" {
		cond = " AND " + cond
	}
	dn, kn := a.add(depth), a.add(k)
	denseOn := "true"
	if zero {
		denseOn = "false"
	}
	rrf := fmt.Sprint(rrfK)
	return `WITH ` + bm25SQL(s.coll, s.chunks, "$2", "$3", "$4", cond, dn) + `,
	kw AS (SELECT id, row_number() OVER (ORDER BY score DESC, id) AS r FROM scored),
	dense AS (
		SELECT id, row_number() OVER (ORDER BY dist, id) AS r
		FROM (SELECT c.id, ` + s.vec.distance(1) + ` AS dist FROM ` + s.chunks + ` c
			WHERE ` + denseOn + ` AND c.vector IS NOT NULL` + cond + `
			ORDER BY ` + s.vec.distance(1) + ` LIMIT ` + dn + `) d
	),
	fused AS (
		SELECT id, coalesce(1.0 / (` + rrf + ` + dense.r), 0) + coalesce(1.0 / (` + rrf + ` + kw.r), 0) AS score
		FROM dense FULL JOIN kw USING (id)
		ORDER BY score DESC, id LIMIT ` + kn + `
	)
	SELECT ` + segmentColumns + `, fused.score::float8 FROM fused JOIN ` + s.chunks + ` c USING (id)`, a
}
