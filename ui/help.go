package ui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/ui/render"
)

// helpSection is one titled part of the ? screen.
type helpSection struct {
	title string
	keys  help.KeyMap
}

// helpSections are the parts of the ? screen, from the panes' own key maps:
// what the help bars show and what the ? screen shows cannot disagree.
func (m *Model) helpSections() (left, right []helpSection) {
	k := m.c.Keys
	left = []helpSection{
		{"Everywhere", globalKeys{k}},
		{"Input", m.in},
		{"Source viewer", m.vw},
	}
	right = []helpSection{
		{"Transcript", m.tr},
		{"Sources pane", m.src},
		{"Slash commands (in the input)", slashKeys{k}},
	}
	return left, right
}

// sectionLines draws a section in w cells: its title and one entry per
// binding, the key in a column keyW wide and the description wrapped
// beside it (never cut).
func (m *Model) sectionLines(s helpSection, keyW, w int) []string {
	st := m.c.Styles
	out := []string{st.PaneTitleFocused.Render(render.Shorten(s.title, w))}
	descW := max(w-keyW, 8)
	for _, g := range s.keys.FullHelp() {
		for _, b := range g {
			h := b.Help()
			k := h.Key
			if ansi.StringWidth(k) >= keyW {
				out = append(out, st.Help.FullKey.Render(k))
				k = ""
			}
			for i, d := range strings.Split(ansi.Wrap(h.Desc, descW, " "), "\n") {
				if i > 0 {
					k = ""
				}
				out = append(out, st.Help.FullKey.Render(k)+strings.Repeat(" ", keyW-ansi.StringWidth(k))+st.Help.FullDesc.Render(d))
			}
		}
	}
	return append(out, "")
}

// fullHelp is the ? screen: every key, by pane, and the slash commands,
// in two columns when they fit side by side, scrolled by helpOffset.
func (m *Model) fullHelp() string {
	left, right := m.helpSections()
	column := func(ss []helpSection, keyW, w int) []string {
		var out []string
		for _, s := range ss {
			out = append(out, m.sectionLines(s, keyW, w)...)
		}
		return out
	}
	var lines []string
	if m.width >= 2*40 {
		colW := m.width/2 - 1
		l, r := column(left, 11, colW), column(right, 15, colW)
		for i := 0; i < max(len(l), len(r)); i++ {
			var a, b string
			if i < len(l) {
				a = l[i]
			}
			if i < len(r) {
				b = r[i]
			}
			lines = append(lines, a+strings.Repeat(" ", max(colW-ansi.StringWidth(a), 0)+1)+b)
		}
	} else {
		lines = column(append(left, right...), 15, m.width)
	}
	h := m.bodyHeight()
	if len(lines) > h {
		m.helpOffset = min(m.helpOffset, len(lines)-h+1)
		lines = lines[m.helpOffset:]
		if len(lines) > h {
			more := fmt.Sprintf("↓ %d more lines (↓, pgdn or the wheel scroll)", len(lines)-h+1)
			lines = append(lines[:h-1], m.c.Styles.Dim.Render(render.Shorten(more, m.width)))
		}
	} else {
		m.helpOffset = 0
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// helpBar keeps the help bar drawn for the bindings' help texts and
// states, the width and the styles in key and st; a frame where none of
// them changed (most frames: an answer streaming, a scroll) reuses it.
type helpBar struct {
	key   string
	st    *styles
	drawn string
}

// view is shortHelpView(st.Help, bindings, width), drawn again only when
// what it shows changed.
func (h *helpBar) view(st *styles, bindings []key.Binding, width int) string {
	var k strings.Builder
	for _, kb := range bindings {
		if !kb.Enabled() {
			k.WriteString("\x00off\x00")
			continue
		}
		hl := kb.Help()
		k.WriteString(hl.Key + "\x00" + hl.Desc + "\x00")
	}
	k.WriteString(strconv.Itoa(width))
	if h.st != st || h.key != k.String() {
		h.key, h.st, h.drawn = k.String(), st, shortHelpView(st.Help, bindings, width)
	}
	return h.drawn
}

// shortHelpView is the help bar: bindings in order, as many as fit in
// width, then "…" when some were left out. (help.Model.ShortHelpView can
// overflow the width when its ellipsis does not fit.)
func shortHelpView(st help.Styles, bindings []key.Binding, width int) string {
	const sep, more = " • ", " …"
	var b strings.Builder
	w := 0
	for i, kb := range bindings {
		if !kb.Enabled() {
			continue
		}
		h := kb.Help()
		item := h.Key + " " + h.Desc
		iw := ansi.StringWidth(item)
		if w > 0 {
			iw += len(sep)
		}
		room := width
		if i < len(bindings)-1 {
			room -= len(more) // keep space to say that more were left out
		}
		if w+iw > room {
			if w > 0 {
				b.WriteString(st.Ellipsis.Render(more))
			}
			break
		}
		if w > 0 {
			b.WriteString(st.ShortSeparator.Render(sep))
		}
		b.WriteString(st.ShortKey.Render(h.Key) + " " + st.ShortDesc.Render(h.Desc))
		w += iw
	}
	return b.String()
}
