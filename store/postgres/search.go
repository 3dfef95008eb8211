package postgres

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// Search settings. efSearch is HNSW's candidate list for a query of k
// results: at least pgvector's default of 40, twice k, at most 1,000
// (pgvector's limit). rrfK is the constant of reciprocal rank fusion; the
// hybrid query fuses the best fuseDepth(k) of each kind.
const (
	minEfSearch = 40
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

// tsQuery is a text search query matching any of the words of $n: the
// words are parsed as the keywords column was ('simple': lower case, no
// stemming), then joined with OR.
func tsQuery(n string) string {
	return `replace(plainto_tsquery('simple', ` + n + `)::text, ' & ', ' | ')::tsquery`
}

// Keyword implements store.Store: segments holding any of the query's
// words, ranked by ts_rank_cd (cover density; normalised by length) over
// the keywords column's GIN index.
func (s *Store) Keyword(ctx context.Context, query string, k int, f store.Filter) ([]store.Hit, error) {
	if k <= 0 || strings.TrimSpace(query) == "" {
		return nil, nil
	}
	if err := storable("query", query); err != nil {
		return nil, err
	}
	var hits []store.Hit
	err := s.read(ctx, "search", func(ctx context.Context) error {
		a := args{query}
		where := "c.keywords @@ q.q"
		if cond := filterSQL(f, s.coll, &a); cond != "" {
			where += " AND " + cond
		}
		sql := `WITH q AS (SELECT ` + tsQuery("$1") + ` AS q)
			SELECT ` + segmentColumns + `, ts_rank_cd(c.keywords, q.q, 1) AS score
			FROM ` + s.chunks + ` c, q WHERE ` + where + `
			ORDER BY score DESC, c.id LIMIT ` + a.add(k)
		var err error
		hits, err = queryHits(ctx, s.pool, sql, a)
		return err
	})
	return hits, err
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
	if err := storable("query", query); err != nil {
		return nil, err
	}
	depth := fuseDepth(k)
	var hits []store.Hit
	err = s.read(ctx, "search", func(ctx context.Context) error {
		return s.searchTx(ctx, depth, func(tx pgx.Tx) error {
			a := args{pgvector.NewVector(vector), query}
			cond := filterSQL(f, s.coll, &a)
			if cond != "" {
				cond = " AND " + cond
			}
			dn, kn := a.add(depth), a.add(k)
			denseOn := "true"
			if zero {
				denseOn = "false"
			}
			sql := `WITH q AS (SELECT ` + tsQuery("$2") + ` AS q),
			dense AS (
				SELECT id, row_number() OVER (ORDER BY dist, id) AS r
				FROM (SELECT c.id, ` + s.vec.distance(1) + ` AS dist FROM ` + s.chunks + ` c
					WHERE ` + denseOn + ` AND c.vector IS NOT NULL` + cond + `
					ORDER BY ` + s.vec.distance(1) + ` LIMIT ` + dn + `) d
			),
			kw AS (
				SELECT c.id, row_number() OVER (ORDER BY ts_rank_cd(c.keywords, q.q, 1) DESC, c.id) AS r
				FROM ` + s.chunks + ` c, q WHERE c.keywords @@ q.q` + cond + `
				ORDER BY ts_rank_cd(c.keywords, q.q, 1) DESC, c.id LIMIT ` + dn + `
			),
			fused AS (
				SELECT id, coalesce(1.0 / (` + fmt.Sprint(rrfK) + ` + dense.r), 0) + coalesce(1.0 / (` + fmt.Sprint(rrfK) + ` + kw.r), 0) AS score
				FROM dense FULL JOIN kw USING (id)
				ORDER BY score DESC, id LIMIT ` + kn + `
			)
			SELECT ` + segmentColumns + `, fused.score::float8 FROM fused JOIN ` + s.chunks + ` c USING (id)`
			var err error
			hits, err = queryHits(ctx, tx, sql, a)
			return err
		})
	})
	return hits, err
}
