package extractive

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// cand is a piece of a passage the answer may quote: a whole sentence of
// prose, or a table (the PDF engine's one-line table, or a Markdown
// table's header with one of its rows). What it is and where it lies
// decide whether it may be quoted at all (a fragment may not) and how its
// score is weighed.
type cand struct {
	seg    *store.Segment // the segment that holds it: the passage's hit or a neighbour
	hitID  string         // the passage's hit
	doc    *store.Document
	k      int // alias of the passage that offered it
	rank   int // that passage's rank, from 0
	segPos int // seg's place in the passage's window
	pos    int // its place among seg's units
	span   ingest.Span
	text   string // as quoted
	row    string // a Markdown table's row, what it is matched by (its header is context)
	toks   []string
	terms  map[string]bool
	// frame are the terms of a table row's header and caption, which
	// are quoted with it: they say what its cells are.
	frame map[string]bool
	// before is the unit just before it in its passage's window (nil:
	// none, or not known): a lead-in there introduces it.
	before *cand

	table    bool // a table: quoted as a table, never as a row stripped of its header
	bare     bool // a PDF table's row that came out without its bars: quoted only for a number
	caption  bool // "Table 3: …", "Figure 2: …"
	prompt   bool // a line of a prompt or worked example the paper prints
	refs     bool // a bibliography entry
	fragment bool // does not start or end as a sentence does
	code     bool // LaTeX, a command line, a configuration line
	leadIn   bool // ends with ':' or is a run-in heading ("Citation recall.")
	// block is the fenced code block it introduces: it ends with a colon
	// and the block follows it in its segment (empty: none).
	block ingest.Span
	// inList: it is a list's item, or a sentence of one; list is that
	// list's lead-in (nil: none known); opensList: the list opens its
	// segment, so that its lead-in may be in the segment before.
	inList    bool
	item      bool // it opens an item of a list
	opensList bool
	list      *listLead
	asLead    *listLead // it ends with a colon: the lead-in it is to a list after it
	leadHere  bool      // list's lead-in is just before it in its segment (it is the first item)
	leadGap   bool      // other items lie between list's lead-in and it

	score float64
	why   []string
}

// Patterns of what a unit is.
var (
	reCaption      = regexp.MustCompile(`^(Table|Figure|Fig\.|Algorithm|Listing)\s*[A-Z]?\d+[.:]`)
	rePromptLn     = regexp.MustCompile(`^(Instruction|Question|Original question|Answer|Q|A|Title|Document|Demonstration|Sub-claims?|Claim|Passage|Summary|Extracted span|Output|Input|Context)\s*(\d+|\[\d+\]|\(\d+\))?\s*:|^Document\s*[\[(]\d+[\])]`)
	rePromptCa     = regexp.MustCompile(`^(Table|Figure)\s*\d+:\s*(Prompts? (used|for)\b|Instructions? for\b|.*\bexample \d+\.?$)`)
	reRefEntry     = regexp.MustCompile(`^[\[(]\d{1,3}[\])]\s+\p{Lu}[\p{L}'’-]+,|\bIn Proceedings of\b|\barXiv preprint\b|\bpp\.\s*\d+`)
	reTableCaption = regexp.MustCompile(`(?m)^Table\s*[A-Z]?\d+[.:]`)
	reMDSep        = regexp.MustCompile(`^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$`)
)

// The patterns run on every line of every passage an answer weighs; each
// is asked only where a string it needs is there: the same results,
// without running the regular expression where it cannot match.

// isPromptLine is rePromptLn.MatchString(s): a match has a colon or
// opens with "Document".
func isPromptLine(s string) bool {
	return (strings.IndexByte(s, ':') >= 0 || strings.HasPrefix(s, "Document")) && rePromptLn.MatchString(s)
}

// isPromptCaption is rePromptCa.MatchString(s): a match opens with
// "Table" or "Figure".
func isPromptCaption(s string) bool {
	return (strings.HasPrefix(s, "Table") || strings.HasPrefix(s, "Figure")) && rePromptCa.MatchString(s)
}

