package ingest

import (
	"fmt"
	"strings"
)

// Blobs: base64 data in a text file (a Markdown image as a data URI, a
// MIME part, a key) is not text. It would fill segments with junk that
// retrieval matches by accident, and it costs the tokenizer the most.
const (
	// minBlob is the fewest base64 characters a blob holds.
	minBlob = 256
	// minBlobLine is the shortest line of a blob wrapped over several
	// lines (MIME and PEM wrap at 64 or 76).
	minBlobLine = 60
)

// dropBlobs replaces each base64 blob in s (a run of at least minBlob
// characters of the base64 alphabet, possibly wrapped over lines of at
// least minBlobLine characters, holding upper case, lower case and digits)
// with a short marker saying how much was dropped. note is "" when
// nothing was dropped. It runs in one pass over s.
func dropBlobs(s string) (out string, note string) {
	var b strings.Builder
	copied, n, total := 0, 0, 0
	for i := 0; i < len(s); {
		if !isB64(s[i]) {
			i++
			continue
		}
		start, end, classes, chars := i, i, 0, 0
		for j := i; ; {
			k := j
			for k < len(s) && isB64(s[k]) {
				classes |= b64Class(s[k])
				k++
			}
			chars += k - j
			end = k
			// Continue over one line break if this line is long enough
			// to be part of a wrapped blob and the next one starts one.
			next := k
			if next < len(s) && s[next] == '\r' {
				next++
			}
			if k-j < minBlobLine || next >= len(s) || s[next] != '\n' || next+1 >= len(s) || !isB64(s[next+1]) {
				break
			}
			j = next + 1
		}
		i = end
		if chars < minBlob || classes != 7 {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[copied:start])
		fmt.Fprintf(&b, "(%s of base64 data dropped)", byteSize(end-start))
		copied = end
		n++
		total += end - start
	}
	if n == 0 {
		return s, ""
	}
	b.WriteString(s[copied:])
	return b.String(), fmt.Sprintf("dropped %d base64 blob(s), %s in all (embedded images or binary data, not text)", n, byteSize(total))
}

func isB64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

// b64Class is 1 for upper case, 2 for lower case, 4 for digits.
func b64Class(c byte) int {
	switch {
	case 'A' <= c && c <= 'Z':
		return 1
	case 'a' <= c && c <= 'z':
		return 2
	case '0' <= c && c <= '9':
		return 4
	}
	return 0
}

// byteSize writes n bytes for people: "812 B", "3.4 KB", "12 MB".
func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
