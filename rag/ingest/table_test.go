package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Markdown table longer than a segment is cut between rows, never
// inside one; an HTML table is read as a Markdown table, a row a line, so
// its rows stay whole too.
func TestTablesKeepRowsWhole(t *testing.T) {
	var md, html strings.Builder
	md.WriteString("# Results\n\n| Model | Method | Passages | EM | Citation |\n|---|---|---|---|---|\n")
	html.WriteString("<html><body><h1>Results</h1><table><tr><th>Model</th><th>Method</th><th>Passages</th><th>EM</th><th>Citation</th></tr>\n")
	for i := range 120 {
		row := []string{fmt.Sprintf("Model-%dB", i), "SUMM. It reads.", "10-psg", fmt.Sprintf("%d.%d", 40+i%50, i%10), fmt.Sprintf("%d.%d", 50+i%40, (i+3)%10)}
		md.WriteString("| " + strings.Join(row, " | ") + " |\n")
		html.WriteString("<tr><td>" + strings.Join(row, "</td><td>") + "</td></tr>\n")
	}
	html.WriteString("</table></body></html>\n")
	for name, text := range map[string]string{"table.md": md.String(), "table.html": html.String()} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		ld := load(t, path)
		if len(ld.Segments) < 2 {
			t.Fatalf("%s: %d segments; want the table over several", name, len(ld.Segments))
		}
		rows := 0
		for _, s := range ld.Segments {
			for _, l := range strings.Split(s.Text, "\n") {
				if !strings.HasPrefix(l, "| Model-") {
					continue
				}
				rows++
				if strings.Count(l, "|") != 6 || !strings.HasSuffix(strings.TrimSpace(l), "|") {
					t.Errorf("%s: a row cut: %q", name, l)
				}
			}
		}
		if rows != 120 {
			t.Errorf("%s: %d whole rows in the segments, want 120", name, rows)
		}
	}
}
