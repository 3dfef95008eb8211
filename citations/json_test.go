package citations

import (
	"strconv"
	"strings"
	"testing"
)

var jsonCases = []struct {
	name, in, want, report string
}{
	{"body", `{"body": "Bees [source_7]. Mites [source_2, source_7].", "citedSourceIds": ["source_7", "source_2"]}`,
		"Bees [1]. Mites [2][1].", "mode=json order=[7 2] refs=3 declared=[7 2] not_used=[] not_declared=[]"},
	{"fields any order", `{"citedSourceIds": ["source_2", "source_7"], "x": {"body": "no"}, "body": "A [source_7] B [source_2]"}`,
		"A [1] B [2]", "mode=json order=[7 2] refs=2 order_differs declared=[2 7] not_used=[] not_declared=[]"},
	{"declared vs used", `{"body": "A [source_1] [source_3]", "citedSourceIds": ["source_2", "source_1", 5, "src", "source_1"]}`,
		"A [1] [2]", `mode=json order=[1 3] refs=2 declared=[2 1 5] not_used=[2 5] not_declared=[3] bad_ids=["src"]`},
	{"escapes", `{"body": "line\nq\"uote\" \u00e9 \ud83d\ude00 \u3010source_4\u3011 \/ \\ \t"}`,
		"line\nq\"uote\" é 😀 [1] / \\ \t", "mode=json order=[4] refs=1 declared=[] not_used=[] not_declared=[4]"},
	{"lone surrogates", `{"body": "a\ud83d b\ude00 c\ud83d\u0041 d\ud83d\n"}`,
		"a\uFFFD b\uFFFD c\uFFFDA d\uFFFD\n", "mode=json order=[] refs=0 declared=[] not_used=[] not_declared=[]"},
	{"fence", "```json\n{\"body\": \"A [source_1]\"}\n```\n",
		"A [1]", "mode=json order=[1] refs=1 declared=[] not_used=[] not_declared=[1]"},
	{"white space", " \n\t{ \"body\" : \"A [source_1]\" , \"citedSourceIds\" : [ 1 ] } ",
		"A [1]", "mode=json order=[1] refs=1 declared=[1] not_used=[] not_declared=[]"},
	{"truncated in body", `{"body": "A [source_1] B [source_2`,
		"A [1] B [source_2", "mode=json order=[1] refs=1 truncated declared=[] not_used=[] not_declared=[1]"},
	{"truncated in escape", `{"body": "A \u00`,
		"A ", "mode=json order=[] refs=0 truncated declared=[] not_used=[] not_declared=[]"},
	{"truncated after body", `{"body": "A [source_1]", "citedSourceIds": ["source_1"`,
		"A [1]", "mode=json order=[1] refs=1 truncated declared=[1] not_used=[] not_declared=[]"},
	{"malformed", `{"body": "A [source_1]" "citedSourceIds": []}`,
		"A [1]", "mode=json order=[1] refs=1 malformed declared=[] not_used=[] not_declared=[1]"},
	{"bad escape", `{"body": "A \q [source_1]"}`,
		"A ", "mode=json order=[] refs=0 malformed declared=[] not_used=[] not_declared=[]"},
	{"not json", "Bees [source_1].", "Bees [1].", "mode=json order=[1] refs=1 not_json"},
	{"code in body", "{\"body\": \"`[source_1]` [source_2]\\n```\\n[source_3]\\n```\"}",
		"`[source_1]` [1]\n```\n[source_3]\n```", "mode=json order=[2] refs=1 declared=[] not_used=[] not_declared=[2]"},
	{"empty", "", "", "mode=json order=[] refs=0 not_json"},
	{"long prefix", strings.Repeat(" ", 70) + `{"body": "x"}`, strings.Repeat(" ", 70) + `{"body": "x"}`, "mode=json order=[] refs=0 not_json"},
	{"trailing text ignored", `{"body": "A"} [source_1]`, "A", "mode=json order=[] refs=0 declared=[] not_used=[] not_declared=[]"},
}

