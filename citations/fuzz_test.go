package citations

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzCuts turns fuzz bytes into cut positions in a text of length n.
func fuzzCuts(cuts []byte, n int) []int {
	var out []int
	pos := 0
	for _, c := range cuts {
		pos += int(c)%17 + 1
		if pos >= n {
			break
		}
		out = append(out, pos)
	}
	return out
}

func fuzzCheck(t *testing.T, mode Mode, text string, cuts []byte) {
	opt := Options{Offered: func(k int) bool { return k%5 != 0 }}
	want := show(Render(mode, text, opt))
	if got := show(stream(t, mode, text, opt, at(fuzzCuts(cuts, len(text))...))); got != want {
		t.Fatalf("%s %q cut at %v:\n got %s\nwant %s", mode, text, fuzzCuts(cuts, len(text)), got, want)
	}
	if got := show(stream(t, mode, text, opt, bytewise(len(text)))); got != want {
		t.Fatalf("%s %q byte by byte:\n got %s\nwant %s", mode, text, got, want)
	}
}

// FuzzRenumber compares the inline stream, cut where the fuzzer says and
// byte by byte, with Render.
func FuzzRenumber(f *testing.F) {
	for _, tc := range inlineCases {
		f.Add(tc.in, []byte{3, 1, 7})
	}
	f.Add("a 【source_1, source_20】 ```x\n[source_3]\n```\n`[source_4]` [source_5]", []byte{0, 9, 2, 30})
	f.Fuzz(func(t *testing.T, text string, cuts []byte) {
		fuzzCheck(t, ModeInline, text, cuts)
	})
}

// FuzzJSON does the same for the json and sections modes.
func FuzzJSON(f *testing.F) {
	for _, tc := range jsonCases {
		f.Add(tc.in, []byte{5, 2, 11}, false)
	}
	for _, tc := range sectionsCases {
		f.Add(tc.in, []byte{1, 4, 9}, true)
	}
	f.Fuzz(func(t *testing.T, text string, cuts []byte, sections bool) {
		mode := ModeJSON
		if sections {
			mode = ModeSections
		}
		fuzzCheck(t, mode, text, cuts)
		crossCheckJSON(t, mode, text)
	})
}

// crossCheckJSON checks the decoding of the answer's strings against
// encoding/json, for answers that are one valid JSON object of valid UTF-8
// (encoding/json replaces invalid bytes, the engine keeps them): the json
// mode must render exactly as the inline mode renders the body that
// encoding/json decodes, and the sections mode's text must be the sections'
// texts, each rendered as a document of its own.
func crossCheckJSON(t *testing.T, mode Mode, text string) {
	trimmed := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(trimmed, "{") || len(text)-len(trimmed) > MaxToken || !utf8.ValidString(text) {
		return
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	var top json.RawMessage
	if dec.Decode(&top) != nil {
		return
	}
	keys, vals, ok := objectFields(top)
	if !ok || (mode == ModeJSON && countOf(keys, "body") > 1) {
		return // each body is a document of its own, and the numbering runs on
	}
	opt := Options{Offered: func(k int) bool { return k%5 != 0 }}
	var want []Event
	var wantText string
	for i, key := range keys {
		switch {
		case mode == ModeJSON && key == "body":
			var body string
			if json.Unmarshal(vals[i], &body) != nil {
				continue
			}
			want = append(want, withoutDone(Render(ModeInline, body, opt))...)
		case mode == ModeSections && key == "sections":
			var secs []json.RawMessage
			if json.Unmarshal(vals[i], &secs) != nil {
				continue
			}
			for _, sec := range secs {
				skeys, svals, ok := objectFields(sec)
				if !ok {
					continue
				}
				for j, sk := range skeys {
					var s string
					if sk == "text" && json.Unmarshal(svals[j], &s) == nil {
						wantText += textOf(Render(ModeInline, s, Options{}))
					}
				}
			}
		}
	}
	got := Render(mode, text, opt)
	if mode == ModeJSON {
		if g, w := show(withoutDone(got)), show(mergeText(want)); g != w {
			t.Fatalf("json %q: the oracle disagrees with encoding/json's body:\n got %s\nwant %s", text, g, w)
		}
	} else if g := textOf(got); g != wantText {
		t.Fatalf("sections %q: the oracle's text %q, encoding/json's sections' text %q", text, g, wantText)
	}
	if g, w := show(withoutDone(stream(t, mode, text, opt, whole))), show(withoutDone(got)); g != w {
		t.Fatalf("%s %q: stream and oracle differ:\n got %s\nwant %s", mode, text, g, w)
	}
}

// objectFields returns a JSON object's keys and raw values in order,
// repeated keys included (encoding/json's maps keep only the last).
func objectFields(raw json.RawMessage) (keys []string, vals []json.RawMessage, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, false
		}
		keys = append(keys, tok.(string))
		vals = append(vals, v)
	}
	return keys, vals, true
}

func countOf(keys []string, key string) int {
	n := 0
	for _, k := range keys {
		if k == key {
			n++
		}
	}
	return n
}

func withoutDone(evs []Event) []Event {
	return slices.DeleteFunc(slices.Clone(evs), func(e Event) bool { return e.Kind == KindDone })
}

// mergeText joins adjacent text events, as Render does.
func mergeText(evs []Event) []Event {
	var out []Event
	for _, e := range evs {
		if n := len(out); n > 0 && e.Kind == KindText && out[n-1].Kind == KindText {
			out[n-1].Text = append(slices.Clone(out[n-1].Text), e.Text...)
			continue
		}
		out = append(out, e)
	}
	return out
}

func textOf(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Kind == KindText {
			b.Write(e.Text)
		}
	}
	return b.String()
}