// isRefEntry is reRefEntry.MatchString(s): a match opens with a bracket
// or holds "In Proceedings of", "arXiv preprint" or "pp.".
func isRefEntry(s string) bool {
	return (strings.HasPrefix(s, "[") || strings.HasPrefix(s, "(") || strings.Contains(s, "In Proceedings of") ||
		strings.Contains(s, "arXiv preprint") || strings.Contains(s, "pp.")) && reRefEntry.MatchString(s)
}

// hasTableCaption is reTableCaption.MatchString(text): a match holds
// "Table".
func hasTableCaption(text string) bool {
	return strings.Contains(text, "Table") && reTableCaption.MatchString(text)
}

// terminal are the runes a sentence of prose ends with (before closing
// quotes, brackets and footnote marks).
const terminal = ".!?:;。！？；…"

// units splits a segment's text into what may be quoted: sentences
// (splitQuotes' rules: whole sentences, never inside a code span or a
// fence, markers taken off) and tables. prev is the text of the segment
// before it in the document, if the window holds it ("": unknown), to
// tell a sentence cut at the segment's start.
func units(text, prev string, known bool) []cand {
	head, sep := "", ""
	if known {
		head, sep = tableHeadAtEnd(prev)
	}
	return unitsUnder(text, prev, known, head, sep)
}

// unitsUnder is units of a segment that may open with rows of a table
// cut between rows, whose header and separator, from a segment before
// it, are head and sep ("": none known).
func unitsUnder(text, prev string, known bool, head, sep string) []cand {
	tables := hasTableCaption(text)
	fences := ingest.FencedBlocks(text)
	var out []cand
	var tableHead, tableSep string
	inTable := false
	if opensWithRows(text) {
		// A long table is cut between rows: a segment that opens with
		// rows has its header in a segment before; when that is not at
		// hand, its rows are quoted under an empty header (the table's
		// section says what they are).
		if head == "" {
			head, sep = emptyHead(strings.TrimLeft(text, " \t\r\n"))
		}
		inTable, tableHead, tableSep = true, head, sep
	}
	var dotHead, caption string // a PDF table's header row, and the caption before it
	ls := &lists{text: text}
	for _, sp := range ingest.Sentences(text) {
		if inFence(sp, fences) {
			continue
		}
		raw := strings.TrimSpace(text[sp.Start:sp.End])
		if dotRow(raw) {
			// A row of a PDF table (cells joined by " · ", a row a
			// paragraph): the first is its header, the rest are quoted
			// with it and the caption, as a Markdown table.
			if dotHead == "" {
				dotHead = raw
				continue
			}
			c := cand{span: TrimSpan(text, sp), text: markdownTable(caption, dotHead, raw), row: raw, table: true}
			out = append(out, c)
			continue
		}
		dotHead = ""
		if strings.HasPrefix(raw, "|") {
			// A Markdown table row: the first is its header, the second
			// its separator, the rest are quoted with the header.
			switch {
			case !inTable:
				inTable, tableHead, tableSep = true, raw, ""
			case tableSep == "" && reMDSep.MatchString(raw):
				tableSep = raw
			case tableSep != "":
				c := cand{span: TrimSpan(text, sp), text: linkText(tableHead + "\n" + tableSep + "\n" + raw), row: raw, table: true}
				out = append(out, c)
			}
			continue
		}
		if inTable {
			ls.reset()
		}
		inTable = false
		s := strings.Join(strings.Fields(raw), " ")
		s = linkText(strings.TrimLeft(s, markers))
		s = strings.NewReplacer("**", "", "__", "").Replace(s)
		if len(s) < 12 || strings.HasPrefix(s, "#") || !closedSpans(s) ||
			strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~") {
			ls.sentence(TrimSpan(text, sp), s)
			continue
		}
		c := cand{span: TrimSpan(text, sp), text: s}
		c.table = strings.Count(s, " | ") >= 3
		c.caption = reCaption.MatchString(s)
		if c.caption {
			caption = s
		}
		c.prompt = isPromptLine(s)
		c.refs = isRefEntry(s)
		c.code = codeLike(s)
		end := lastRune(s)
		c.leadIn = end == ':' || (end == '.' && (len(strings.Fields(s)) <= 4 || boldLine(raw)) && !c.caption)
		if !c.table && tables && !strings.ContainsRune(terminal, end) && reDigit.MatchString(s) && len(strings.Fields(s)) <= 30 {
			// A row of a PDF table whose cells came out without their
			// bars: quoted as the table line it is, for a number only.
			c.table, c.bare = true, true
		}
		if !c.table && !c.code {
			c.fragment = !strings.ContainsRune(terminal, end) ||
				(len(out) == 0 && sp.Start == firstNonSpace(text) && cutBefore(s, prev, known))
		}
		ls.unit(&c, len(out) == 0)
		if strings.HasSuffix(s, ":") {
			c.block = blockAfter(text, sp.End, fences)
			s = s[:len(s)-1] + "."
			c.text = s
		}
		out = append(out, c)
	}
	for i := range out {
		out[i].pos = i
	}
	return out
}

