// Package retrieve finds the passages of a library that answer a question:
// a BM25 index of our own (Unicode word segmentation, lowercasing, English
// stopwords and Porter stemming, CJK bigrams), dense similarity through the
// store, reciprocal-rank fusion of the two, filters by document, path and
// section, and each hit's neighbouring segments as context. It also holds
// the embedders (a local one that needs no server, and any
// OpenAI-compatible endpoint) and the BEIR evaluation used by `ibid eval`.
//
// The package depends on store only; it never imports rag or ui.
package retrieve
