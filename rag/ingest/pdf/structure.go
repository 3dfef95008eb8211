package pdf

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/klippa-app/go-pdfium/responses"
)

// outlineItem is one entry of a PDF's outline (bookmarks).
type outlineItem struct {
	title string
	page  int // 0-based; -1 when the entry has no destination
	level int // 1 outermost
}

// taggedHeading is the depth of the tagged heading that holds all of a
// paragraph's text, or 0.
func taggedHeading(p *paragraph) int {
	level := 0
	for _, l := range p.lines {
		for _, f := range l.frags {
			if f.heading == 0 || level != 0 && int(f.heading) != level {
				return 0
			}
			level = int(f.heading)
		}
	}
	return level
}

// rows counts a paragraph's visual rows (cells on one row count once).
func rows(p *paragraph) int {
	n := 1
	for i := 1; i < len(p.lines); i++ {
		a, b := p.lines[i-1], p.lines[i]
		if !sameRow(a.y0, a.y1, b.y0, b.y1) {
			n++
		}
	}
	return n
}

// flattenOutline lists bookmarks depth first.
func flattenOutline(bms []responses.GetBookmarksBookmark, level int, out []outlineItem) []outlineItem {
	for _, b := range bms {
		page := -1
		if b.DestInfo != nil {
			page = b.DestInfo.PageIndex
		}
		out = append(out, outlineItem{title: strings.TrimSpace(b.Title), page: page, level: level})
		out = flattenOutline(b.Children, level+1, out)
	}
	return out
}

// headingKey compares heading texts: letters and digits only, lower case.
func headingKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// affiliationRE matches lines of a paper's front matter that are not
// author names.
var affiliationRE = regexp.MustCompile(`(?i)@|univers|department|institut|school|college|laborator|\blab\b|research|inc\.|ltd|corporation|google|microsoft|meta\b|amazon|academy|centre|center|大学|学院|研究`)

// markHeadings finds the title, the authors and the section headings
// among the body paragraphs (in reading order, before any joining).
// Headings come from the outline when most of its entries are found on
// their pages; otherwise from the tagged structure (H, H1..H6) where the
// PDF is tagged, and from the text: numbered lines set in bold or a
// larger size, in order (1, 1.1, 2, ..., A, B), named ones (Abstract,
// References, ...), and back-matter names (Limitations, Ethics Statement,
// Conclusion, ...) alone on a line set in bold or a larger size.
// When no styled numbered heading exists, numbered lines in order count
// whatever their style.
func markHeadings(paras []*paragraph, lay *layout, outline []outlineItem) {
	body := lay.body
	text := func(p *paragraph) string {
		var parts []string
		for _, l := range p.lines {
			parts = append(parts, l.text)
		}
		return strings.Join(parts, " ")
	}
	// The title: the largest text in the top half of page 1.
	var title *paragraph
	for _, p := range paras {
		if p.page != 0 {
			break
		}
		l := p.first()
		if l.y1 < 0.5*lay.pages[0].height || l.size < body+2 || len(p.lines) > 3 {
			continue
		}
		if title == nil || l.size > title.first().size {
			title = p
		}
	}
	if title != nil {
		title.kind = Title
		lay.title = text(title)
	}

	useOutline := false
	if len(outline) > 0 {
		found := 0
		for _, o := range outline {
			for _, p := range paras {
				if (o.page < 0 || p.page == o.page) && headingKey(text(p)) == headingKey(o.title) {
					found++
					break
				}
			}
		}
		useOutline = found*2 >= len(outline)
	}
	find := func(styledOnly bool) int {
		var cur *headingNumber
		n := 0
		for _, p := range paras {
			if p.kind != Body && p.kind != Heading {
				continue
			}
			p.kind, p.level = Body, 0
			t := text(p)
			if len(p.lines) > 2 || len(t) > 150 {
				continue
			}
			l := p.first()
			styled := l.bold || l.size >= body+0.8
			if useOutline {
				for _, o := range outline {
					if (o.page < 0 || p.page == o.page) && headingKey(t) == headingKey(o.title) {
						p.kind, p.level = Heading, o.level
						break
					}
				}
				if p.kind == Heading {
					continue
				}
			}
			if l := taggedHeading(p); l > 0 {
				p.kind, p.level = Heading, l
				continue
			}
			if rows(p) == 1 && (isNamedHeading(t) || styled && len(p.lines) == 1 && isBackMatterHeading(t)) {
				p.kind, p.level = Heading, 1
				continue
			}
			if useOutline {
				continue
			}
			if num, ok := parseHeading(t); ok && (styled || !styledOnly) && follows(cur, num) {
				nn := num
				cur = &nn
				p.kind, p.level = Heading, len(num.parts)
				n++
				continue
			}
		}
		return n
	}
	if find(true) == 0 {
		find(false)
	}

	// Authors: on page 1 after the title and before the first heading,
	// the first paragraph that is neither an affiliation nor an address.
	if title == nil {
		return
	}
	after := false
	for _, p := range paras {
		if p == title {
			after = true
			continue
		}
		if !after {
			continue
		}
		if p.page != 0 || p.kind == Heading {
			break
		}
		t := text(p)
		if affiliationRE.MatchString(t) || len(p.lines) > 3 || p.first().size < body-0.5 {
			continue
		}
		for _, l := range p.lines {
			for _, f := range l.frags {
				for _, name := range strings.FieldsFunc(string(f.text), func(r rune) bool { return r == wideSpace || r == ',' }) {
					for _, n := range strings.Split(cleanLine(name), " and ") {
						n = strings.TrimPrefix(strings.Trim(n, ",*†‡-0123456789 "+superscripts), "and ")
						if n != "" {
							lay.authors = append(lay.authors, n)
						}
					}
				}
			}
		}
		p.kind = Authors
		break
	}
}