// maxBlockLines is the most lines a code block may have to be quoted
// with the sentence that introduces it.
const maxBlockLines = 12

// blockAfter is the fenced block of fences that opens after white space
// at end of text, if it has at most maxBlockLines lines (empty: none).
func blockAfter(text string, end int, fences []ingest.Span) ingest.Span {
	for _, f := range fences {
		if f.Start >= end && strings.TrimSpace(text[end:f.Start]) == "" {
			if strings.Count(strings.TrimRight(text[f.Start:f.End], "\n"), "\n") <= maxBlockLines+1 {
				return f
			}
			break
		}
	}
	return ingest.Span{}
}

// tableHeadAtEnd is the header and separator of the Markdown table that
// text ends with, when that table's header is in text ("" if it ends
// with no table, or with rows whose header is further back).
func tableHeadAtEnd(text string) (head, sep string) {
	lines := strings.Split(strings.TrimRight(text, " \t\r\n"), "\n")
	i := len(lines)
	for i > 0 && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "|") {
		i--
	}
	if len(lines)-i < 2 {
		return "", ""
	}
	head, sep = strings.TrimSpace(lines[i]), strings.TrimSpace(lines[i+1])
	if !reMDSep.MatchString(sep) {
		return "", ""
	}
	return head, sep
}

// windowTableHead is the header and separator of the table whose rows
// segment i of a window opens with, found in the segments before it in
// the window, in a row ("" when none of them holds it).
func windowTableHead(w []store.Segment, i int) (head, sep string) {
	for j := i - 1; j >= 0 && w[j].Index == w[j+1].Index-1; j-- {
		if head, sep = tableHeadAtEnd(w[j].Text); head != "" {
			return head, sep
		}
		if !onlyRows(w[j].Text) {
			break
		}
	}
	return "", ""
}

// onlyRows reports whether every line of text that is not blank is a
// row of a Markdown table.
func onlyRows(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "|") {
			return false
		}
	}
	return true
}

// emptyHead is an empty header and its separator for the table row
// that text opens with, a cell for each of its cells.
func emptyHead(text string) (head, sep string) {
	row, _, _ := strings.Cut(text, "\n")
	n := max(1, strings.Count(strings.ReplaceAll(strings.TrimSpace(row), `\|`, ""), "|")-1)
	return "|" + strings.Repeat("  |", n), "|" + strings.Repeat("---|", n)
}

// opensWithRows reports whether text opens with rows of a Markdown
// table that have no header of their own (the second line is no
// separator).
func opensWithRows(text string) bool {
	lines := strings.SplitN(strings.TrimLeft(text, " \t\r\n"), "\n", 3)
	return strings.HasPrefix(lines[0], "|") && (len(lines) < 2 || !reMDSep.MatchString(strings.TrimSpace(lines[1])))
}

