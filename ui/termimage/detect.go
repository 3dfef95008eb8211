package termimage

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Protocol is a way a terminal displays images.
type Protocol int

const (
	None   Protocol = iota // the terminal displays no images, or did not say so
	Kitty                  // the Kitty graphics protocol (kitty, Ghostty, WezTerm, Konsole)
	ITerm2                 // iTerm2's inline images (iTerm2, WezTerm)
	Sixel                  // DEC sixel graphics (xterm -ti vt340, foot, mlterm)
)

func (p Protocol) String() string {
	switch p {
	case Kitty:
		return "kitty"
	case ITerm2:
		return "iterm2"
	case Sixel:
		return "sixel"
	}
	return "none"
}

// Env is what the environment says of the terminal, read once by the
// command line (no package here reads the environment).
type Env struct {
	Term        string // $TERM
	TermProgram string // $TERM_PROGRAM: "iTerm.app", "WezTerm", "vscode", "tmux"…
	LCTerminal  string // $LC_TERMINAL: "iTerm2" (iTerm2 sets it; ssh passes it on)
	Multiplexer bool   // $TMUX or $STY is set: tmux or screen stands between ibid and the terminal
}

// Query asks the terminal what it can do: a Kitty graphics query (a
// one-pixel image that is only checked, never stored or shown), its name
// and version (XTVERSION), the size of its text area and of a cell in
// pixels (XTWINOPS 14 and 16), and, last, its primary device attributes
// (DA1). Every terminal answers DA1, and terminals answer in order, so
// DA1's answer ends the wait: a terminal that ignores the rest has
// nothing to say of them.
const Query = kittyQuery + "\x1b[>0q" + "\x1b[14t" + "\x1b[16t" + "\x1b[c"

// kittyQuery is the Kitty graphics protocol's check: image id 31, one
// RGB pixel sent inline (t=d), action query (a=q). A terminal that speaks
// the protocol answers "\x1b_Gi=31;OK\x1b\\"; others ignore the APC.
const kittyQuery = "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"

// Caps is what a terminal said of itself in answer to Query.
type Caps struct {
	Answered bool   // it answered DA1: what it did not say, it cannot do
	Kitty    bool   // it accepted the Kitty graphics query
	Sixel    bool   // DA1 lists attribute 4, sixel graphics
	Version  string // its XTVERSION answer, "kitty(0.35.2)", "tmux 3.3a"; "" when it gave none
	// Cell is a cell's size in pixels, from XTWINOPS 16 or else 14 (the
	// text area divided by the grid); zero when it gave neither.
	CellWidth, CellHeight int
	// TextWidth, TextHeight are the text area's size in pixels (XTWINOPS
	// 14); zero when not given.
	TextWidth, TextHeight int
}

// Protocol is how a terminal with these answers, in env, displays images,
// or None. Only what the terminal answered counts, and the environment
// only where nothing can stand between ibid and the terminal that set it:
//   - Kitty when it accepted the Kitty query;
//   - ITerm2 when its XTVERSION names iTerm2 or WezTerm, or, when it
//     answered, no multiplexer is in between and it did not name itself
//     as something else, when TERM_PROGRAM is iTerm.app or WezTerm or
//     LC_TERMINAL is iTerm2 (iTerm2's inline images cannot be queried);
//   - Sixel when DA1 lists sixel graphics;
//   - otherwise None: tmux and screen answer for the terminal behind
//     them, and pass no image through.
func (c Caps) Protocol(env Env) Protocol {
	v := strings.ToLower(c.Version)
	named := func(names ...string) bool {
		for _, n := range names {
			if strings.HasPrefix(v, n) {
				return true
			}
		}
		return false
	}
	switch {
	case !c.Answered:
		return None
	case named("tmux", "screen"):
		return None // the multiplexer answered; what it passes on is not an image
	case c.Kitty:
		return Kitty
	case named("iterm2", "wezterm"):
		return ITerm2
	case v == "" && !env.Multiplexer && (env.TermProgram == "iTerm.app" || env.TermProgram == "WezTerm" || env.LCTerminal == "iTerm2"):
		return ITerm2
	case c.Sixel:
		return Sixel
	}
	return None
}

// Cell is a cell's size in pixels on a grid of cols×rows cells: what the
// terminal said (XTWINOPS 16), else its text area over the grid (XTWINOPS
// 14); known is false when it said neither.
func (c Caps) Cell(cols, rows int) (w, h int, known bool) {
	switch {
	case c.CellWidth > 0 && c.CellHeight > 0:
		return c.CellWidth, c.CellHeight, true
	case c.TextWidth > 0 && c.TextHeight > 0 && cols > 0 && rows > 0:
		return max(c.TextWidth/cols, 1), max(c.TextHeight/rows, 1), true
	}
	return 0, 0, false
}

