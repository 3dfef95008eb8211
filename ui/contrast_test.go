package ui

import (
	"fmt"
	"image/color"
	"reflect"
	"testing"

	"charm.land/bubbles/v2/textarea"
	mdansi "charm.land/glamour/v2/ansi"
	"charm.land/lipgloss/v2"
	"github.com/ibid-dev/ibid/ui/render"
)

// styledPairs lists every lipgloss.Style reachable from st (its fields,
// the help styles and the input's) with a foreground, named by path.
func styledPairs(st *styles) map[string]lipgloss.Style {
	out := map[string]lipgloss.Style{}
	var walk func(name string, v reflect.Value)
	walk = func(name string, v reflect.Value) {
		if s, ok := v.Interface().(lipgloss.Style); ok {
			out[name] = s
			return
		}
		if v.Kind() != reflect.Struct {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Name == "Theme" {
				continue
			}
			walk(name+"."+f.Name, v.Field(i))
		}
	}
	walk("Styles", reflect.ValueOf(*st))
	return out
}

func isNoColor(c color.Color) bool {
	_, ok := c.(lipgloss.NoColor)
	return c == nil || ok
}

// TestThemeContrast: every text colour of both themes reads at WCAG AA
// (4.5:1) against the terminal backgrounds of its kind, or against the
// style's own background; text drawn on the selected source entry is
// checked against that background too.
func TestThemeContrast(t *testing.T) {
	t.Parallel()
	for _, th := range []theme{darkTheme, lightTheme} {
		t.Run(th.Name, func(t *testing.T) {
			st := stylesFor(th)
			checked := 0
			check := func(name string, fg, bg color.Color) {
				t.Helper()
				checked++
				if r := contrast(fg, bg); r < 4.5 {
					t.Errorf("%s: %v on %v has contrast %.2f:1, want at least 4.5:1", name, fg, bg, r)
				}
			}
			for name, s := range styledPairs(st) {
				fg := s.GetForeground()
				if isNoColor(fg) || name == "Styles.Border" || name == "Styles.BorderFocused" || name == "Styles.Viewer.Border" {
					continue // no text colour of its own, or a rule (decoration)
				}
				if bg := s.GetBackground(); !isNoColor(bg) {
					check(name, fg, bg)
					continue
				}
				for _, bg := range th.Backgrounds {
					check(name, fg, bg)
				}
			}
			check("code span", th.Text, th.CodeBg)
			// the selected source entry draws these on AccentBg
			for _, s := range []lipgloss.Style{st.SourceNumber, st.SourceTitle, st.Dim, st.ChipInferred, st.ChipUnsupported, st.Text} {
				check(fmt.Sprintf("selected entry %v", s.GetForeground()), s.GetForeground(), th.AccentBg)
			}
			if checked < 30 {
				t.Errorf("only %d pairs checked: the walk over the styles missed some", checked)
			}
		})
	}
}

// TestInputReadable: the question box's prompt, placeholder and text are
// not the terminal's default grey on white (the light input bar used to
// be white on white).
func TestInputReadable(t *testing.T) {
	t.Parallel()
	st := stylesFor(lightTheme)
	for name, s := range map[string]textarea.StyleState{"focused": st.Input.Focused, "blurred": st.Input.Blurred} {
		for part, ps := range map[string]lipgloss.Style{"prompt": s.Prompt, "placeholder": s.Placeholder, "text": s.Text} {
			if isNoColor(ps.GetForeground()) {
				t.Errorf("light %s input %s has no colour of its own", name, part)
			}
		}
	}
}

func TestContrastFormula(t *testing.T) {
	t.Parallel()
	if r := contrast(hex("#000000"), hex("#FFFFFF")); r < 20.9 || r > 21.1 {
		t.Errorf("black on white %.2f, want 21", r)
	}
	if r := contrast(hex("#777777"), hex("#FFFFFF")); r < 4.4 || r > 4.5 {
		t.Errorf("#777 on white %.2f, want 4.48", r)
	}
}

func TestColorFGBG(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v        string
		dark, ok bool
	}{{"15;0", true, true}, {"0;15", false, true}, {"12;default;8", true, true}, {"0;7", false, true}, {"", false, false}, {"x", false, false}} {
		dark, ok := darkFromEnv(func(string) string { return c.v })
		if dark != c.dark || ok != c.ok {
			t.Errorf("COLORFGBG=%q: dark %v ok %v, want %v %v", c.v, dark, ok, c.dark, c.ok)
		}
	}
	if dark, known := initialDark("light", func(string) string { return "15;0" }); dark || !known {
		t.Error("the theme option must win over COLORFGBG")
	}
	if dark, known := initialDark("", func(string) string { return "0;15" }); dark || known {
		t.Error("COLORFGBG 0;15 is a light background, still to be confirmed by the terminal")
	}
}

// TestMarkdownContrast: every colour glamour draws answers with (text,
// headings, links, code, quotes) reads at 4.5:1 on the theme's
// backgrounds, or on the background glamour puts behind it.
func TestMarkdownContrast(t *testing.T) {
	t.Parallel()
	for _, th := range []theme{darkTheme, lightTheme} {
		t.Run(th.Name, func(t *testing.T) {
			checked := 0
			var walk func(name string, v reflect.Value)
			walk = func(name string, v reflect.Value) {
				switch v.Kind() {
				case reflect.Pointer:
					if !v.IsNil() {
						walk(name, v.Elem())
					}
					return
				case reflect.Struct:
				default:
					return
				}
				if p, ok := v.Interface().(mdansi.StylePrimitive); ok && p.Color != nil {
					checked++
					fg := lipgloss.Color(*p.Color)
					bgs := th.Backgrounds
					if p.BackgroundColor != nil {
						bgs = []color.Color{lipgloss.Color(*p.BackgroundColor)}
					}
					for _, bg := range bgs {
						if r := contrast(fg, bg); r < 4.5 {
							t.Errorf("%s: %s on %v has contrast %.2f:1", name, *p.Color, bg, r)
						}
					}
				}
				for i := 0; i < v.NumField(); i++ {
					if v.Type().Field(i).IsExported() {
						walk(name+"."+v.Type().Field(i).Name, v.Field(i))
					}
				}
			}
			walk("markdown", reflect.ValueOf(render.Style(th.palette())))
			if checked < 8 {
				t.Errorf("only %d colours checked", checked)
			}
		})
	}
}
