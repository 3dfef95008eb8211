// Package retrieve finds the passages of a library that answer a question,
// over any store.Store: dense similarity (the query embedded, st.Dense) and
// keyword search (st.Keyword, answered by the backend where the data
// lives), fused; filters by document, path, section and page, as data; and
// each hit's neighbouring segments as context, read a window at a time. It
// also holds the embedders (a local one that needs no server, and any
// OpenAI-compatible endpoint) and the BEIR evaluation used by `ibid eval`.
//
// The package depends on store only; it never imports rag or ui.
package retrieve
