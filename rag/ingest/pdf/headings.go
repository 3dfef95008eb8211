package pdf

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// headingNumber is a parsed section number: "2.1" is [2 1]; an appendix
// letter counts as its position in the alphabet ("B.2" is [2 2]) with
// appendix set.
type headingNumber struct {
	parts    []int
	appendix bool
}

// parseHeading reads a line like "2.1 Setup", "3 Results" or "B Proofs";
// ok is false for anything else. The title must start with a letter (not a
// lower-case Latin one), be at most 80 runes, and not end like a sentence.
func parseHeading(line string) (num headingNumber, ok bool) {
	line = strings.TrimSpace(line)
	if line == "" || utf8.RuneCountInString(line) > 80 {
		return num, false
	}
	numStr, title, found := strings.Cut(line, " ")
	if !found {
		return num, false
	}
	title = strings.TrimSpace(title)
	numStr = strings.TrimSuffix(numStr, ".")
	first, _ := utf8.DecodeRuneInString(title)
	if !unicode.IsLetter(first) || unicode.IsLower(first) || strings.ContainsAny(title[len(title)-1:], ".,;:") {
		return num, false
	}
	for i, f := range strings.Split(numStr, ".") {
		if i == 0 && len(f) == 1 && f[0] >= 'A' && f[0] <= 'Z' {
			num.appendix = true
			num.parts = append(num.parts, int(f[0]-'A')+1)
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 || v > 99 || len(f) > 2 {
			return num, false
		}
		num.parts = append(num.parts, v)
	}
	return num, len(num.parts) > 0 && len(num.parts) <= 4
}

// follows reports whether n is a plausible next heading after cur (nil
// before the first): the next number at some level ("2" or "1.2" after
// "1.1"), or a first child ("1.1.1" after "1.1"). Appendices start at "A"
// after the numbered sections. Requiring this order weeds out table rows
// and numbered list items that look like headings.
func follows(cur *headingNumber, n headingNumber) bool {
	if cur == nil {
		return !n.appendix && len(n.parts) == 1 && n.parts[0] == 1
	}
	if n.appendix && !cur.appendix {
		return len(n.parts) == 1 && n.parts[0] == 1
	}
	if n.appendix != cur.appendix {
		return false
	}
	m := len(n.parts)
	if m > len(cur.parts)+1 {
		return false
	}
	for i := 0; i < m-1; i++ {
		if n.parts[i] != cur.parts[i] {
			return false
		}
	}
	if m == len(cur.parts)+1 {
		return n.parts[m-1] == 1
	}
	return n.parts[m-1] == cur.parts[m-1]+1
}

// namedHeadings are unnumbered headings that papers put on a line of their
// own; they start a top-level section without changing the numbering,
// whatever their style. Other back matter needs a style of its own (see
// backMatterHeadings).
var namedHeadings = map[string]bool{
	"abstract": true, "references": true, "bibliography": true,
	"acknowledgments": true, "acknowledgements": true, "acknowledgment": true,
	"acknowledgement": true, "appendix": true, "appendices": true, "摘要": true, "摘 要": true, "参考文献": true,
	"致谢": true, "附录": true, "要旨": true, "謝辞": true,
}

// isNamedHeading reports whether a whole line is one of namedHeadings
// (any case, any style).
func isNamedHeading(line string) bool {
	return namedHeadings[strings.ToLower(strings.TrimSpace(line))]
}

// backMatterHeadings are unnumbered headings of a paper's end matter,
// singular and plural. Body text can hold such a line too ("conclusion"
// alone at the end of a paragraph), so they count only when the font sets
// them apart (see isBackMatterHeading and markHeadings).
var backMatterHeadings = map[string]bool{
	"limitation": true, "limitations": true,
	"limitations and future work": true, "limitations and risks": true,
	"ethics statement": true, "ethical statement": true, "ethics": true,
	"ethical consideration": true, "ethical considerations": true, "ethics considerations": true,
	"broader impact": true, "broader impacts": true, "broader impact statement": true,
	"impact statement": true, "societal impact": true, "societal impacts": true,
	"acknowledgment": true, "acknowledgments": true, "acknowledgement": true, "acknowledgements": true,
	"conclusion": true, "conclusions": true, "concluding remarks": true,
	"conclusion and future work": true, "conclusions and future work": true,
	"discussion and conclusion": true, "discussion and conclusions": true,
	"future work": true, "appendix": true, "appendices": true,
	"supplementary material": true, "supplementary materials": true,
	"author contributions": true, "reproducibility statement": true,
	"funding": true, "competing interests": true, "declaration of competing interest": true,
	"data availability": true, "data availability statement": true,
}

// isBackMatterHeading reports whether a whole line is a back-matter
// heading: one of backMatterHeadings or ReferencesHeadings, capitalised ("Limitation",
// "LIMITATIONS", "Ethics Statement"), with nothing after it. A line that
// merely starts with such a word ("Limitations of this kind ...") is not
// one.
func isBackMatterHeading(line string) bool {
	line = strings.Join(strings.Fields(line), " ")
	r, _ := utf8.DecodeRuneInString(line)
	capital := unicode.IsUpper(r) || unicode.IsLetter(r) && !unicode.IsLower(r) // a script without case counts
	key := strings.ToLower(line)
	return capital && (backMatterHeadings[key] || isReferencesHeading(key))
}
