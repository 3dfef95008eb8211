package citations

// The byte-level readers of the JSON modes' scanner (json.go): white
// space, escapes, hex digits, literals, numbers, and the value of an ids
// array's entry.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isNumByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// idValue reads an entry of an ids array: "source_k" as in a token, or
// the number k (1 to 6 digits).
func idValue(s string) (int, bool) {
	if id, n := parseID(s); n > 0 && n == len(s) {
		return id.k, true
	}
	if len(s) == 0 || len(s) > 6 {
		return 0, false
	}
	k := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		k = k*10 + int(s[i]-'0')
	}
	return k, true
}

func unescape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

func unhex(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10), true
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10), true
	}
	return 0, false
}

func literal(c byte) string {
	switch c {
	case 't':
		return "true"
	case 'f':
		return "false"
	}
	return "null"
}
