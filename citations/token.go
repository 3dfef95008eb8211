package citations

import "strings"

// parseToken and parseID read the token grammar from a whole string. The
// streaming lexer has its own byte-at-a-time reader; these serve Neutralize
// and the ids arrays of the JSON modes (idValue), where the text is at hand.
// The test oracle (Render) has a third, independent reader.

// tokenID is an id as parseToken reads it.
type tokenID struct {
	k   int
	raw string
}

// parseToken parses a token at the start of s and returns its length, or
// 0 when s does not begin with one. limit > 0 caps the length.
func parseToken(s string, limit int) (int, []tokenID) {
	p := -1
	for i, pr := range pairs {
		if strings.HasPrefix(s, pr[0]) {
			p = i
		}
	}
	if p < 0 {
		return 0, nil
	}
	closer := pairs[p][1]
	i := spaces(s, len(pairs[p][0]))
	var ids []tokenID
	for {
		id, n := parseID(s[i:])
		if n == 0 {
			return 0, nil
		}
		ids = append(ids, id)
		i += n
		sp := i
		i = spaces(s, i)
		if strings.HasPrefix(s[i:], closer) {
			i += len(closer)
			break
		}
		if i < len(s) && (s[i] == ',' || s[i] == ';') {
			i = spaces(s, i+1)
			continue
		}
		if i == sp {
			return 0, nil
		}
	}
	if limit > 0 && i > limit {
		return 0, nil
	}
	return i, ids
}

// parseID parses an id ("source", '_' or ' ', 1 to 6 digits) at the start
// of s; it returns its length, or 0. The id must not run on into more
// digits.
func parseID(s string) (tokenID, int) {
	if len(s) < 8 || !strings.EqualFold(s[:6], "source") || (s[6] != '_' && s[6] != ' ') {
		return tokenID{}, 0
	}
	j, k := 7, 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		k = k*10 + int(s[j]-'0')
		j++
	}
	if j == 7 || j > 13 {
		return tokenID{}, 0
	}
	return tokenID{k: k, raw: s[:j]}, j
}

func spaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}
