package postgres

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/store"
)

// args collects a statement's arguments; add returns the placeholder of a
// new one. User input only ever reaches SQL through it.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// filterSQL translates f into a condition over the chunk row c (or "" when
// f admits everything), with the same meaning as store.Filter.Match:
//   - Documents: a document id prefix (starts_with), or a glob over the
//     path, or over the base name for a pattern without a separator, turned
//     into an anchored regular expression by globRegexp. A pattern
//     filepath.Match calls malformed acts only as an id prefix, as in Match.
//   - Section: a substring of the lower-case section path, kept in
//     rag_chunks.section_key (lowered by Go, as Match lowers it, so the
//     database's collation plays no part).
//   - SkipHeadings: the lower-cased names, compared with the section key's
//     outermost heading (split_part at " / ", store.HeadingNumber removed
//     by regexp_replace, as store.TopHeading does in Go).
//   - Pages: overlap of [page_start, max(page_end, page_start)] with the
//     range; chunks without pages only when no range is asked.
func filterSQL(f store.Filter, coll int64, a *args) string {
	var conds []string
	if len(f.Documents) > 0 {
		var any []string
		for _, p := range f.Documents {
			if p == "" || !utf8.ValidString(p) || strings.IndexByte(p, 0) >= 0 {
				continue // matches no id or path PostgreSQL can hold
			}
			any = append(any, "starts_with(d.id, "+a.add(p)+")")
			re, ok := globRegexp(p)
			if !ok {
				continue
			}
			ph := a.add(re)
			any = append(any, "d.path ~ "+ph)
			if !strings.ContainsRune(p, filepath.Separator) {
				any = append(any, "d.base_name ~ "+ph)
			}
		}
		if len(any) == 0 {
			return "false"
		}
		conds = append(conds, "c.document_id IN (SELECT d.id FROM rag_documents d WHERE d.collection_id = "+
			strconv.FormatInt(coll, 10)+" AND ("+strings.Join(any, " OR ")+"))")
	}
	if f.Section != "" {
		conds = append(conds, "strpos(c.section_key, "+a.add(strings.ToLower(f.Section))+") > 0")
	}
	var skip []string
	for _, h := range f.SkipHeadings {
		if h != "" && utf8.ValidString(h) && strings.IndexByte(h, 0) < 0 {
			skip = append(skip, strings.ToLower(h)) // others match no heading PostgreSQL can hold
		}
	}
	if len(skip) > 0 {
		conds = append(conds, "NOT (regexp_replace(split_part(c.section_key, ' / ', 1), "+a.add(store.HeadingNumber)+", '') = ANY("+a.add(skip)+"))")
	}
	if f.PageFrom != 0 || f.PageTo != 0 {
		conds = append(conds, "c.page_start <> 0")
		if f.PageFrom != 0 {
			conds = append(conds, "greatest(c.page_end, c.page_start) >= "+a.add(f.PageFrom))
		}
		if f.PageTo != 0 {
			conds = append(conds, "c.page_start <= "+a.add(f.PageTo))
		}
	}
	return strings.Join(conds, " AND ")
}

// globRegexp turns a filepath.Match pattern into an anchored PostgreSQL
// regular expression that matches the same strings: '*' is any run of
// non-separators, '?' one non-separator, '[...]' a class (which, as in
// filepath.Match, may match a separator), '\' quotes the next character.
// It reports false for a pattern filepath.Match calls malformed, and for a
// class that can match nothing.
func globRegexp(pattern string) (string, bool) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return "", false
	}
	var b strings.Builder
	b.WriteString("^")
	p := pattern
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			b.WriteString("[^/]*")
		case '?':
			p = p[1:]
			b.WriteString("[^/]")
		case '[':
			class, rest, ok := globClass(p[1:])
			if !ok {
				return "", false
			}
			b.WriteString(class)
			p = rest
		case '\\':
			if len(p) == 1 {
				return "", false
			}
			r, n := utf8.DecodeRuneInString(p[1:])
			writeLiteral(&b, r)
			p = p[1+n:]
		default:
			r, n := utf8.DecodeRuneInString(p)
			writeLiteral(&b, r)
			p = p[n:]
		}
	}
	b.WriteString("$")
	return b.String(), true
}

// globClass translates a class whose '[' is already read; rest follows its
// ']'. It reports false for a malformed class, by filepath.Match's rules
// (no range may start or end with an unquoted '-' or ']' except the ']'
// that closes a non-empty class; the class must close), and for a class
// that matches nothing.
func globClass(p string) (class, rest string, ok bool) {
	var b strings.Builder
	negated := len(p) > 0 && p[0] == '^'
	if negated {
		p = p[1:]
	}
	items := 0
	for n := 0; ; n++ {
		if len(p) > 0 && p[0] == ']' && n > 0 {
			p = p[1:]
			break
		}
		lo, rest, ok := classRune(p)
		if !ok {
			return "", "", false
		}
		p = rest
		hi := lo
		if p[0] == '-' {
			if hi, p, ok = classRune(p[1:]); !ok {
				return "", "", false
			}
		}
		if lo > hi {
			continue // filepath.Match: matches nothing; PostgreSQL would refuse it
		}
		writeLiteral(&b, lo)
		if hi != lo {
			b.WriteByte('-')
			writeLiteral(&b, hi)
		}
		items++
	}
	switch {
	case items == 0 && negated:
		return ".", p, true // any one character
	case items == 0:
		return "", p, false
	case negated:
		return "[^" + b.String() + "]", p, true
	default:
		return "[" + b.String() + "]", p, true
	}
}

// classRune reads one possibly quoted character of a class, which must be
// followed by more of the class.
func classRune(p string) (rune, string, bool) {
	if len(p) == 0 || p[0] == '-' || p[0] == ']' {
		return 0, "", false
	}
	if p[0] == '\\' {
		p = p[1:]
		if len(p) == 0 {
			return 0, "", false
		}
	}
	r, n := utf8.DecodeRuneInString(p)
	if r == utf8.RuneError && n == 1 || len(p) == n {
		return 0, "", false
	}
	return r, p[n:], true
}

// writeLiteral writes r so that a regular expression matches it literally,
// inside or outside a bracket expression: ASCII punctuation is quoted with a
// backslash (which PostgreSQL's advanced expressions honour in both
// places); letters, digits and non-ASCII characters stand for themselves.
func writeLiteral(b *strings.Builder, r rune) {
	if r < utf8.RuneSelf && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}
