package ingest

import (
	"slices"
	"strings"
	"testing"
)

// alceRows are rows of the ALCE paper's result tables (its main results,
// Tables 4 to 6, and the appendix's full results, Tables 18 to 20) as
// poppler's `pdftotext -layout` lays them out: the row label, then every
// number of the row in order.
var alceRows = map[string][][]string{
	"Table 4": {
		{"VANILLA (5-psg)", "66.6", "40.4", "73.6", "72.5"},
		{"w/ RERANK", "77.0", "40.2", "84.8", "81.6"},
		{"SUMM (10-psg)", "70.0", "43.3", "68.9", "61.8"},
		{"w/ INTERACT", "69.0", "39.1", "73.4", "66.5"},
		{"SNIPPET (10-psg)", "69.8", "41.4", "65.3", "57.4"},
		{"INLINESEARCH", "58.7", "32.4", "58.3", "58.2"},
		{"CLOSEDBOOK", "52.7", "38.3", "26.7", "26.7"},
		{"LLaMA-13B", "68.4", "26.9", "10.6", "15.4"},
		{"Vicuna-13B", "82.6", "31.9", "51.1", "50.1"},
	},
	"Table 5": {
		{"VANILLA (5-psg)", "20.8", "20.8", "20.5", "20.9"},
		{"SNIPPET (10-psg)", "24.5", "21.5", "22.9", "24.9"},
		{"CLOSEDBOOK", "32.9", "19.8", "10.0", "10.0"},
		{"Vicuna-13B", "14.0", "15.9", "12.5", "13.4"},
	},
	"Table 6": {
		{"VANILLA (5-psg)", "57.2", "12.0", "51.1", "50.0"},
		{"SNIPPET (10-psg)", "62.9", "14.3", "50.4", "45.0"},
		{"CLOSEDBOOK", "32.6", "18.6", "15.5", "15.5"},
		{"Vicuna-13B", "58.2", "10.0", "15.6", "19.6"},
	},
	"Table 18": {
		{"VANILLA (5-psg)", "66.8 (2.0)", "40.4 (0.6)", "73.6 (1.1)", "72.5 (1.8)", "37.0 (0.4)", "40.0 (3.1)"},
		{"ORACLE(5-psg)", "64.4 (0.6)", "48.9 (1.2)", "74.5 (0.6)", "72.7 (1.0)", "38.2 (1.0)", "37.4 (3.0)"},
		{"Vicuna-13B SUMM (10-psg)", "67.7 (0.3)", "43.2 (0.1)", "52.7 (2.6)", "50.0 (2.1)", "36.7 (0.2)", "66.0 (1.2)"},
		{"Oasst-33B ORACLE (3-psg)", "85.1 (2.8)", "44.3 (2.4)", "37.0 (1.0)", "39.6 (1.5)", "36.5 (1.1)", "44.2 (5.8)"},
	},
	"Table 19": {
		{"LLaMA-7B VANILLA (3-psg)", "7.8 (3.4)", "7.4 (2.7)", "5.1 (0.5)", "5.7 (0.8)", "5.7 (0.6)"},
		{"Vicuna-13B SUMM (10-psg)", "21.1 (1.4)", "17.1 (0.3)", "15.7 (0.2)", "17.8 (0.1)", "6.9 (0.7)"},
		{"Oasst-33B SNIPPET (10-psg)", "22.0 (0.4)", "17.4 (0.3)", "13.6 (1.7)", "17.7 (1.6)", "7.5 (0.1)"},
	},
	"Table 20": {
		{"VANILLA (5-psg)", "57.2 (1.6)", "12.0 (0.6)", "51.1 (4.2)", "50.0 (4.8)", "20.6 (0.2)", "91.5 (6.5)"},
		{"ORACLE (5-psg)", "59.4 (4.1)", "21.3 (0.2)", "57.8 (3.7)", "56.0 (3.8)", "21.2 (0.3)", "93.0 (7.8)"},
		{"LLaMA-7B VANILLA (3-psg)", "28.6 (17.9)", "1.6 (0.9)", "1.2 (0.0)", "2.7 (0.1)", "12.2 (1.3)", "46.9 (1.2)"},
		{"Vicuna-13B SUMM (10-psg)", "22.4 (3.0)", "4.9 (0.1)", "9.7 (1.3)", "12.2 (1.2)", "9.3 (0.4)", "33.0 (3.7)"},
		{"Oasst-33B SNIPPET (10-psg)", "50.7 (4.6)", "10.7 (1.2)", "25.8 (3.3)", "26.7 (2.3)", "17.8 (1.8)", "69.6 (8.6)"},
	},
}

// The ALCE paper's result tables are read as tables: each is a section
// of its own that opens with its caption, on its page (one segment, or a
// run of them when the table is over the token budget, cut between
// rows), and each row is a paragraph that holds its label and then every
// one of its numbers, in order, cells apart. The appendix's tables (pp. 17-19) are filed under
// the section that cites them (F.4 Main Results), not the last heading
// before them.
func TestALCETables(t *testing.T) {
	ld := loadShared(t, "alce-gao2023-citations.pdf")
	for table, rows := range alceRows {
		var seg = -1
		for i, s := range ld.Segments {
			if strings.HasPrefix(s.Text, table+":") {
				seg = i
				break
			}
		}
		if seg < 0 {
			t.Errorf("%s: no segment opens with its caption", table)
			continue
		}
		s := ld.Segments[seg]
		if s.PageStart != s.PageEnd {
			t.Errorf("%s: segment on pages %d-%d", table, s.PageStart, s.PageEnd)
		}
		if appendix := table == "Table 18" || table == "Table 19" || table == "Table 20"; appendix && !slices.Equal(s.Section, []string{"F More Experiments", "F.4 Main Results"}) {
			t.Errorf("%s: in section %q, want F.4 Main Results", table, s.Section)
		}
		// The table's segments: the run of segments of its section on
		// its page.
		var lines []string
		for _, o := range ld.Segments[seg:] {
			if !slices.Equal(o.Section, s.Section) || o.PageStart != s.PageStart || o.Parent != "" || (o.Index > seg && strings.Contains(o.Text, "Table ") && strings.HasPrefix(o.Text, "Table ")) {
				break
			}
			lines = append(lines, strings.Split(o.Text, "\n\n")...)
		}
		for _, row := range rows {
			want := strings.Join(row, " · ")
			if !slices.ContainsFunc(lines, func(line string) bool { return strings.HasPrefix(line, want) }) {
				t.Errorf("%s: no row reads %q in:\n%s", table, want, strings.Join(lines, "\n"))
			}
		}
	}
}

// tableMentions finds what the mention regexp finds, in order, in text
// with and without "Table" (its literal test only spares the regexp text
// that cannot match).
func TestTableMentionsAreTheRegexps(t *testing.T) {
	for _, text := range []string{
		"", "as Table 4 shows", "Tables 4, 5, and 6 list", "see Table 18, 19 and 20.", "Tables 2–3", "Table A and Table B",
		"Table1", "a Table\n7 here", "Tablespoon 3", "STable 5", "table 4 in lower case", "TABLE 4", "Tab. 4",
		"no tables at all", "Figure 3 and Table 2 (Tables 5-6)",
	} {
		var want []string
		for _, m := range tableMentionRE.FindAllStringSubmatch(text, -1) {
			want = append(want, tableNumberRE.FindAllString(m[1], -1)...)
		}
		if got := tableMentions(text); !slices.Equal(got, want) {
			t.Errorf("tableMentions(%q) = %q, the regexp's %q", text, got, want)
		}
	}
}
