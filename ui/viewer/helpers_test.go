package viewer

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// testKeys are the chat's viewer keys.
func testKeys() Keys {
	b := func(keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], keys[0]))
	}
	return Keys{Back: b("esc", "q"), NextSeg: b("n"), PrevSeg: b("p"), Edit: b("o"), Page: b("i"), Up: b("up", "k"), Down: b("down", "j"),
		PageUp: b("pgup", "b"), PageDown: b("pgdown", "space", "f"), Help: b("?", "f1")}
}

// testStyles are coloured like the chat's dark theme's.
func testStyles() Styles {
	ns := lipgloss.NewStyle
	accent, text, dim, bg := lipgloss.Color("#7CBBFF"), lipgloss.Color("#E6E6E6"), lipgloss.Color("#A8A8A8"), lipgloss.Color("#1B2F47")
	return Styles{Head: ns().Foreground(accent).Bold(true), Cited: ns().Foreground(text).Background(bg),
		Focus: ns().Foreground(text).Background(lipgloss.Color("#2B4A73")).Bold(true), Other: ns().Foreground(dim),
		On: ns().Foreground(text).Bold(true), Border: ns().Foreground(lipgloss.Color("#4A4A4A")), Dim: ns().Foreground(dim),
		HelpKey: ns().Foreground(accent).Bold(true), HelpDesc: ns().Foreground(dim)}
}

// press is a key press of a named key or a character.
func press(k string) tea.KeyPressMsg {
	switch k {
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// paperContent is doc's six one-line passages, one a page from p. 1, the
// one with the id cited opened on.
func paperContent(doc store.Document, cited string) Content {
	var segs []store.Segment
	for i := range 6 {
		segs = append(segs, store.Segment{ID: fmt.Sprintf("%s:%d", doc.ID, i), DocumentID: doc.ID, Index: i,
			Text:    fmt.Sprintf("Passage %d: the measured effect holds in segment %d.", i, i),
			Section: []string{"Results"}, PageStart: i + 1, PageEnd: i + 1})
	}
	return Content{Source: rag.Source{Number: 2, SegmentID: cited, Title: doc.Title}, Doc: doc, Segs: segs}
}
