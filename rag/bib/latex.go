package bib

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Latex turns a BibTeX field's LaTeX into plain Unicode text: accents
// ({\"o}, \'{e}, \c c, {\'\i}) become letters, escapes (\&, \%, \_) their
// characters, symbols (\ss, \o, \textendash) theirs, -- and --- dashes,
// “quotes” curly quotes, ~ a space; formatting commands (\emph{x},
// \textbf{x}) leave their argument; braces and math dollars go. An
// unknown command leaves its argument and drops its name. The result is
// NFC and on one line.
func Latex(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if !strings.ContainsAny(s, "\\{}~$`'-") {
		return collapseSpace(s)
	}
	var d latexDecoder
	d.run(s, 0)
	return collapseSpace(norm.NFC.String(d.b.String()))
}

// maxLatexDepth bounds the nesting of accent arguments decoded
// recursively; deeper text is decoded without its accents.
const maxLatexDepth = 32

type latexDecoder struct {
	b strings.Builder
}

// accents maps an accent command to its combining character.
var accents = map[string]rune{
	`"`: '\u0308', `'`: '\u0301', "`": '\u0300', "^": '\u0302', "~": '\u0303',
	"=": '\u0304', ".": '\u0307', "u": '\u0306', "v": '\u030C', "H": '\u030B',
	"c": '\u0327', "k": '\u0328', "r": '\u030A', "d": '\u0323', "b": '\u0331',
	"t": '\u0361',
}

// spacingAccents is what an accent with nothing to sit on prints (\'{}).
var spacingAccents = map[string]string{
	`"`: "¨", `'`: "´", "`": "`", "^": "^", "~": "~", "=": "¯", ".": "˙",
	"u": "˘", "v": "ˇ", "H": "˝", "c": "¸", "k": "˛", "r": "˚",
}

// symbols maps argument-less commands to their text.
var symbols = map[string]string{
	"ss": "ß", "SS": "SS", "o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "ae": "æ", "AE": "Æ",
	"oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "i": "ı", "j": "ȷ", "dh": "ð", "DH": "Ð",
	"th": "þ", "TH": "Þ", "ng": "ŋ", "NG": "Ŋ", "dj": "đ", "DJ": "Đ",
	"textendash": "–", "textemdash": "—", "textquoteright": "’", "textquoteleft": "‘",
	"textquotedblleft": "“", "textquotedblright": "”", "textquotedbl": "\"",
	"ldots": "…", "dots": "…", "textellipsis": "…", "S": "§", "P": "¶",
	"copyright": "©", "textcopyright": "©", "textregistered": "®", "texttrademark": "™",
	"pounds": "£", "textsterling": "£", "euro": "€", "texteuro": "€", "textdegree": "°",
	"textasciitilde": "~", "textasciicircum": "^", "textbackslash": "\\", "backslash": "\\",
	"textbar": "|", "textless": "<", "textgreater": ">", "textunderscore": "_",
	"guillemotleft": "«", "guillemotright": "»", "guillemetleft": "«", "guillemetright": "»",
	"textperiodcentered": "·", "textbullet": "•", "textdagger": "†", "dag": "†",
	"textsection": "§", "textexclamdown": "¡", "textquestiondown": "¿",
	"LaTeX": "LaTeX", "TeX": "TeX", "BibTeX": "BibTeX", "textpm": "±", "pm": "±",
	"times": "×", "texttimes": "×", "div": "÷", "cdot": "·", "le": "≤", "leq": "≤",
	"ge": "≥", "geq": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "∼", "infty": "∞",
	"to": "→", "rightarrow": "→", "leftarrow": "←", "sum": "∑", "prod": "∏",
	"partial": "∂", "nabla": "∇", "in": "∈", "mid": "|", "quad": " ", "qquad": " ",
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
	"zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
	"lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
	"tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ",
	"omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
	"Pi": "Π", "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
	"textmu": "µ", "textalpha": "α", "textbeta": "β", "textgamma": "γ",
	"relax": "", "noopsort": "", "protect": "", "ignorespaces": "", "hspace": "",
	"par": " ", "newline": " ", "linebreak": " ", "break": " ",
}

// dropArg are the commands whose arguments are dropped entirely (a sort
// key, a spacing length).
var dropArg = map[string]bool{"noopsort": true, "hspace": true, "vspace": true, "label": true, "cite": true}

