-- ibid's PostgreSQL schema, version 5: settings that make bulk loads cheaper,
-- no change of layout.
--
-- Statistics only for the columns plans use. autovacuum analyses a library's
-- partition after each large load, sampling up to 30,000 rows and sorting
-- every sampled value of every column: the texts through the locale, the
-- metadata as JSONB, the vectors (beside the writer, on the same cores). No
-- query filters, joins or sorts by the vectors, texts, metadata, term
-- frequencies, term counts or creation times, so their statistics target is
-- 0 (none gathered); the keys, the filter columns (section, pages) and the
-- terms (whose most common elements the keyword search's plan reads) keep
-- the default. On the partitioned table this reaches every existing
-- partition; ibid sets the same on each partition it makes for a new
-- library (a partition made with LIKE and attached inherits no target).
ALTER TABLE rag_chunks
	ALTER COLUMN vector SET STATISTICS 0,
	ALTER COLUMN content SET STATISTICS 0,
	ALTER COLUMN index_content SET STATISTICS 0,
	ALTER COLUMN metadata SET STATISTICS 0,
	ALTER COLUMN term_freqs SET STATISTICS 0,
	ALTER COLUMN term_count SET STATISTICS 0,
	ALTER COLUMN created_at SET STATISTICS 0;

-- Room on each page of rag_terms for a new version of its rows: a batch's
-- upsert of its terms' document frequencies then updates a row on its own
-- page (a HOT update, no new index entry) instead of moving it to a new
-- page and inserting into the primary key. Pages written before keep their
-- fill until their rows move.
ALTER TABLE rag_terms SET (fillfactor = 70);
