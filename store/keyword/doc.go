// Package keyword is ibid's keyword search: the analyser (Unicode word
// segmentation, lowercasing, English stopwords and Porter stemming, CJK
// bigrams) and an Okapi BM25 inverted index over segments, with a saved
// form that a store reconciles with its segments on open instead of
// analysing every text again.
//
// Backends that keep their own data (the embedded store) use the index to
// answer store.Store.Keyword; Tokenize is also used by the answering code
// and the local embedder, so that everyone compares texts by the same
// words.
package keyword
