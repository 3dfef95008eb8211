// Package support decides whether a cited passage supports a claim: it
// finds the passage's sentence that supports the claim best (a byte span
// in one of the passage's segments, which may be a neighbour of the
// segment that was cited) and gives a verdict, Supported, Partial,
// Unsupported or Unchecked, with a score.
//
// The check is lexical and fast, with no model: the claim's analysed
// terms (store/keyword's Tokenize) weighted by their rarity in the
// library, adjacent pairs of them (phrases) weighing more than scattered
// words, numbers and names of the claim that must be found in the
// passage, negation that must agree, and a sentence that starts with a
// pronoun completed by the sentence before it. A heading (a Markdown
// heading line, the document's title, a section name) is never evidence.
// Every weight and threshold was chosen on SciFact's training claims
// (tune_test.go refits them); docs/support.md has the figures on held-out
// data.
//
// A passage is analysed once (Analyse, the costly part: sentences and
// terms), off the path of the streamed text, and can then check any
// number of claims (Evidence.Check, microseconds). An optional model pass
// (Judge) refines the claims whose lexical verdict is not clear-cut
// (Partial) with an OpenAI-compatible chat model.
//
// The package is pure functions over text, except Judge (a model and a
// disk cache); it does not import rag.
package support