func TestJSONTable(t *testing.T) {
	t.Parallel()
	for _, tc := range jsonCases {
		t.Run(tc.name, func(t *testing.T) {
			evs := Render(ModeJSON, tc.in, Options{})
			if p := plain(evs); p != tc.want {
				t.Errorf("Render = %q, want %q\n%s", p, tc.want, show(evs))
			}
			if r := evs[len(evs)-1].Report.String(); r != tc.report {
				t.Errorf("report %s\n  want %s", r, tc.report)
			}
			checkAllCuts(t, ModeJSON, tc.in, Options{})
		})
	}
}

var sectionsCases = []struct {
	name, in, want, report string
}{
	{"sections", `{"sections": [{"text": "Bees.", "source_ids": ["source_1"]}, {"text": " Mites.", "source_ids": ["source_2", "source_1", "source_2"]}, {"text": " Unknown.", "source_ids": ["source_77"]}]}`,
		"Bees.[1] Mites.[2][1] Unknown.[?]", `mode=sections order=[1 2] refs=3 unknown=["source_77"]/1`},
	{"ids first", `{"sections": [{"source_ids": [3, "Source 4"], "text": "A [source_4] B"}]}`,
		"A [1] B[2][1]", "mode=sections order=[4 3] refs=3"},
	{"inline code in text", "{\"sections\": [{\"text\": \"`[source_1]`\", \"source_ids\": []}]}",
		"`[source_1]`", "mode=sections order=[] refs=0"},
	{"truncated in ids", `{"sections": [{"text": "A", "source_ids": ["source_1", "sour`,
		"A[1]", "mode=sections order=[1] refs=1 truncated"},
	{"truncated in text", `{"sections": [{"source_ids": ["source_5"], "text": "A [source_`,
		"A [source_[1]", "mode=sections order=[5] refs=1 truncated"},
	{"other keys ignored", `{"title": "t", "sections": [{"text": "A", "source_ids": [1], "note": {"text": "no"}}], "body": "no"}`,
		"A[1]", "mode=sections order=[1] refs=1"},
	{"bad ids", `{"sections": [{"text": "A", "source_ids": ["src_1", 1.5, true]}]}`,
		"A", `mode=sections order=[] refs=0 bad_ids=["src_1" "1.5"]`},
	{"fenced", "~~~\n{\"sections\": []}\n~~~", "", "mode=sections order=[] refs=0"},
	{"not json", "[source_2] text", "[1] text", "mode=sections order=[2] refs=1 not_json"},
}

func TestSectionsTable(t *testing.T) {
	t.Parallel()
	opt := Options{Offered: offered(1, 2, 3, 4, 5)}
	for _, tc := range sectionsCases {
		t.Run(tc.name, func(t *testing.T) {
			evs := Render(ModeSections, tc.in, opt)
			if p := plain(evs); p != tc.want {
				t.Errorf("Render = %q, want %q\n%s", p, tc.want, show(evs))
			}
			if r := evs[len(evs)-1].Report.String(); r != tc.report {
				t.Errorf("report %s\n  want %s", r, tc.report)
			}
			checkAllCuts(t, ModeSections, tc.in, opt)
		})
	}
}

// TestInlineCasesInJSON runs every inline case as a JSON body and as a
// section's text: the grammar is the same in all three modes.
func TestInlineCasesInJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range inlineCases {
		t.Run(tc.name, func(t *testing.T) {
			q := jsonQuote(tc.in)
			body := `{"body": ` + q + `}`
			if p := plain(Render(ModeJSON, body, Options{})); p != tc.want {
				t.Errorf("json body = %q, want %q", p, tc.want)
			}
			checkAllCuts(t, ModeJSON, body, Options{})
			sec := `{"sections": [{"text": ` + q + `, "source_ids": [999999]}]}`
			inl := Render(ModeInline, tc.in, Options{})
			n := len(inl[len(inl)-1].Report.Order)
			if tc.in != strings.ReplaceAll(tc.in, "999999", "") {
				t.Fatal("case cites 999999, which this test appends")
			}
			want := tc.want + "[" + strconv.Itoa(n+1) + "]"
			if got := plain(Render(ModeSections, sec, Options{})); got != want {
				t.Errorf("section = %q, want %q", got, want)
			}
			checkAllCuts(t, ModeSections, sec, Options{})
		})
	}
}
