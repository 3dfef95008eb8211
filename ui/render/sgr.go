package render

import "strings"

// CompactSGR drops the SGR sequences (ESC [ … m) that a reset makes dead
// before any cell is printed: in each run of consecutive SGR sequences,
// whatever precedes the run's last reset (ESC [ m or ESC [ 0 m).
//
// The line draws the same characters in the same styles, and leaves the
// terminal in the same state at its end: only sequences overridden before
// they could take effect go. glamour, once its padding is trimmed
// (trimRightANSI keeps the escape codes of what it cuts), and the chips,
// which write the codes in force again after themselves, leave runs of
// dead pairs that made an answer's lines several times longer than their
// text; every frame copies the lines it shows, and the history keeps them.
//
// Any other byte, other escape sequences included, ends a run, so they are
// kept in place.
func CompactSGR(l string) string {
	if !strings.Contains(l, "m\x1b[m") && !strings.Contains(l, "m\x1b[0m") {
		return l // no SGR sequence directly followed by a reset
	}
	out := make([]byte, 0, len(l))
	run := -1 // where the current run of SGR sequences starts in out; -1: none
	for i := 0; i < len(l); {
		if n := sgrLen(l[i:]); n > 0 {
			seq := l[i : i+n]
			if run < 0 {
				run = len(out)
			}
			if seq == "\x1b[m" || seq == "\x1b[0m" {
				out = out[:run] // all before it in the run is dead
			}
			out = append(out, seq...)
			i += n
			continue
		}
		run = -1
		out = append(out, l[i])
		i++
	}
	if len(out) == len(l) {
		return l
	}
	return string(out)
}

// sgrLen is the length of the SGR sequence s starts with, or 0.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != '\x1b' || s[1] != '[' {
		return 0
	}
	for j := 2; j < len(s); j++ {
		switch c := s[j]; {
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		case c == 'm':
			return j + 1
		default:
			return 0
		}
	}
	return 0
}

// PackLines returns lines compacted (CompactSGR) and copied, slice and
// text, into allocations of their own: glamour's output, padded to the
// wrap width, is several times the size of the lines cut from it, and a
// cached line that shares it keeps all of it alive (so would the lines
// Render dropped, left in the slice's array beyond its ends).
func PackLines(lines []string) []string {
	out := make([]string, len(lines))
	n := 0
	for i, l := range lines {
		out[i] = CompactSGR(l)
		n += len(out[i])
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range out {
		b.WriteString(l)
	}
	all := b.String()
	for i, l := range out {
		out[i], all = all[:len(l)], all[len(l):]
	}
	return out
}
