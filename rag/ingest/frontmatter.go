package ingest

import (
	"fmt"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
)

// maxFrontMatter is the most bytes of YAML front matter read for
// metadata; a larger block is still left out of the text.
const maxFrontMatter = 64 << 10

// frontMatter splits YAML front matter (a "---" line at the very top,
// YAML, a "---" or "..." line) from the body and reads it with a YAML
// parser: block scalars, quoted strings, lists of names or of {name: ...}
// maps all work. Keys are lower-cased; a list becomes "a, b". Without
// front matter, meta is nil and body is s. Front matter that is not valid
// YAML (or too large) still leaves the body, with a note saying why no
// metadata was read.
func frontMatter(s string) (meta map[string]string, body, note string) {
	if !strings.HasPrefix(s, "---\n") {
		return nil, s, ""
	}
	rest := s[4:]
	end, next := -1, 0
	for off := 0; off <= len(rest); {
		le := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if le >= 0 {
			line = rest[off : off+le]
		}
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			end = off
			next = off + len(line) + 1
			if le < 0 {
				next = len(rest)
			}
			break
		}
		if le < 0 {
			break
		}
		off += le + 1
	}
	if end < 0 {
		return nil, s, "" // an opening rule without a closing one is a thematic break
	}
	body = rest[next:]
	if end > maxFrontMatter {
		return nil, body, fmt.Sprintf("front matter of %s not read (over %s)", byteSize(end), byteSize(maxFrontMatter))
	}
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(rest[:end]), &raw); err != nil {
		return nil, body, "front matter is not valid YAML, so its title and authors were not read: " +
			strings.Join(strings.Fields(yaml.FormatError(err, false, false)), " ") +
			` (quote values that hold ": ", e.g. title: "Notes: part 2")`
	}
	meta = map[string]string{}
	for k, v := range raw {
		if t := metaText(v, true); t != "" {
			meta[strings.ToLower(k)] = t
		}
	}
	return meta, body, ""
}

// metaText is a front matter value as text: a scalar as written; a list
// (only at the top) joined with ", "; a map by its name or title. Deeper
// values are left out, so YAML aliases cannot make it expand.
func metaText(v any, top bool) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(v)
	case time.Time:
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return v.Format(time.DateOnly)
		}
		return v.Format(time.RFC3339)
	case []any:
		if !top {
			return ""
		}
		var items []string
		for _, it := range v {
			if t := metaText(it, false); t != "" {
				items = append(items, t)
			}
		}
		return strings.Join(items, ", ")
	case map[string]any:
		for _, k := range []string{"name", "title"} {
			if s, ok := v[k].(string); ok {
				return strings.TrimSpace(s)
			}
		}
		return ""
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(v)
	}
	return ""
}
