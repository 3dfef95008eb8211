package render

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// tailWrap wraps the open block's plain source incrementally: appending
// text only ever changes the last line of a greedy wrap, so each frame
// wraps just the bytes that arrived since the last one. A word is placed
// once a space or newline ends it; the word still arriving is drawn at the
// end without being placed.
//
// Invariants: consumed bytes of the source are in lines, cur or word;
// widths[i] is the display width of lines[i]; curW that of cur.
type tailWrap struct {
	width    int
	consumed int
	midLine  bool // a word was placed since the last source newline
	lines    []string
	widths   []int
	cur      strings.Builder
	curW     int
	word     strings.Builder

	// drawn caches the chip-swapped form of lines (complete lines never
	// change), for selection drawnSel and chips drawnChips; drawnNodes[i]
	// counts the nodes on line i.
	drawn       []string
	drawnNodes  []int
	drawnSel    int
	drawnChips  Chips
	drawnIndent string
}

func (w *tailWrap) reset(width int) {
	*w = tailWrap{width: max(width, 10)}
}

// startAt makes the first line begin at column col: the wrapped text
// continues a line already drawn (the rendered Markdown before it).
func (w *tailWrap) startAt(col int) { w.curW, w.midLine = col, true }

// feed consumes the bytes of the source that arrived since the last call,
// up to the last whole rune: a rune cut by a chunk waits for its end.
func (w *tailWrap) feed(more []byte) {
	n := len(more)
	for i := max(n-utf8.UTFMax+1, 0); i < n; i++ {
		if utf8.RuneStart(more[i]) && !utf8.FullRune(more[i:]) {
			n = i
			break
		}
	}
	more = more[:n]
	for _, r := range string(more) {
		switch r {
		case ' ', '\t':
			w.place()
		case '\n':
			w.place()
			w.breakLine()
			w.midLine = false
		default:
			w.word.WriteRune(r)
		}
	}
	w.consumed += len(more)
}

// plainWord is a word as the rendered Markdown will show it, as far as
// its width goes: bold markers take no room. (An inline code span keeps
// its width: glamour pads it where the backticks were.)
func plainWord(s string) string {
	if strings.Contains(s, "**") {
		return strings.ReplaceAll(s, "**", "")
	}
	return s
}

// place puts the finished word on the current line or a new one.
func (w *tailWrap) place() {
	word := plainWord(w.word.String())
	w.word.Reset()
	if word == "" {
		return
	}
	if !w.midLine && (word == "-" || word == "*" || word == "+") {
		word = "•" // a list item's marker, drawn as glamour draws it
	}
	w.midLine = true
	ww := ansi.StringWidth(word)
	if w.curW > 0 && w.curW+1+ww > w.width {
		w.breakLine()
	}
	for ww > w.width { // a word longer than a line: hard break
		head := ansi.Truncate(word, w.width, "")
		w.cur.WriteString(head)
		w.curW = ansi.StringWidth(head)
		w.breakLine()
		word = word[len(head):]
		ww = ansi.StringWidth(word)
	}
	if w.curW > 0 {
		w.cur.WriteByte(' ')
		w.curW++
	}
	w.cur.WriteString(word)
	w.curW += ww
}

func (w *tailWrap) breakLine() {
	w.lines = append(w.lines, w.cur.String())
	w.widths = append(w.widths, w.curW)
	w.cur.Reset()
	w.curW = 0
}

// view returns the wrapped lines and their widths, the word in progress
// included (on a line of its own if it does not fit).
func (w *tailWrap) view() ([]string, []int) {
	lines, widths := w.lines[:len(w.lines):len(w.lines)], w.widths[:len(w.widths):len(w.widths)]
	cur, curW := w.cur.String(), w.curW
	if word := plainWord(w.word.String()); word != "" {
		ww := ansi.StringWidth(word)
		if curW > 0 && curW+1+ww > w.width {
			lines, widths = append(lines, cur), append(widths, curW)
			cur, curW = "", 0
		}
		for ww > w.width { // a word longer than a line: hard break, as place does
			head := ansi.Truncate(word, w.width, "")
			hw := ansi.StringWidth(head)
			lines, widths = append(lines, head), append(widths, hw)
			word = word[len(head):]
			ww -= hw
		}
		if curW > 0 {
			cur += " "
			curW++
		}
		cur += word
		curW += ww
	}
	if curW > 0 || cur != "" || len(lines) == 0 {
		lines, widths = append(lines, cur), append(widths, curW)
	}
	// drop trailing empty lines (blank source lines at the end)
	for len(lines) > 0 && widths[len(widths)-1] == 0 {
		lines, widths = lines[:len(lines)-1], widths[:len(widths)-1]
	}
	return lines, widths
}
