package ui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles holds every style of the chat; one value per background (light or
// dark), built by NewStyles. Panes never build styles of their own.
type Styles struct {
	Dark bool

	Chip         lipgloss.Style // a cited reference node [n]
	ChipSelected lipgloss.Style // the selected node
	ChipInferred lipgloss.Style // a reference attributed by overlap, not cited by the model
	ChipUnknown  lipgloss.Style // an id the model made up: [?]

	Question lipgloss.Style // "› question" lines
	Note     lipgloss.Style // interrupted / error / info lines under an answer
	Error    lipgloss.Style
	Dim      lipgloss.Style

	PaneTitle        lipgloss.Style
	PaneTitleFocused lipgloss.Style
	Border           lipgloss.Style // pane borders
	BorderFocused    lipgloss.Style

	SourceNumber   lipgloss.Style
	SourceTitle    lipgloss.Style
	SourceSelected lipgloss.Style // background of the selected entry

	Status      lipgloss.Style
	StatusKey   lipgloss.Style
	ViewerHead  lipgloss.Style
	ViewerCited lipgloss.Style // the cited segment in the viewer
	ViewerOther lipgloss.Style // its neighbours

	chips map[chipKey]string // drawn chips, by kind, number and selection
}

type chipKey struct {
	kind     nodeKind
	num      int
	selected bool
}

// chip returns the drawn chip of a node; drawing a chip with lipgloss costs
// more than the rest of a frame, so each is drawn once.
func (s *Styles) chip(k nodeKind, n int, selected bool) string {
	key := chipKey{k, n, selected}
	if c, ok := s.chips[key]; ok {
		return c
	}
	if s.chips == nil {
		s.chips = map[chipKey]string{}
	}
	c := chipStyle(s, k, selected).Render(chipText(k, n))
	s.chips[key] = c
	return c
}

// NewStyles returns the styles for a dark or light background.
func NewStyles(dark bool) *Styles {
	ld := lipgloss.LightDark(dark)
	accent := ld(lipgloss.Color("#1F5FBF"), lipgloss.Color("#6FB3FF"))
	accentBg := ld(lipgloss.Color("#DCE8FA"), lipgloss.Color("#1E3550"))
	selBg := ld(lipgloss.Color("#1F5FBF"), lipgloss.Color("#6FB3FF"))
	selFg := ld(lipgloss.Color("#FFFFFF"), lipgloss.Color("#101418"))
	inferred := ld(lipgloss.Color("#8A5A00"), lipgloss.Color("#E0B050"))
	unknown := ld(lipgloss.Color("#B3261E"), lipgloss.Color("#FF7A70"))
	dim := ld(lipgloss.Color("#6B6B6B"), lipgloss.Color("#8A8A8A"))
	text := ld(lipgloss.Color("#1A1A1A"), lipgloss.Color("#E6E6E6"))
	border := ld(lipgloss.Color("#C8C8C8"), lipgloss.Color("#444444"))
	var none color.Color
	_ = none
	return &Styles{
		Dark:             dark,
		Chip:             lipgloss.NewStyle().Foreground(accent).Background(accentBg).Bold(true),
		ChipSelected:     lipgloss.NewStyle().Foreground(selFg).Background(selBg).Bold(true),
		ChipInferred:     lipgloss.NewStyle().Foreground(inferred).Italic(true).Underline(true),
		ChipUnknown:      lipgloss.NewStyle().Foreground(unknown).Strikethrough(true),
		Question:         lipgloss.NewStyle().Foreground(accent).Bold(true),
		Note:             lipgloss.NewStyle().Foreground(inferred).Italic(true),
		Error:            lipgloss.NewStyle().Foreground(unknown).Bold(true),
		Dim:              lipgloss.NewStyle().Foreground(dim),
		PaneTitle:        lipgloss.NewStyle().Foreground(dim).Bold(true),
		PaneTitleFocused: lipgloss.NewStyle().Foreground(accent).Bold(true),
		Border:           lipgloss.NewStyle().Foreground(border),
		BorderFocused:    lipgloss.NewStyle().Foreground(accent),
		SourceNumber:     lipgloss.NewStyle().Foreground(accent).Bold(true),
		SourceTitle:      lipgloss.NewStyle().Foreground(text).Bold(true),
		SourceSelected:   lipgloss.NewStyle().Background(accentBg),
		Status:           lipgloss.NewStyle().Foreground(dim),
		StatusKey:        lipgloss.NewStyle().Foreground(accent).Bold(true),
		ViewerHead:       lipgloss.NewStyle().Foreground(accent).Bold(true),
		ViewerCited:      lipgloss.NewStyle().Foreground(text).Background(accentBg),
		ViewerOther:      lipgloss.NewStyle().Foreground(dim),
	}
}
