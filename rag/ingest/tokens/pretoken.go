package tokens

// asciiPieces cuts text, all of it ASCII, into the pieces cl100k_base's
// pattern (cl100kPattern) matches, in order, without the regexp: each
// alternative tried where the last piece ended, first match wins, as
// regexp2 does. ok is false for text with a byte past ASCII, which the
// regexp cuts. (The regexp took most of the tokenizer's time on words
// not yet cached, under the race detector and without it.)
//
// For ASCII the pattern's classes are: letters \p{L} [A-Za-z], digits
// \p{N} [0-9], white space \s [ \t\n\v\f\r], and the rest.
func asciiPieces(text string, yield func(piece string)) (ok bool) {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return false
		}
	}
	for i := 0; i < len(text); {
		n := asciiPiece(text[i:])
		yield(text[i : i+n])
		i += n
	}
	return true
}

// asciiPiece is the length of the piece at the start of s (not empty):
// the pattern's alternatives in order.
func asciiPiece(s string) int {
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if s[0] == '\'' && len(s) > 1 {
		switch lower(s[1]) {
		case 's', 't', 'm', 'd':
			return 2
		case 'r', 'v':
			if len(s) > 2 && lower(s[2]) == 'e' {
				return 3
			}
		case 'l':
			if len(s) > 2 && lower(s[2]) == 'l' {
				return 3
			}
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if start := 0; isLetter(s[0]) || (s[0] != '\r' && s[0] != '\n' && !isDigit(s[0]) && len(s) > 1 && isLetter(s[1])) {
		if !isLetter(s[0]) {
			start = 1
		}
		n := start + 1
		for n < len(s) && isLetter(s[n]) {
			n++
		}
		return n
	}
	// \p{N}{1,3}
	if isDigit(s[0]) {
		n := 1
		for n < len(s) && n < 3 && isDigit(s[n]) {
			n++
		}
		return n
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
	if start := 0; isOther(s[0]) || (s[0] == ' ' && len(s) > 1 && isOther(s[1])) {
		if !isOther(s[0]) {
			start = 1
		}
		n := start + 1
		for n < len(s) && isOther(s[n]) {
			n++
		}
		for n < len(s) && (s[n] == '\r' || s[n] == '\n') {
			n++
		}
		return n
	}
	// s[0] is white space: the run of it is s[:run].
	run := 1
	for run < len(s) && isSpace(s[run]) {
		run++
	}
	// \s*[\r\n]+: to the last line break of the run.
	for k := run - 1; k >= 0; k-- {
		if s[k] == '\r' || s[k] == '\n' {
			return k + 1
		}
	}
	// \s+(?!\S): the run, but its last space when something follows.
	if run == len(s) {
		return run
	}
	if run > 1 {
		return run - 1
	}
	// \s+
	return run
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// isOther is [^\s\p{L}\p{N}] for an ASCII byte.
func isOther(c byte) bool { return !isSpace(c) && !isLetter(c) && !isDigit(c) }
