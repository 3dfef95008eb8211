package ui

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// exampleCount is how many example questions the first screen offers.
const exampleCount = 3

// headingsMsg carries the library's headings, read in a command.
type headingsMsg []string

// headingsCmd reads headings for the first screen's examples, when the
// backend can list them (HeadingLister).
func headingsCmd(b Backend) tea.Cmd {
	hl, ok := b.(HeadingLister)
	if !ok {
		return nil
	}
	return func() tea.Msg { return headingsMsg(hl.Headings(60)) }
}

// boringHeading matches headings that make poor questions.
var boringHeading = regexp.MustCompile(`(?i)^(abstract|introduction|conclusions?|references|bibliography|acknowledg(e)?ments?|contents|table of contents|appendix.*|notes?|summary|background|discussion|methods?|results|index)$`)

// numbering matches a heading's leading section number ("2.1 ", "IV. ",
// an appendix's "E.2 "); appendixLetter an appendix's letter before a
// capitalised word ("B Implementation Details", "C. Proofs").
var (
	numbering      = regexp.MustCompile(`^([0-9]+(\.[0-9]+)*\.?|[IVXLC]+\.|[A-Z](\.[0-9]+)+\.?)\s+`)
	appendixLetter = regexp.MustCompile(`^[A-Z]\.?\s+(\p{Lu})`)
)

// exampleQuestions turns up to n headings, spread over the list, into
// questions; generic headings (Introduction, References...) are skipped.
func exampleQuestions(headings []string, n int) []string {
	var good []string
	seen := map[string]bool{}
	for _, h := range headings {
		h = strings.TrimSpace(numbering.ReplaceAllString(strings.TrimSpace(h), ""))
		h = appendixLetter.ReplaceAllString(h, "$1")
		h = strings.Trim(h, "#*_ :")
		if len(h) < 4 || len(h) > 70 || boringHeading.MatchString(h) || seen[strings.ToLower(h)] {
			continue
		}
		seen[strings.ToLower(h)] = true
		good = append(good, h)
	}
	var out []string
	for i := 0; i < n && i < len(good); i++ {
		h := good[i*len(good)/min(n, len(good))]
		out = append(out, fmt.Sprintf("What do my documents say about %q?", lowerFirst(h)))
	}
	return out
}

// lowerFirst lower-cases a heading's first letter unless it starts an
// acronym or a name with capitals inside ("BM25", "PostgreSQL").
func lowerFirst(s string) string {
	w, rest, _ := strings.Cut(s, " ")
	if len(w) > 1 && strings.ToLower(w[1:]) != w[1:] {
		return s // an acronym or a name: "PostgreSQL storage"
	}
	for _, v := range strings.Fields(rest) {
		if r, _ := utf8.DecodeRuneInString(v); unicode.IsUpper(r) {
			return s // title case reads as a title: "Task Setup and Datasets"
		}
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// welcome is the first screen, before any question: what is open, and
// questions to try, drawn from the library's own headings.
func (m *Model) welcome() string {
	st := m.c.Styles
	w := max(m.width, 20)
	var lines []string
	add := func(s string) {
		for _, l := range strings.Split(ansi.Wrap(s, w-2, " "), "\n") {
			lines = append(lines, "  "+l)
		}
	}
	lines = append(lines, "")
	add(st.StatusKey.Render("ibid") + st.Text.Render(" · ask your documents; every claim cites its passage"))
	lines = append(lines, "")
	docs := fmt.Sprintf("%d documents", m.lib.size)
	if m.lib.size == 1 {
		docs = "1 document"
	}
	add(st.Dim.Render("library  ") + st.Text.Render(m.lib.name+" · "+docs))
	model := m.lib.modelLabel()
	if m.lib.extractive || m.lib.model == "" || model == m.lib.model && strings.HasPrefix(model, "extractive") {
		model = "extractive: answers quote your documents' best-matching sentences"
	}
	add(st.Dim.Render("model    ") + st.Text.Render(model))
	lines = append(lines, "")
	switch ex := exampleQuestions(m.headings, exampleCount); {
	case m.lib.size == 0:
		add(st.Note.Render("The library is empty: type /add PATH (files, folders, globs) to add documents."))
	case len(ex) > 0:
		add(st.Dim.Render("Try asking (↑ puts one in the input):"))
		for _, q := range ex {
			add(st.Question.Render("› ") + st.Text.Render(q))
		}
	default:
		add(st.Dim.Render("Type a question and press enter."))
	}
	lines = append(lines, "")
	add(st.Dim.Render("enter sends · ? or f1 shows every key · /add PATH adds documents"))
	h := m.bodyHeight()
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
