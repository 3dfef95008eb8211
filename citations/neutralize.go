package citations

import "strings"

// Neutralize rewrites everything in document text that would parse as a
// citation token so that it no longer does, and leaves all else unchanged:
// the brackets become parentheses and each id's '_' a space, so
// "[source_3]" reads "(source 3)" and "【Source_1, source_2】" reads
// "(Source 1, source 2)". It is applied to passages before they enter the
// prompt, so a document cannot forge a citation. Tokens are neutralised
// wherever they are, code included, and whatever their length.
func Neutralize(s string) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '[' && c != 0xE3 && c != 0xEF {
			continue
		}
		n, ids := parseToken(s[i:], 0)
		if n == 0 {
			continue
		}
		if done == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[done:i])
		b.WriteString(neutralToken(s[i:i+n], ids))
		i += n - 1
		done = i + 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// neutralToken rewrites one token: brackets to parentheses, each id's
// separator to a space.
func neutralToken(tok string, ids []tokenID) string {
	var b strings.Builder
	b.WriteByte('(')
	inner := tok
	for _, pr := range pairs {
		if strings.HasPrefix(tok, pr[0]) {
			inner = tok[len(pr[0]) : len(tok)-len(pr[1])]
		}
	}
	for _, id := range ids {
		j := strings.Index(inner, id.raw)
		b.WriteString(inner[:j])
		b.WriteString(id.raw[:6] + " " + id.raw[7:])
		inner = inner[j+len(id.raw):]
	}
	b.WriteString(inner)
	b.WriteByte(')')
	return b.String()
}
