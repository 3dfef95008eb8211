package keyword

// stopwords is Lucene's English stop set (EnglishAnalyzer's default, also
// Anserini's): the 33 function words that carry no retrieval signal.
// Tokenize drops them before stemming.
var stopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true,
	"be": true, "but": true, "by": true, "for": true, "if": true, "in": true,
	"into": true, "is": true, "it": true, "no": true, "not": true, "of": true,
	"on": true, "or": true, "such": true, "that": true, "the": true,
	"their": true, "then": true, "there": true, "these": true, "they": true,
	"this": true, "to": true, "was": true, "will": true, "with": true,
}

// isStopword is stopwords[string(b)] without hashing (the fast path of
// Tokenize); TestStopwordSwitch keeps the two in step.
func isStopword(b []byte) bool {
	if len(b) > 5 {
		return false
	}
	switch string(b) {
	case "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in",
		"into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the",
		"their", "then", "there", "these", "they", "this", "to", "was", "will", "with":
		return true
	}
	return false
}
