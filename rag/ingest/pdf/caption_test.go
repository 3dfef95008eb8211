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
