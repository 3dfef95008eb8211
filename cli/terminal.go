package cli

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"
)

// isTerminal reports whether w is a terminal, and its width (80 if not
// known).
func isTerminal(w io.Writer) (bool, int) {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(f.Fd()) {
		return false, 80
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil || width <= 0 {
		width = 80
	}
	return true, width
}

// isTTY reports whether f is a terminal (not merely a character device:
// /dev/null is one, and the chat cannot read keys from it).
func isTTY(f *os.File) bool { return term.IsTerminal(f.Fd()) }
