package ui

import (
	"regexp"
	"strings"
)

// A source's snippet is the start of the cited passage on one line, as
// stored: for Markdown, its markup too ("## Demo tips - Use the
// project's own…"). The sources pane and the tooltip show it as plain
// words: the heading that opens a passage is its section or its
// document's title, which the entry names already, and fences, table
// rules, link targets and emphasis markers are noise on one line.

var (
	mdImage    = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	mdLink     = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
	mdEmphasis = strings.NewReplacer("**", "", "__", "", "`", "")
)

// snippetText is the snippet s as plain words: a heading it opens with
// goes (its marker, and its text when it is one of names: the entry's
// section and title), as do code fences, table rules and lone heading
// markers; images and links read as their text; emphasis markers and
// backticks are dropped; white space is collapsed. Text without Markdown
// (a PDF's) is kept as it is but for the white space.
func snippetText(s string, names ...string) string {
	s = strings.Join(strings.Fields(s), " ")
	if rest, ok := cutHeadingMarker(s); ok {
		s = rest
		for _, n := range names {
			if n != "" && (s == n || strings.HasPrefix(s, n+" ")) {
				s = strings.TrimPrefix(s[len(n):], " ")
				break
			}
		}
	}
	words := strings.Fields(s)
	keep := words[:0]
	for _, w := range words {
		if strings.HasPrefix(w, "```") || strings.HasPrefix(w, "~~~") || isTableRule(w) || strings.Trim(w, "#") == "" {
			continue
		}
		keep = append(keep, w)
	}
	s = strings.Join(keep, " ")
	s = mdImage.ReplaceAllString(s, "$1")
	s = mdLink.ReplaceAllString(s, "$1")
	return strings.Join(strings.Fields(mdEmphasis.Replace(s)), " ")
}

// cutHeadingMarker removes the marker of an ATX heading s opens with (one
// to six #, then a space).
func cutHeadingMarker(s string) (string, bool) {
	n := len(s) - len(strings.TrimLeft(s, "#"))
	if n < 1 || n > 6 || n == len(s) || s[n] != ' ' {
		return s, false
	}
	return s[n+1:], true
}

// isTableRule reports a table's header rule (|---|:--:| and the like) or
// a thematic break (---); a lone - is a list item's bullet or a dash.
func isTableRule(w string) bool {
	return len(w) >= 3 && strings.Contains(w, "-") && strings.Trim(w, "|-:") == ""
}

// innermost is the last heading of a section path ("A › B" gives "B").
func innermost(section string) string {
	if i := strings.LastIndex(section, " › "); i >= 0 {
		return section[i+len(" › "):]
	}
	return section
}
