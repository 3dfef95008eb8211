-- ibid's PostgreSQL schema, version 3: a library's settings.
--
-- A few named values a library keeps as a whole, apart from its documents
-- (store.Settings): rag/library keeps there the folders and globs the
-- library follows and the options they were added with. Dropping the
-- library drops them.
CREATE TABLE rag_settings (
	collection_id bigint NOT NULL REFERENCES rag_collections (id) ON DELETE CASCADE,
	key           text   NOT NULL,
	value         text   NOT NULL,
	PRIMARY KEY (collection_id, key)
);
