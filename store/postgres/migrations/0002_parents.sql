-- ibid's PostgreSQL schema, version 2: index rows and parents.
--
-- A chunk with parent_chunk_id set is an index row: a hit on it stands for
-- its parent, the chunk of the same document whose id it names. A parent
-- (a chunk some index row of its document names, itself no index row) is
-- stored and read like any chunk, but keeps no vector and no terms, so that
-- neither the HNSW nor the keyword search finds it, and the keyword
-- statistics leave it out. chunk_count still counts every chunk of a
-- library; parent_count counts its parents, and BM25's N is the difference.
ALTER TABLE rag_collections ADD COLUMN parent_count bigint NOT NULL DEFAULT 0;

-- Parents written before version 2 (ibid wrote none) lose their vector and
-- terms, and the statistics follow.
CREATE TEMP TABLE ibid_parents ON COMMIT DROP AS
	SELECT DISTINCT p.collection_id, p.document_id, p.chunk_index, p.terms, p.term_count
	FROM rag_chunks c
	JOIN rag_chunks p ON p.collection_id = c.collection_id AND p.document_id = c.document_id AND p.id = c.parent_chunk_id
	WHERE c.parent_chunk_id IS NOT NULL AND p.parent_chunk_id IS NULL;

UPDATE rag_terms r SET df = r.df - x.n
FROM (SELECT p.collection_id, t.term, count(*) AS n FROM ibid_parents p, unnest(p.terms) AS t(term) GROUP BY 1, 2) x
WHERE r.collection_id = x.collection_id AND r.term = x.term;

DELETE FROM rag_terms WHERE df <= 0;

UPDATE rag_collections r SET parent_count = x.n, term_total = r.term_total - x.total
FROM (SELECT collection_id, count(*) AS n, coalesce(sum(term_count), 0) AS total FROM ibid_parents GROUP BY 1) x
WHERE r.id = x.collection_id;

UPDATE rag_chunks c SET vector = NULL, terms = '{}', term_freqs = '{}', term_count = 0
FROM ibid_parents p
WHERE c.collection_id = p.collection_id AND c.document_id = p.document_id AND c.chunk_index = p.chunk_index;
