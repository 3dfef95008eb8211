package ui

import (
	"image/color"
	"math"
	"os"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/ibid-dev/ibid/ui/render"
)

// theme is the palette of one background. Every text colour is chosen to
// read at WCAG AA (a contrast ratio of at least 4.5:1) against each of
// Backgrounds and, where it is drawn on one, against AccentBg or SelBg;
// TestThemeContrast checks every style built from it.
type theme struct {
	Name string // "dark" or "light"
	Dark bool
	// Backgrounds are the terminal backgrounds the palette must read on:
	// the darkest and lightest common ones of its kind.
	Backgrounds []color.Color

	Text     color.Color // body text where ibid sets it
	Dim      color.Color // secondary text: metadata, hints, placeholders
	Accent   color.Color // chips, keys, titles
	AccentBg color.Color // behind chips, the selected source, the cited passage
	FocusBg  color.Color // behind the part of the cited passage that matched: stronger than AccentBg
	SelFg    color.Color // the selected chip's text
	SelBg    color.Color // the selected chip's background
	Inferred color.Color // inferred references and notes
	Unknown  color.Color // unknown references and errors
	Border   color.Color // rules and separators (decoration, not text)
	CodeBg   color.Color // behind code spans and blocks in answers
}

// darkTheme and lightTheme are the two palettes.
var (
	darkTheme = theme{
		Name: "dark", Dark: true,
		Backgrounds: []color.Color{hex("#000000"), hex("#2A2A2A")},
		Text:        hex("#E6E6E6"),
		Dim:         hex("#A8A8A8"),
		Accent:      hex("#7CBBFF"),
		AccentBg:    hex("#1B2F47"),
		FocusBg:     hex("#2B4A73"),
		SelFg:       hex("#0B1520"),
		SelBg:       hex("#7CBBFF"),
		Inferred:    hex("#E8B856"),
		Unknown:     hex("#FF8A80"),
		Border:      hex("#4A4A4A"),
		CodeBg:      hex("#333333"),
	}
	lightTheme = theme{
		Name: "light", Dark: false,
		Backgrounds: []color.Color{hex("#FFFFFF"), hex("#EBEBEB")},
		Text:        hex("#1A1A1A"),
		Dim:         hex("#545454"),
		Accent:      hex("#1A56B0"),
		AccentBg:    hex("#DDE8F8"),
		FocusBg:     hex("#B5CDF0"),
		SelFg:       hex("#FFFFFF"),
		SelBg:       hex("#1A56B0"),
		Inferred:    hex("#7A4E00"),
		Unknown:     hex("#A8201A"),
		Border:      hex("#B8B8B8"),
		CodeBg:      hex("#E4E4E4"),
	}
)

// themeFor returns the palette for a dark or light background.
func themeFor(dark bool) theme {
	if dark {
		return darkTheme
	}
	return lightTheme
}

func hex(s string) color.Color { return lipgloss.Color(s) }

// darkFromEnv reads the background from COLORFGBG ("fg;bg" or
// "fg;default;bg", set by rxvt, Konsole and others): the ANSI colours 0–6
// and 8 are dark, 7 and 9–15 light. ok is false when the variable is
// absent or unreadable.
func darkFromEnv(getenv func(string) string) (dark, ok bool) {
	v := getenv("COLORFGBG")
	if v == "" {
		return false, false
	}
	parts := strings.Split(v, ";")
	bg, err := strconv.Atoi(parts[len(parts)-1])
	if err != nil || bg < 0 || bg > 15 {
		return false, false
	}
	return bg <= 6 || bg == 8, true
}

// initialDark picks the background before the terminal answers the query:
// the theme option wins, then COLORFGBG, then dark. known is true when the
// choice is settled (an explicit theme), so the terminal is not asked.
func initialDark(theme string, getenv func(string) string) (dark, known bool) {
	switch theme {
	case "light":
		return false, true
	case "dark":
		return true, true
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if d, ok := darkFromEnv(getenv); ok {
		return d, false
	}
	return true, false
}

// contrast is the WCAG 2 contrast ratio of two colours, from 1 to 21.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance is the WCAG relative luminance of c.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// palette is the colours answers are drawn in (render.Style).
func (th theme) palette() render.Palette {
	return render.Palette{Dark: th.Dark, Text: th.Text, Dim: th.Dim, Accent: th.Accent, SelFg: th.SelFg, SelBg: th.SelBg, CodeBg: th.CodeBg}
}
