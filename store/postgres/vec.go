package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Dimension limits of pgvector's HNSW index: vectors up to 2,000
// dimensions are indexed as vector (4 bytes a dimension), up to 4,000 as
// halfvec (2 bytes); above that a library is searched exactly, without an
// index.
const (
	maxVectorIndexDim  = 2000
	maxHalfvecIndexDim = 4000
)

// vecType is how one collection's vectors are indexed and compared. The
// column rag_chunks.vector has no dimension (one table holds collections of
// several); each partition's HNSW index is over a cast to its collection's
// type, and queries order by the same expression so the planner can use it.
type vecType struct {
	dim     int
	typ     string // "vector(768)" or "halfvec(3072)"
	ops     string // the operator class of the index
	indexed bool
}

func newVecType(dim int) vecType {
	switch {
	case dim <= maxVectorIndexDim:
		return vecType{dim: dim, typ: fmt.Sprintf("vector(%d)", dim), ops: "vector_cosine_ops", indexed: true}
	case dim <= maxHalfvecIndexDim:
		return vecType{dim: dim, typ: fmt.Sprintf("halfvec(%d)", dim), ops: "halfvec_cosine_ops", indexed: true}
	default:
		return vecType{dim: dim, typ: fmt.Sprintf("vector(%d)", dim)}
	}
}

// expr is the indexed expression over a chunk row aliased c.
func (v vecType) expr() string { return "(c.vector::" + v.typ + ")" }

// distance is the cosine distance between the chunk row c and the query
// vector in parameter $n (sent as a vector).
func (v vecType) distance(n int) string {
	return fmt.Sprintf("(%s <=> $%d::vector::%s)", v.expr(), n, v.typ)
}

// indexName is the name of a partition's HNSW index.
func indexName(table string) string { return table + "_hnsw" }

// createIndex builds the HNSW index of a partition (nothing when the
// dimension is too large for one). All-zero vectors are stored as NULL,
// which the index leaves out.
func (v vecType) createIndex(ctx context.Context, tx pgx.Tx, table string) error {
	if !v.indexed {
		return nil
	}
	_, err := tx.Exec(ctx, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON %s USING hnsw ((vector::%s) %s)`,
		indexName(table), table, v.typ, v.ops))
	if err != nil {
		return fmt.Errorf("couldn't build the vector index: %w", err)
	}
	return nil
}

// termsIndexName is the name of a partition's GIN index on terms.
func termsIndexName(table string) string { return table + "_terms" }

// createTermsIndex builds the GIN index keyword search finds terms with.
func createTermsIndex(ctx context.Context, tx pgx.Tx, table string) error {
	_, err := tx.Exec(ctx, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON %s USING gin (terms)`, termsIndexName(table), table))
	if err != nil {
		return fmt.Errorf("couldn't build the keyword index: %w", err)
	}
	return nil
}
