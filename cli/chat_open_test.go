package cli

import (
	"testing"

	"github.com/ibid-dev/ibid/ui/termimage"
	"github.com/ibid-dev/ibid/ui/viewer"
)

// TestOpenSettings: IBID_PDF_VIEWER and EDITOR are read with the rest of
// the Config and reach the chat's options as they were set.
func TestOpenSettings(t *testing.T) {
	c := loadConfig(func(k string) string {
		return map[string]string{"IBID_PDF_VIEWER": "zathura --page={page} {file}", "EDITOR": "code --wait"}[k]
	})
	if got, want := openSettings(c), (viewer.OpenSettings{PDFViewer: "zathura --page={page} {file}", Editor: "code --wait"}); got != want {
		t.Errorf("open settings %+v, want %+v", got, want)
	}
	if got := openSettings(loadConfig(func(string) string { return "" })); got != (viewer.OpenSettings{}) {
		t.Errorf("nothing set: %+v, want none", got)
	}
}

// TestTerminalEnv: what the environment says of the terminal (for the
// viewer's page shown inline) is read with the rest of the Config; TMUX or
// STY mark a multiplexer in between.
func TestTerminalEnv(t *testing.T) {
	env := map[string]string{"TERM": "xterm-kitty", "TERM_PROGRAM": "WezTerm", "LC_TERMINAL": "iTerm2", "TMUX": "/tmp/tmux-0/default,1,0"}
	c := loadConfig(func(k string) string { return env[k] })
	if want := (termimage.Env{Term: "xterm-kitty", TermProgram: "WezTerm", LCTerminal: "iTerm2", Multiplexer: true}); c.terminal != want {
		t.Errorf("terminal %+v, want %+v", c.terminal, want)
	}
	screen := loadConfig(func(k string) string {
		if k == "STY" {
			return "1234.pts-0.host"
		}
		return ""
	})
	if !screen.terminal.Multiplexer || loadConfig(func(string) string { return "" }).terminal.Multiplexer {
		t.Error("STY is a multiplexer, nothing is none")
	}
}
