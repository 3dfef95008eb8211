-- ibid's PostgreSQL schema, version 4: identifiers and keyword terms compare
-- byte by byte.
--
-- Under the database's default collation (en_US.UTF-8, C.UTF-8, ICU) every
-- comparison of two texts goes through the locale: each B-tree insert of a
-- chunk's ids, the GIN index's merge of its pending terms, the sorts of
-- ANALYZE. ibid only ever tests these columns for equality and prefixes and
-- uses them to break ties, where byte order is the order Go's strings have
-- (the embedded store's). Columns people read and filter with patterns
-- (titles, paths, sections) keep the database's collation.
--
-- Changing only a column's collation does not rewrite its table; the indexes
-- on these columns (primary keys, rag_chunks_id, each library's GIN index on
-- terms) are built again, which takes a while once for a large library.
ALTER TABLE rag_documents ALTER COLUMN id TYPE text COLLATE "C";

ALTER TABLE rag_chunks
	ALTER COLUMN document_id TYPE text COLLATE "C",
	ALTER COLUMN id TYPE text COLLATE "C",
	ALTER COLUMN parent_chunk_id TYPE text COLLATE "C",
	ALTER COLUMN terms TYPE text[] COLLATE "C";

ALTER TABLE rag_terms ALTER COLUMN term TYPE text COLLATE "C";
