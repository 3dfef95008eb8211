-- ibid's PostgreSQL schema, version 1.
--
-- One database holds many libraries (collections). Documents and chunks carry
-- their collection's id; rag_chunks is partitioned by collection, one
-- partition per library (created by ibid when the library is created), so
-- that each library has its own HNSW index typed with its own dimension and
-- dropping a library is emptying a table.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE rag_collections (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name       text        NOT NULL UNIQUE,
	embedder   text        NOT NULL,
	dimension  integer     NOT NULL CHECK (dimension > 0),
	-- keyword statistics (BM25's N and average length), kept by each write
	chunk_count bigint     NOT NULL DEFAULT 0,
	term_total  bigint     NOT NULL DEFAULT 0,
	created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE rag_documents (
	collection_id  bigint      NOT NULL REFERENCES rag_collections (id) ON DELETE CASCADE,
	id             text        NOT NULL,
	title          text        NOT NULL DEFAULT '',
	path           text        NOT NULL DEFAULT '',
	base_name      text        NOT NULL DEFAULT '', -- filepath.Base(path), for Filter.Documents
	structure_data jsonb       NOT NULL,             -- the whole store.Document
	created_at     timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (collection_id, id)
);

CREATE TABLE rag_chunks (
	collection_id   bigint      NOT NULL,
	document_id     text        NOT NULL,
	chunk_index     integer     NOT NULL CHECK (chunk_index >= 0),
	id              text        NOT NULL, -- document_id || ':' || chunk_index
	content         text        NOT NULL, -- store.Segment.Text: shown and cited
	index_content   text        NOT NULL DEFAULT '', -- store.Segment.IndexText
	vector          vector,               -- NULL for an all-zero vector: never indexed, never returned
	parent_chunk_id text,
	section_key     text        NOT NULL DEFAULT '', -- lower-case " / "-joined section path, for Filter.Section
	page_start      integer     NOT NULL DEFAULT 0,
	page_end        integer     NOT NULL DEFAULT 0,
	metadata        jsonb       NOT NULL, -- section path, page range, byte offsets
	-- keyword search: the terms of index_content (or content when it is
	-- empty) as ibid's analyser (store/keyword) gives them, distinct and
	-- sorted, with their frequencies and the number of terms
	terms           text[]      NOT NULL,
	term_freqs      integer[]   NOT NULL,
	term_count      integer     NOT NULL,
	created_at      timestamptz NOT NULL DEFAULT now(),
	-- No foreign key to rag_documents: ibid writes and deletes a document's
	-- chunks with the document, in one transaction, and a foreign key would
	-- cost COPY a lookup for every row.
	PRIMARY KEY (document_id, chunk_index, collection_id),
	CHECK (id = document_id || ':' || chunk_index)
) PARTITION BY LIST (collection_id);

CREATE INDEX rag_chunks_id ON rag_chunks (id);
-- Each partition has its own GIN index on terms and, once big enough, its
-- own HNSW index on vector; both are made by ibid, per library, so that a
-- bulk load can build them afresh.

-- Keyword search's document frequencies: in how many chunks of a library
-- each term occurs, kept by each write.
CREATE TABLE rag_terms (
	collection_id bigint  NOT NULL REFERENCES rag_collections (id) ON DELETE CASCADE,
	term          text    NOT NULL,
	df            integer NOT NULL,
	PRIMARY KEY (collection_id, term)
);
