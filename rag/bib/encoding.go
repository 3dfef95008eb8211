package bib

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// asUTF8 returns src as UTF-8 text. A BibTeX file from an older tool
// (JabRef's "% Encoding: ISO8859_1", a Windows editor) may be Latin-1:
// every byte that is not part of valid UTF-8 is read as Windows-1252, a
// superset of Latin-1's printable characters, so "M\xfcller" stays
// "Müller" and valid UTF-8 around it is kept as it is. line is the 1-based
// line of the first such byte, 0 when src was valid UTF-8.
func asUTF8(src []byte) (text string, line int) {
	if utf8.Valid(src) {
		return string(src), 0
	}
	var b strings.Builder
	b.Grow(len(src) + len(src)/8)
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n <= 1 {
			if line == 0 {
				line = 1 + bytes.Count(src[:i], []byte{'\n'})
			}
			b.WriteRune(charmap.Windows1252.DecodeByte(src[i]))
			i++
			continue
		}
		b.Write(src[i : i+n])
		i += n
	}
	return b.String(), line
}
