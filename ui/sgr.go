package ui

import "strings"

// compactSGR drops the SGR sequences (ESC [ … m) that a reset makes dead
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
func compactSGR(l string) string {
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