// boldLine reports whether a sentence is set in bold as a whole, as a
// run-in heading is ("**When the library does not answer.**").
func boldLine(raw string) bool {
	raw = strings.TrimLeft(raw, "-+> \t\r\n")
	raw = strings.TrimLeft(strings.TrimPrefix(raw, "* "), " ")
	for _, b := range []string{"**", "__"} {
		// The closing marker may open the next sentence, as the splitter
		// leaves it ("**When … answer." "** Before …").
		if body, ok := strings.CutPrefix(raw, b); ok && len(body) > 2 && !strings.Contains(strings.TrimSuffix(body, b), b) {
			return len(strings.Fields(raw)) <= 10
		}
	}
	return false
}

// dotRow reports whether a paragraph is a row of a PDF table: cells
// joined by " · " on one line.
func dotRow(s string) bool {
	return strings.Count(s, " · ") >= 1 && !strings.Contains(s, "\n")
}

// markdownTable writes a PDF table's header and one of its rows, and the
// caption above them if there is one, as Markdown: a row with one cell
// more than the header (its label) gets an empty header cell.
func markdownTable(caption, head, row string) string {
	hc, rc := strings.Split(head, " · "), strings.Split(row, " · ")
	for len(hc) < len(rc) {
		hc = append([]string{""}, hc...)
	}
	for len(rc) < len(hc) {
		rc = append(rc, "")
	}
	line := func(cells []string) string {
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(strings.TrimSpace(c), "|", `\|`)
		}
		return "| " + strings.Join(cells, " | ") + " |"
	}
	sep := strings.Repeat("|---", len(hc)) + "|"
	t := line(hc) + "\n" + sep + "\n" + line(rc)
	if caption != "" {
		t = caption + "\n\n" + t
	}
	return t
}

// lastRune is the last rune of s that is not a closing quote or bracket,
// a superscript or a footnote digit glued to a word.
func lastRune(s string) rune {
	for s != "" {
		r, n := utf8.DecodeLastRuneInString(s)
		switch {
		case strings.ContainsRune(`"'”’)]}»」』）`, r) || unicode.Is(unicode.No, r) || r == '*':
			s = s[:len(s)-n]
			continue
		}
		return r
	}
	return 0
}

// cutBefore reports whether s, a segment's first sentence, looks cut: it
// starts in lower case (or with punctuation that cannot start a
// sentence) and the segment before it, when known, did not end one.
func cutBefore(s, prev string, known bool) bool {
	r := firstRune(s)
	if r == 0 || !(unicode.IsLower(r) || strings.ContainsRune(",;)]}.", r)) {
		return false
	}
	if !known {
		return true
	}
	return !strings.ContainsRune(terminal, lastRune(strings.TrimSpace(prev)))
}

func firstNonSpace(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t\r\n"))
}

// codeLike reports whether s reads as code rather than prose: LaTeX, a
// command line, a configuration line.
func codeLike(s string) bool {
	if strings.HasPrefix(s, `\`) || strings.HasPrefix(s, "$ ") || strings.HasPrefix(s, "% ") {
		return true
	}
	sym := 0
	for _, r := range s {
		if strings.ContainsRune(`\{}=%$&_^<>`, r) {
			sym++
		}
	}
	return sym*12 > utf8.RuneCountInString(s)
}

// promptSegment reports whether a segment's text is a prompt or worked
// example the paper prints (an appendix of prompts): a caption that says
// so, or most of its lines prompt lines.
func promptSegment(text string) bool {
	lines, prompt := 0, 0
	for l := range strings.Lines(text) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if isPromptCaption(l) {
			return true
		}
		lines++
		if isPromptLine(l) {
			prompt++
		}
	}
	return lines > 0 && prompt*3 >= lines
}
