package citations

import (
	"strings"
	"testing"
)

var inlineCases = []struct {
	name, in, want string
}{
	{"plain", "no tokens here", "no tokens here"},
	{"one", "Bees [source_7].", "Bees [1]."},
	{"first appearance", "a [source_9] b [source_2] c [source_9]", "a [1] b [2] c [1]"},
	{"leading zeros", "[source_007] [source_7]", "[1] [1]"},
	{"any case, space", "[Source 3] [SOURCE_3] [sOuRcE 4]", "[1] [1] [2]"},
	{"multi comma", "x [source_1, source_2]", "x [1][2]"},
	{"multi semicolon", "x [source_1;source_2 ; source_3]", "x [1][2][3]"},
	{"multi spaces", "x [source_1 source_2   source_3]", "x [1][2][3]"},
	{"inner spaces", "x [  source_1 ,  source_2  ]", "x [1][2]"},
	{"repeat in token", "[source_1, source_1, source_01]", "[1]"},
	{"repeat across tokens", "[source_1][source_1]", "[1][1]"},
	{"adjacent", "[source_1][source_2]", "[1][2]"},
	{"fullwidth", "a ［source_5］ b", "a [1] b"},
	{"lenticular", "a 【source_5】 b 【source_6, source_5】", "a [1] b [2][1]"},
	{"mixed pair", "[source_5】 ［source_5]", "[source_5】 ［source_5]"},
	{"numbers", "[1] [12] [x] [ ]  []", "[1] [12] [x] [ ]  []"},
	{"link", "[link](url) [source_code] [sources_1]", "[link](url) [source_code] [sources_1]"},
	{"seven digits", "[source_1234567] [source_123456]", "[source_1234567] [1]"},
	{"two spaces", "[source  1] [source__1]", "[source  1] [source__1]"},
	{"trailing comma", "[source_1,] [,source_1] [source_1,,source_2]", "[source_1,] [,source_1] [source_1,,source_2]"},
	{"glued", "[source_1source_2] [source_1x]", "[source_1source_2] [source_1x]"},
	{"unclosed at end", "a [source_7", "a [source_7"},
	{"unclosed then token", "a [source_7 [source_8]", "a [source_7 [1]"},
	{"nested opener", "[[source_1]]", "[[1]]"},
	{"newline inside", "[source_1\n]", "[source_1\n]"},
	{"too long", "[source_1" + strings.Repeat(" ", 60) + "]", "[source_1" + strings.Repeat(" ", 60) + "]"},
	{"just fits", "[source_1" + strings.Repeat(" ", 54) + "]", "[1]"},
	{"code span", "`[source_1]` [source_2]", "`[source_1]` [1]"},
	{"code span double", "``a ` [source_1]`` [source_2]", "``a ` [source_1]`` [1]"},
	{"code span line end", "`open [source_1]\n[source_2]", "`open [source_1]\n[1]"},
	{"fence", "```go\n[source_1]\n```\n[source_2]", "```go\n[source_1]\n```\n[1]"},
	{"tilde fence", "~~~\n[source_1]\n~~~\n[source_2]", "~~~\n[source_1]\n~~~\n[1]"},
	{"fence longer close", "````\n[source_1]\n```\n[source_3]\n`````\n[source_2]", "````\n[source_1]\n```\n[source_3]\n`````\n[1]"},
	{"fence indented", "   ```\n[source_1]\n   ```\n[source_2]", "   ```\n[source_1]\n   ```\n[1]"},
	{"four spaces no fence", "    ```\n[source_1]", "    ```\n[1]"},
	{"tilde mid line", "a ~~~ [source_1]", "a ~~~ [1]"},
	{"fence at end", "```\n[source_1]", "```\n[source_1]"},
	{"cjk", "蜜蜂。【source_1】，［source_2］、こんにちは", "蜜蜂。[1]，[2]、こんにちは"},
	{"not opener", "\xe3\x80\x91[source_1]\xef\xbc\xbd", "\xe3\x80\x91[1]\xef\xbc\xbd"},
	{"lenticular wrong close", "【source_1【source_2】", "【source_1[1]"},
	{"invalid utf8", "\xff\xe3[source_1]\xe3", "\xff\xe3[1]\xe3"},
}

func TestInlineTable(t *testing.T) {
	t.Parallel()
	for _, tc := range inlineCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Render(ModeInline, tc.in, Options{})
			if p := plain(got); p != tc.want {
				t.Errorf("Render(%q) = %q, want %q\n%s", tc.in, p, tc.want, show(got))
			}
			checkAllCuts(t, ModeInline, tc.in, Options{})
		})
	}
}

func TestInlineUnknown(t *testing.T) {
	t.Parallel()
	opt := Options{Offered: offered(1, 2)}
	in := "a [source_1] b [source_99, source_2, source_099] c [Source 42] d [source_99]"
	evs := Render(ModeInline, in, opt)
	if got, want := plain(evs), "a [1] b [?][2] c [?] d [?]"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	rep := evs[len(evs)-1].Report
	if got := rep.String(); got != `mode=inline order=[1 2] refs=2 unknown=["source_99" "Source 42"]/3` {
		t.Errorf("report %s", got)
	}
	for _, e := range evs {
		if e.Kind == KindUnknown && e.Source != 99 && e.Source != 42 {
			t.Errorf("unknown event %v", e)
		}
	}
	checkAllCuts(t, ModeInline, in, opt)
}

func TestCitationBeforeFirstRef(t *testing.T) {
	t.Parallel()
	evs := Render(ModeInline, "[source_3] [source_4, source_3] [source_4]", Options{})
	want := "citation(source_3=1)\nref(source_3=1)\ntext(\" \")\ncitation(source_4=2)\nref(source_4=2)\nref(source_3=1)\ntext(\" \")\nref(source_4=2)\ndone(mode=inline order=[3 4] refs=4)\n"
	if got := show(evs); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
