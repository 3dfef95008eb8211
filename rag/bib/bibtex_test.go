package bib

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLatex(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{\"o}`, "ö"}, {`\"{o}`, "ö"}, {`\"o`, "ö"}, {`{\"{o}}`, "ö"},
		{`\'{e}`, "é"}, {`{\'e}`, "é"}, {`\'\i`, "í"}, {`{\'\i}`, "í"}, {`\'{\i}`, "í"},
		{`\c{c}`, "ç"}, {`\c c`, "ç"}, {`\v{s}`, "š"}, {`\v s`, "š"}, {`\H{o}`, "ő"}, {`\k{a}`, "ą"},
		{`\r{a}`, "å"}, {`\aa`, "å"}, {`\AA{}`, "Å"}, {`\~{n}`, "ñ"}, {`\^{o}`, "ô"}, {`\={a}`, "ā"},
		{`\u{g}`, "ğ"}, {`\.{z}`, "ż"}, {`\d{s}`, "ṣ"},
		{`Erd\H{o}s`, "Erdős"}, {`Schr\"odinger`, "Schrödinger"}, {`Ku\v{c}era`, "Kučera"},
		{`{\ss}`, "ß"}, {`Stra\ss e`, "Straße"}, {`{\o}rsted`, "ørsted"}, {`\O{}rsted`, "Ørsted"},
		{`\L{}\'od\'z`, "Łódź"}, {`{\ae}`, "æ"}, {`\oe{}uvre`, "œuvre"},
		{`Fish \& Chips`, "Fish & Chips"}, {`50\%`, "50%"}, {`\$5`, "$5"}, {`a\_b`, "a_b"}, {`\#1`, "#1"},
		{`pages 1--2`, "pages 1–2"}, {`yes---no`, "yes—no"}, {`a-b`, "a-b"},
		{"``quoted''", "“quoted”"}, {`Don't`, "Don't"},
		{`{BERT}: Pre-training`, "BERT: Pre-training"}, {`\emph{Deep} learning`, "Deep learning"},
		{`\textbf{Bold} and \textit{it}`, "Bold and it"}, {`$\alpha$-helix`, "α-helix"},
		{`$O(n^2)$ time`, "O(n^2) time"}, {`Hello~World`, "Hello World"}, {"line\n  break", "line break"},
		{`\noopsort{b}Alpha`, "Alpha"}, {`\unknown{kept}`, "kept"}, {`\'{}`, "´"},
		{`\t{oo}`, "o\u0361o"}, {`trailing \`, "trailing"}, {`{{{deep}}}`, "deep"},
		{`\href{https://x.org}{the link}`, "the link"},
	} {
		if got := Latex(c.in); got != c.want {
			t.Errorf("Latex(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		in, want string
		etAl     bool
	}{
		{"Gao, Luyu and Ma, Xueguang", "Gao, Luyu; Ma, Xueguang", false},
		{"Luyu Gao and Xueguang Ma", "Gao, Luyu; Ma, Xueguang", false},
		{"Gao, Luyu and others", "Gao, Luyu", true},
		{"Ludwig van Beethoven", "van Beethoven, Ludwig", false},
		{"van Beethoven, Ludwig", "van Beethoven, Ludwig", false},
		{"Charles Louis Xavier Joseph de la Vall{\\'e}e Poussin", "de la Vallée Poussin, Charles Louis Xavier Joseph", false},
		{"King, Jr, Martin Luther", "King, Martin Luther, Jr", false},
		{"{World Health Organization}", "World Health Organization", false},
		{"{Barnes and Noble}, Inc.", "Barnes and Noble, Inc.", false},
		{"Brand, Ana AND Ortiz, Ana", "Brand, Ana; Ortiz, Ana", false},
		{"Jos{\\'e} Mar{\\'\\i}a Garc{\\'\\i}a-L{\\'o}pez", "García-López, José María", false},
		{"{\\'E}mile Zola", "Zola, Émile", false},
		{"Plato", "Plato", false},
		{"Alexander {von Humboldt}", "von Humboldt, Alexander", false},
		{"family=Berg, given=Ana, prefix=van der, useprefix=true", "van der Berg, Ana", false},
		{"Anderson, Andy and and", "Anderson, Andy; and", false},
		{"", "", false},
	} {
		names, etAl := bibNames(c.in)
		var got []string
		for _, n := range names {
			got = append(got, n.String())
		}
		if g := strings.Join(got, "; "); g != c.want || etAl != c.etAl {
			t.Errorf("bibNames(%q) = %q, %v; want %q, %v", c.in, g, etAl, c.want, c.etAl)
		}
	}
}

func TestNameRoundTrip(t *testing.T) {
	for _, n := range []Name{
		{Given: "Ludwig", Particle: "van", Family: "Beethoven"},
		{Given: "Martin Luther", Family: "King", Suffix: "Jr."},
		{Family: "World Health Organization"},
		{Given: "Jörg", Family: "Müller"},
	} {
		if got := ParseName(n.String()); got != n {
			t.Errorf("ParseName(%q) = %+v, want %+v", n.String(), got, n)
		}
	}
}

func TestFileField(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []File
	}{
		{`Full Text PDF:/home/u/a b.pdf:application/pdf`, []File{{Path: "/home/u/a b.pdf", MIME: "application/pdf", Description: "Full Text PDF"}}},
		{`/a.pdf;/b.html`, []File{{Path: "/a.pdf"}, {Path: "/b.html"}}},
		{`:papers/x.pdf:PDF`, []File{{Path: "papers/x.pdf", MIME: "PDF"}}},
		{`:C\:\\Users\\me\\x.pdf:PDF`, []File{{Path: `C:\Users\me\x.pdf`, MIME: "PDF"}}},
		{`Preprint:C\:\\Users\\me\\x.pdf:PDF;:y.pdf:PDF`, []File{{Path: `C:\Users\me\x.pdf`, MIME: "PDF", Description: "Preprint"}, {Path: "y.pdf", MIME: "PDF"}}},
		{`:C$\backslash$:/Users/me/x.pdf:pdf`, []File{{Path: "C:/Users/me/x.pdf", MIME: "pdf"}}},
		{`C:\Users\me\x.pdf`, []File{{Path: `C:\Users\me\x.pdf`}}},
		{`x.pdf:application/pdf`, []File{{Path: "x.pdf", MIME: "application/pdf"}}},
		{`file:///home/u/a%20b.pdf`, []File{{Path: "/home/u/a b.pdf"}}},
		{`Semi\;colon:/a\;b.pdf:application/pdf`, []File{{Path: "/a;b.pdf", MIME: "application/pdf", Description: "Semi;colon"}}},
		{``, nil}, {`;;`, nil},
	} {
		got := parseFileField(c.in)
		if len(got) != len(c.want) {
			t.Errorf("parseFileField(%q) = %+v, want %+v", c.in, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("parseFileField(%q)[%d] = %+v, want %+v", c.in, i, got[i], c.want[i])
			}
		}
	}
}

// TestParseRecovers: a broken entry costs only itself; every problem
// names its line and, when known, its citekey.
func TestParseRecovers(t *testing.T) {
	src := `@article{good1, title = {One}, year = 2020}

@article{broken, title = {Never closed, year = 2021

@article{good2, title = "Two {"}quoted{"} parts" # { and more}, year = {2022}}
@article{, title = {no key}}
@article{good1, title = {Duplicate}}
@misc(paren, title = undefinedmacro)
@comment{ @article{hidden, title={not an entry}} }
@preamble{"\newcommand{\noopsort}[1]{}"}
@string(me = "Ana")
@book{good3, author = me # " Ortiz", title = {Three}}
stray text @ in between
@article{last, title = {Last}`
	entries, problems := ParseBibTeX([]byte(src))
	var keys []string
	for _, e := range entries {
		keys = append(keys, e.Key)
	}
	if got := strings.Join(keys, ","); got != "good1,good2,paren,good3" {
		t.Errorf("entries %s, want good1,good2,paren,good3", got)
	}
	if entries[1].Title != `Two "quoted" parts and more` {
		t.Errorf("quoted title %q", entries[1].Title)
	}
	if entries[2].Title != "undefinedmacro" {
		t.Errorf("undefined macro kept as %q", entries[2].Title)
	}
	if a := entries[3].Authors; len(a) != 1 || a[0].String() != "Ortiz, Ana" {
		t.Errorf("macro in a name: %+v", a)
	}
	wantProblems := []string{"line 3: broken:", "line 6:", "line 7: good1: duplicate", "paren: undefined @string macro", "line 14: last:"}
	all := ""
	for _, p := range problems {
		all += p.String() + "\n"
	}
	for _, w := range wantProblems {
		if !strings.Contains(all, w) {
			t.Errorf("no problem %q in:\n%s", w, all)
		}
	}
}

func TestCrossref(t *testing.T) {
	src := `@inproceedings{paper, author = {A, B}, title = {Paper}, crossref = {proc}}
@proceedings{proc, title = {Proceedings of Things}, year = {2020}, publisher = {P}}`
	entries, _ := ParseBibTeX([]byte(src))
	if entries[0].Venue != "Proceedings of Things" || entries[0].Year != "2020" {
		t.Errorf("crossref not inherited: %+v", entries[0])
	}
}

func TestCleanDOI(t *testing.T) {
	for in, want := range map[string]string{
		"10.1/x": "10.1/x", "https://doi.org/10.1/X": "10.1/X", "doi:10.1/x": "10.1/x",
		" http://dx.doi.org/10.1/x ": "10.1/x", "not a doi": "", "10.1": "",
	} {
		if got := CleanDOI(in); got != want {
			t.Errorf("CleanDOI(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseBibTeX: any input parses without panic into entries that keep
// the package's invariants: a key, one-line valid UTF-8 fields, four-
// digit years, no more entries than '@' signs.
func FuzzParseBibTeX(f *testing.F) {
	for _, s := range []string{
		`@article{a, author = {M{\"u}ller, J{\"o}rg and others}, title = {T}, year = 2020, file = {:a.pdf:PDF}}`,
		`@string{x = "y"} @book(b, title = x # {z})`,
		`@article{c, title = {{\'\i}}`, `@{`, `@article{d, title = "a{"}b"}`,
		`@misc{e, bdsk-file-1 = {YnBsaXN0MDDSAQIDBA==}}`, "@article{f,\n title = {\\\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		entries, problems := ParseBibTeX(src)
		if len(entries) > strings.Count(string(src), "@") {
			t.Fatalf("%d entries from %d '@'", len(entries), strings.Count(string(src), "@"))
		}
		for _, e := range entries {
			if e.Key == "" {
				t.Fatal("an entry without a key")
			}
			fields := []string{e.Key, e.Title, e.Year, e.Venue, e.DOI, e.URL}
			for _, a := range e.Authors {
				fields = append(fields, a.String())
			}
			for _, s := range fields {
				if !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r") {
					t.Fatalf("field %q is not one line of UTF-8", s)
				}
			}
			if e.Year != "" && len(e.Year) != 4 {
				t.Fatalf("year %q", e.Year)
			}
		}
		for _, p := range problems {
			if p.Text == "" {
				t.Fatal("a problem without text")
			}
		}
	})
}

// FuzzLatex: decoding never panics and keeps valid UTF-8 on one line.
func FuzzLatex(f *testing.F) {
	for _, s := range []string{`{\"o}`, `\'\i`, `\t{oo}`, `$\alpha$`, `\c`, `{\"{\"{\"{o}}}}`, "a\nb", "\\b\\ô0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		got := Latex(s)
		if !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r\t") {
			t.Fatalf("Latex(%q) = %q", s, got)
		}
	})
}

// FuzzBibDesk: any bytes as a Bdsk-File field read without panic.
func FuzzBibDesk(f *testing.F) {
	f.Add([]byte("bplist00\xd2\x01\x02\x03\x04"))
	f.Add([]byte("bplist00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if pl, ok := readBplist(data); ok {
			pl.relativePath()
		}
	})
}

// TestLatin1File: an older tool's Latin-1 .bib keeps its accents, UTF-8
// beside it is kept, and one problem says where the first non-UTF-8 byte is.
func TestLatin1File(t *testing.T) {
	src := []byte("% Encoding: ISO8859_1\n\n@article{m, author = {M\xfcller, J\xf6rg}, title = {Caf\xe9 \u2013 {\\\"u}ber}, year = 1999}\n")
	entries, problems := ParseBibTeX(src)
	if len(entries) != 1 {
		t.Fatalf("entries %+v, problems %v", entries, problems)
	}
	if got := entries[0].Authors[0].String(); got != "Müller, Jörg" {
		t.Errorf("author %q, want Müller, Jörg", got)
	}
	if got := entries[0].Title; got != "Café – über" {
		t.Errorf("title %q, want Café – über", got)
	}
	if len(problems) != 1 || problems[0].Line != 3 || !problems[0].Note || !strings.Contains(problems[0].Text, "not UTF-8") {
		t.Errorf("problems %v, want one on line 3 saying the file is not UTF-8", problems)
	}
	if _, problems := ParseBibTeX([]byte("@article{u, title = {Müller}}")); len(problems) != 0 {
		t.Errorf("a UTF-8 file has problems %v", problems)
	}
}
