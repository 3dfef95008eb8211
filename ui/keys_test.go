package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysDocumented: every key of the keymap appears in docs/tui.md, so
// the documentation cannot fall behind the keymap.
func TestKeysDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "tui.md"))
	if err != nil {
		t.Skipf("docs/tui.md not found: %v", err)
	}
	shown := map[string]string{"up": "↑", "down": "↓", "pgdown": "pgdn"}
	var groups [][]string
	for _, g := range (paneHelp{k: DefaultKeyMap()}).FullHelp() {
		for _, b := range g {
			groups = append(groups, b.Keys())
		}
	}
	for _, keys := range groups {
		for _, k := range keys {
			if len(k) == 1 && k[0] >= '2' && k[0] <= '8' {
				continue // digits are documented as `1`–`9`
			}
			if s, ok := shown[k]; ok {
				k = s
			}
			if !strings.Contains(string(doc), "`"+k+"`") {
				t.Errorf("key %q is not in docs/tui.md", k)
			}
		}
	}
}
