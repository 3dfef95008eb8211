package enrich

import (
	"encoding/json"
	"regexp"
	"strings"
)

// maxQuestions is the most questions kept per chunk.
const maxQuestions = 5

// listMarker is a list item's lead: a bullet, a number ("1.", "2)", "(3)",
// "4 -"), or "Q1:".
var listMarker = regexp.MustCompile(`^(?:[-*•·–]+|\(?\d{1,2}[.):\]]|\d{1,2}\s+-|[Qq]\d{0,2}[.:)])\s*`)

// parseQuestions reads the questions of a model's answer: a JSON array of
// strings (or an object holding one), possibly in a code fence, or lines,
// numbered, bulleted or plain. Lines that are neither list items nor end
// with a question mark (a preamble, a refusal) are not questions; when
// some lines end with a question mark, only those are. Duplicates go; at
// most maxQuestions are kept. nil means none could be read.
func parseQuestions(answer string) []string {
	s := strings.TrimSpace(answer)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	if qs := jsonQuestions(s); qs != nil {
		return keep(qs)
	}
	var items, asked []string
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		m := listMarker.FindString(line)
		q := strings.Trim(strings.TrimSpace(line[len(m):]), "*_\"'“”")
		if q == "" {
			continue
		}
		isAsked := strings.HasSuffix(q, "?") || strings.HasSuffix(q, "？")
		if m == "" && !isAsked {
			continue
		}
		items = append(items, q)
		if isAsked {
			asked = append(asked, q)
		}
	}
	if len(asked) > 0 {
		return keep(asked)
	}
	return keep(items)
}

// jsonQuestions reads ["q", …] or {"questions": ["q", …]} (nil if s is
// neither).
func jsonQuestions(s string) []string {
	var list []string
	if json.Unmarshal([]byte(s), &list) == nil {
		return list
	}
	var obj map[string][]string
	if json.Unmarshal([]byte(s), &obj) == nil {
		for _, v := range obj {
			if len(v) > 0 {
				return v
			}
		}
	}
	return nil
}

// keep trims, drops blanks and duplicates, and keeps maxQuestions.
func keep(qs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range qs {
		q = strings.Join(strings.Fields(q), " ")
		if q == "" || seen[strings.ToLower(q)] {
			continue
		}
		seen[strings.ToLower(q)] = true
		out = append(out, q)
		if len(out) == maxQuestions {
			break
		}
	}
	return out
}
