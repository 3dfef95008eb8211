// Package retrieve finds the passages of a library that answer a question,
// over any store.Store: dense similarity (the query embedded, st.Dense) and
// keyword search (st.Keyword, answered by the backend where the data
// lives), fused; filters by document, path, section and page, as data; and
// each hit's neighbouring segments as context, read a window at a time. It
// also holds the embedders (a local one that needs no server, and any
// OpenAI-compatible endpoint) and the BEIR evaluation used by `ibid eval`.
//
// It reads the store through the store.Store contract and analyses text
// as the keyword index does (store/keyword); it uses rag/llm for the
// OpenAI-compatible embedder and the rerankers, and rag/ingest for what
// chunking records (the references headings, a document's strategy and
// passages) and to count a long-document evaluation's tokens. It never
// imports rag or ui.
package retrieve
