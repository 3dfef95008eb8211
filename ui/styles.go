package ui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	"charm.land/lipgloss/v2"

	"github.com/ibid-dev/ibid/ui/render"
	"github.com/ibid-dev/ibid/ui/viewer"
)

// styles holds every style of the chat, built from one theme by newStyles
// (light or dark). Panes never build styles of their own.
type styles struct {
	Theme theme
	Dark  bool

	ChipCited    lipgloss.Style // a cited reference node [n]
	ChipSelected lipgloss.Style // the selected node
	ChipInferred lipgloss.Style // a reference attributed by overlap, not cited by the model
	ChipUnknown  lipgloss.Style // an id the model made up: [?]
	// ChipUnsupported is a cited node whose passage does not support the
	// sentence that cites it: [n✗], the mark readable without colour.
	ChipUnsupported lipgloss.Style

	Question lipgloss.Style // "› question" lines
	Note     lipgloss.Style // interrupted / error / info lines under an answer
	Error    lipgloss.Style
	Dim      lipgloss.Style
	Text     lipgloss.Style

	PaneTitle        lipgloss.Style
	PaneTitleFocused lipgloss.Style
	Border           lipgloss.Style // pane borders
	BorderFocused    lipgloss.Style

	SourceNumber   lipgloss.Style
	SourceTitle    lipgloss.Style
	SourceSelected lipgloss.Style // background of the selected entry

	Status      lipgloss.Style
	StatusKey   lipgloss.Style
	Tooltip     lipgloss.Style // the cited snippet beside a selected chip
	TooltipDim  lipgloss.Style // its title and page line
	TooltipWarn lipgloss.Style // the tooltip's word on a footnote its passage does not support

	Viewer viewer.Styles // the passage viewer's

	Help  help.Styles     // the help bar and the ? screen
	Input textarea.Styles // the question box

	chips map[chipKey]string // drawn chips, by kind, number and selection
}

type chipKey struct {
	kind     render.NodeKind
	num      int
	selected bool
}

// Chip returns the drawn chip of a node (render.Chips); drawing a chip
// with lipgloss costs more than the rest of a frame, so each is drawn once.
func (s *styles) Chip(k render.NodeKind, n int, selected bool) string {
	key := chipKey{k, n, selected}
	if c, ok := s.chips[key]; ok {
		return c
	}
	if s.chips == nil {
		s.chips = map[chipKey]string{}
	}
	c := chipStyle(s, k, selected).Render(render.ChipText(k, n))
	s.chips[key] = c
	return c
}

// newStyles returns the styles for a dark or light background.
func newStyles(dark bool) *styles { return stylesFor(themeFor(dark)) }

// stylesFor builds every style from a theme's palette.
func stylesFor(th theme) *styles {
	ns := lipgloss.NewStyle
	st := &styles{
		Theme:            th,
		Dark:             th.Dark,
		ChipCited:        ns().Foreground(th.Accent).Background(th.AccentBg).Bold(true),
		ChipSelected:     ns().Foreground(th.SelFg).Background(th.SelBg).Bold(true),
		ChipInferred:     ns().Foreground(th.Inferred).Italic(true).Underline(true),
		ChipUnknown:      ns().Foreground(th.Unknown).Strikethrough(true),
		ChipUnsupported:  ns().Foreground(th.Unknown).Bold(true),
		Question:         ns().Foreground(th.Accent).Bold(true),
		Note:             ns().Foreground(th.Inferred).Italic(true),
		Error:            ns().Foreground(th.Unknown).Bold(true),
		Dim:              ns().Foreground(th.Dim),
		Text:             ns().Foreground(th.Text),
		PaneTitle:        ns().Foreground(th.Dim).Bold(true),
		PaneTitleFocused: ns().Foreground(th.Accent).Bold(true),
		Border:           ns().Foreground(th.Border),
		BorderFocused:    ns().Foreground(th.Accent),
		SourceNumber:     ns().Foreground(th.Accent).Bold(true),
		SourceTitle:      ns().Foreground(th.Text).Bold(true),
		SourceSelected:   ns().Background(th.AccentBg),
		Status:           ns().Foreground(th.Dim),
		StatusKey:        ns().Foreground(th.Accent).Bold(true),
		Tooltip:          ns().Foreground(th.Text).Background(th.AccentBg),
		TooltipDim:       ns().Foreground(th.Dim).Background(th.AccentBg),
		TooltipWarn:      ns().Foreground(th.Unknown).Background(th.AccentBg).Bold(true),
	}
	st.Viewer = viewer.Styles{
		Head:     ns().Foreground(th.Accent).Bold(true),
		Cited:    ns().Foreground(th.Text).Background(th.AccentBg),
		Focus:    ns().Foreground(th.Text).Background(th.FocusBg).Bold(true),
		Other:    ns().Foreground(th.Dim),
		On:       st.SourceTitle,
		Border:   st.Border,
		Dim:      st.Dim,
		HelpKey:  ns().Foreground(th.Accent).Bold(true),
		HelpDesc: ns().Foreground(th.Dim),
	}
	st.Help = help.Styles{
		ShortKey:       ns().Foreground(th.Accent).Bold(true),
		ShortDesc:      ns().Foreground(th.Dim),
		ShortSeparator: ns().Foreground(th.Dim),
		Ellipsis:       ns().Foreground(th.Dim),
		FullKey:        ns().Foreground(th.Accent).Bold(true),
		FullDesc:       ns().Foreground(th.Dim),
		FullSeparator:  ns().Foreground(th.Dim),
	}
	in := textarea.DefaultStyles(th.Dark)
	for _, s := range []*textarea.StyleState{&in.Focused, &in.Blurred} {
		s.Base = ns()
		s.Text = ns().Foreground(th.Text)
		s.CursorLine = ns().Foreground(th.Text)
		s.Placeholder = ns().Foreground(th.Dim)
		s.Prompt = ns().Foreground(th.Dim)
		s.EndOfBuffer = ns().Foreground(th.Dim)
		s.LineNumber = ns().Foreground(th.Dim)
		s.CursorLineNumber = ns().Foreground(th.Dim)
		s.Selection = ns().Foreground(th.Text).Background(th.AccentBg)
	}
	in.Focused.Prompt = ns().Foreground(th.Accent)
	in.Cursor.Color = th.Accent
	in.Cursor.Blink = false // steadier in recordings and cheaper to draw
	st.Input = in
	return st
}

func chipStyle(st *styles, k render.NodeKind, selected bool) (s styleRenderer) {
	switch {
	case selected:
		return st.ChipSelected
	case k == render.Inferred:
		return st.ChipInferred
	case k == render.Unknown:
		return st.ChipUnknown
	case k == render.Unsupported:
		return st.ChipUnsupported
	}
	return st.ChipCited
}

// styleRenderer is the one method of lipgloss.Style the chips use.
type styleRenderer interface{ Render(...string) string }
