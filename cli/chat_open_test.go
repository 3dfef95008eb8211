package cli

import (
	"testing"

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
