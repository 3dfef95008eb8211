package pdf

import "testing"

func TestCaptionStart(t *testing.T) {
	for line, want := range map[string]bool{
		"Figure 3: Results":                        true,
		"Table 2. Datasets":                        true,
		"Table 1 Results of the experiments":       true,
		"Fig. 4":                                   true,
		"图 1 模型结构":                                 true,
		"表1：数据":                                    true,
		"Table 17 shows results on demonstrations": false,
		"Table 22, 23, and 24.":                    false,
		"Figure 3 and Table 4 compare":             false,
		"Tables are hard":                          false,
	} {
		if got := captionRE.MatchString(line); got != want {
			t.Errorf("%q: caption %v, want %v", line, got, want)
		}
	}
}

// isTableCaption is the caption regexp's answer, on captions of every
// kind and on near misses (its literal test only spares the regexp
// lines that cannot match).
func TestIsTableCaptionIsTheRegexps(t *testing.T) {
	for _, s := range []string{
		"Table 1: Scores", "Table1", "TABLE II", "Tab. 3", "Tab.4", "表 2", "表3 结果", "Table A.1",
		"", "T", "Tab", "Table", "Table x", "Tablet 5", "TABLE", "TAB. 3", "Tab 3", " Table 1", "table 1",
		"Figure 1: Table 2", "表", "Tables 3", "TABLEAU 4",
	} {
		if got, want := isTableCaption(s), tableCaptionRE.MatchString(s); got != want {
			t.Errorf("isTableCaption(%q) = %v, the regexp %v", s, got, want)
		}
	}
}
