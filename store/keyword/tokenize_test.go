package keyword

import (
	"slices"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"english", "The patients' outcomes were improving, and it isn't relational.",
			[]string{"patient", "outcom", "were", "improv", "isn't", "relat"}},
		{"possessive", "Alzheimer's disease", []string{"alzheim", "diseas"}},
		{"numbers", "IL-6 levels rose 3.5-fold in 2019", []string{"il", "6", "level", "rose", "3.5", "fold", "2019"}},
		{"chinese bigrams", "机器学习", []string{"机器", "器学", "学习"}},
		{"japanese mixed scripts", "日本語のテキスト", []string{"日本", "本語", "語の", "のテ", "テキ", "キス", "スト"}},
		{"korean", "한국어 문서", []string{"한국", "국어", "문서"}},
		{"single han", "猫 and dog", []string{"猫", "dog"}},
		{"mixed", "BERT模型 works", []string{"bert", "模型", "work"}},
		{"punctuation only", "... — !!", nil},
		{"accents lowercased", "Égalité ÉTÉ", []string{"égalité", "été"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Tokenize(tc.in); !slices.Equal(got, tc.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestStem(t *testing.T) {
	// From Porter's published vocabulary/output pairs.
	pairs := map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "valenci": "valenc", "digitizer": "digit", "conformabli": "conform",
		"radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
		"vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
		"decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
		"sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
		"formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
		"goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
		"airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
		"irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
		"adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
		"angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"generalizations": "gener", "oscillators": "oscil", "a": "a", "is": "is",
	}
	for in, want := range pairs {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}