// run decodes s into d.b; depth counts accent arguments decoded within
// accent arguments.
func (d *latexDecoder) run(s string, depth int) {
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\\':
			i = d.command(s, i, depth)
		case '{', '}', '$':
			i++
		case '~':
			d.b.WriteByte(' ')
			i++
		case '-':
			switch {
			case strings.HasPrefix(s[i:], "---"):
				d.b.WriteString("—")
				i += 3
			case strings.HasPrefix(s[i:], "--"):
				d.b.WriteString("–")
				i += 2
			default:
				d.b.WriteByte('-')
				i++
			}
		case '`', '\'':
			// ``quotes'' are curly; a single ' stays the apostrophe a
			// manager and the PDF itself most likely wrote.
			switch {
			case strings.HasPrefix(s[i:], "``"):
				d.b.WriteString("“")
				i += 2
			case strings.HasPrefix(s[i:], "''"):
				d.b.WriteString("”")
				i += 2
			default:
				d.b.WriteByte(c)
				i++
			}
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			d.b.WriteString(s[i : i+n])
			i += n
		}
	}
}

// command decodes the control sequence at s[i] ('\\') and returns where
// decoding goes on.
func (d *latexDecoder) command(s string, i, depth int) int {
	i++ // '\\'
	if i >= len(s) {
		return i
	}
	c := s[i]
	if !isASCIILetter(c) {
		// a control symbol: one character, which may take several bytes
		_, n := utf8.DecodeRuneInString(s[i:])
		name := s[i : i+n]
		i += n
		if acc, ok := accents[name]; ok {
			return d.accent(s, i, name, acc, depth)
		}
		switch c {
		case '\\', ' ', '\n', ',', ';', ':', '!':
			d.b.WriteByte(' ')
		case '-', '/', '@':
			// a hyphenation point, an italic correction, a spacing hint
		default:
			d.b.WriteString(name) // \& \% \$ \# \_ \{ \}
		}
		return i
	}
	start := i
	for i < len(s) && isASCIILetter(s[i]) {
		i++
	}
	name := s[start:i]
	// TeX eats the space after a control word.
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	if acc, ok := accents[name]; ok && len(name) == 1 {
		return d.accent(s, i, name, acc, depth)
	}
	if dropArg[name] {
		if i < len(s) && s[i] == '{' {
			return skipGroup(s, i)
		}
		return i
	}
	if sym, ok := symbols[name]; ok {
		d.b.WriteString(sym)
		// {\o}rsted, \o{}: the empty group only ends the word.
		if strings.HasPrefix(s[i:], "{}") {
			i += 2
		}
		return i
	}
	if name == "href" && i < len(s) && s[i] == '{' {
		return skipGroup(s, i) // the link text (the next group) stays
	}
	// \emph{x}, \textbf{x}, \url{x} and unknown commands: the argument,
	// decoded by the caller's loop (its braces are dropped there).
	return i
}

// accent applies the accent name (combining character acc) to the next
// argument: a braced group, a command such as \i, or one character.
func (d *latexDecoder) accent(s string, i int, name string, acc rune, depth int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	var arg string
	switch {
	case i >= len(s):
	case s[i] == '{':
		end := skipGroup(s, i)
		inner := s[i+1 : max(i+1, end-1)]
		if end > len(s) || s[end-1] != '}' {
			inner = s[i+1 : min(end, len(s))]
		}
		arg = d.sub(inner, depth)
		i = end
	case s[i] == '\\':
		j := i + 1
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		if j == i+1 && j < len(s) {
			_, n := utf8.DecodeRuneInString(s[j:])
			j += n // a control symbol, whole even when not ASCII
		}
		arg = d.sub(s[i:j], depth)
		i = j
	default:
		_, n := utf8.DecodeRuneInString(s[i:])
		arg = s[i : i+n]
		i += n
	}
	if arg == "" {
		d.b.WriteString(spacingAccents[name])
		return i
	}
	r, n := utf8.DecodeRuneInString(arg)
	switch r { // \'\i is í: the dotless letters take accents
	case 'ı':
		r = 'i'
	case 'ȷ':
		r = 'j'
	}
	d.b.WriteRune(r)
	d.b.WriteRune(acc)
	d.b.WriteString(arg[n:])
	return i
}

// sub decodes s on its own (an accent's argument).
func (d *latexDecoder) sub(s string, depth int) string {
	if depth >= maxLatexDepth {
		return strings.Map(func(r rune) rune {
			if r == '{' || r == '}' || r == '\\' {
				return -1
			}
			return r
		}, s)
	}
	var inner latexDecoder
	inner.run(s, depth+1)
	return inner.b.String()
}

// skipGroup returns the index after the group that opens at s[i] ('{'),
// or len(s) when it never closes.
func skipGroup(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

func isASCIILetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// plainField is a field that is not LaTeX but a path, URL or DOI, as
// managers write them: braces dropped and LaTeX escapes of URL
// characters (\_ \% \# \& \$ \~) undone, nothing else.
func plainField(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' || c == '}':
		case c == '\\' && i+1 < len(s) && strings.IndexByte("_%#&$~{}", s[i+1]) >= 0:
			b.WriteByte(s[i+1])
			i++
		case c == '\\' && strings.HasPrefix(s[i:], `\url`):
			i += len(`\url`) - 1
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// oneLine makes s one line of printable text: control characters become
// spaces, runs of space collapse.
func oneLine(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