// Conn is a terminal to ask: what is written reaches it, what it answers
// is read, and a read gives up at a deadline. An *os.File opened on the
// terminal (OpenTTY) is one.
type Conn interface {
	io.ReadWriter
	SetReadDeadline(t time.Time) error
}

// maxAnswer bounds what Detect reads: the answers to Query are a few
// dozen bytes, so more is keys pressed meanwhile, or noise.
const maxAnswer = 4096

// Detect writes Query to c and reads the terminal's answers until its
// DA1 answer, at most timeout (then Caps.Answered is false: a terminal
// that does not answer is taken to display nothing). Keys pressed
// meanwhile are read and dropped. The error is a failed write or read, or
// a Conn without read deadlines; a deadline passing is not one.
func Detect(c Conn, timeout time.Duration) (Caps, error) {
	if err := c.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return Caps{}, err
	}
	defer c.SetReadDeadline(time.Time{})
	if _, err := io.WriteString(c, Query); err != nil {
		return Caps{}, err
	}
	var buf []byte
	chunk := make([]byte, 256)
	for len(buf) < maxAnswer {
		n, err := c.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if caps, done := Parse(buf); done {
			return caps, nil
		}
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return Caps{}, nil
		case err != nil:
			return Caps{}, err
		}
	}
	return Caps{}, nil
}

// Parse reads answers to Query from b, in any order and among other
// input: done is true once DA1's answer is in b (the answers after it are
// not read). Incomplete sequences at the end of b wait for more.
func Parse(b []byte) (c Caps, done bool) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0x1b)
		if i < 0 || i+1 >= len(b) {
			return c, false
		}
		b = b[i:]
		n, body, kind := sequence(b)
		if n == 0 {
			return c, false // incomplete: wait for the rest
		}
		b = b[n:]
		switch kind {
		case '_': // APC: a Kitty graphics answer
			if keys, msg, ok := strings.Cut(body, ";"); ok && strings.HasPrefix(keys, "G") && hasKey(keys[1:], "i=31") && msg == "OK" {
				c.Kitty = true
			}
		case 'P': // DCS: XTVERSION is ">|name version"
			if v, ok := strings.CutPrefix(body, ">|"); ok {
				c.Version = v
			}
		case '[':
			switch {
			case strings.HasPrefix(body, "?") && strings.HasSuffix(body, "c"): // DA1
				c.Answered = true
				for _, p := range strings.Split(body[1:len(body)-1], ";") {
					if p == "4" {
						c.Sixel = true
					}
				}
				return c, true
			case strings.HasSuffix(body, "t"):
				f := strings.Split(body[:len(body)-1], ";")
				if len(f) != 3 {
					break
				}
				h, err1 := strconv.Atoi(f[1])
				w, err2 := strconv.Atoi(f[2])
				if err1 != nil || err2 != nil || h <= 0 || w <= 0 {
					break
				}
				switch f[0] {
				case "4":
					c.TextWidth, c.TextHeight = w, h
				case "6":
					c.CellWidth, c.CellHeight = w, h
				}
			}
		}
	}
	return c, false
}

// hasKey reports whether the Kitty key list "k=v,k=v" holds kv.
func hasKey(list, kv string) bool {
	for _, k := range strings.Split(list, ",") {
		if k == kv {
			return true
		}
	}
	return false
}

// sequence measures the escape sequence b starts with (b[0] is ESC): its
// length n (0: incomplete), its body (what lies between the introducer
// and the terminator; for CSI, the parameters and the final byte) and its
// kind ('_' APC, 'P' DCS, ']' OSC, '[' CSI, or the byte after ESC for
// others, which are two bytes long). APC, DCS and OSC end with ST (ESC \)
// or BEL.
func sequence(b []byte) (n int, body string, kind byte) {
	if len(b) < 2 {
		return 0, "", 0
	}
	kind = b[1]
	switch kind {
	case '_', 'P', ']':
		for j := 2; j < len(b); j++ {
			switch {
			case b[j] == 0x07:
				return j + 1, string(b[2:j]), kind
			case b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\':
				return j + 2, string(b[2:j]), kind
			case b[j] == 0x1b && j+1 == len(b):
				return 0, "", 0
			}
		}
		return 0, "", 0
	case '[':
		for j := 2; j < len(b); j++ {
			if b[j] >= 0x40 && b[j] <= 0x7e {
				return j + 1, string(b[2 : j+1]), kind
			}
		}
		return 0, "", 0
	}
	return 2, "", kind
}
