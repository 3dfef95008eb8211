package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/store"
)

// sniffLen is how many leading bytes Sniff looks at.
const sniffLen = 8192

// Sniff tells a file's format from its
// name and its first bytes (head; a few KB is enough). ok is false for
// files ibid does not read: extensions not in Extensions (their content is
// not guessed, except that a PDF is always recognised by its header), and
// extension-less files that are binary or not UTF-8.
func Sniff(path string, head []byte) (format store.Format, ok bool) {
	ext := strings.ToLower(filepath.Ext(path))
	// A text format's extension wins unless the file really starts as a PDF:
	// a Markdown page that mentions "%PDF-" near its top is still Markdown.
	if e, ok := extensionOf(ext); ok && e.Format != store.FormatPDF && !bytes.HasPrefix(head, []byte("%PDF-")) {
		return e.Format, true
	}
	if isPDFHead(head) {
		return store.FormatPDF, true
	}
	if e, ok := extensionOf(ext); ok {
		return e.Format, true
	}
	if ext != "" && ext != strings.ToLower(filepath.Base(path)) {
		return "", false
	}
	if _, bad := badTextAt(head, true); bad {
		return "", false
	}
	h := bytes.ToLower(bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n"))
	if bytes.HasPrefix(h, []byte("<!doctype html")) || bytes.HasPrefix(h, []byte("<html")) {
		return store.FormatHTML, true
	}
	return store.FormatText, true
}

func isPDFHead(head []byte) bool {
	if len(head) > 1024 { // pdfium accepts the header within the first KB
		head = head[:1024]
	}
	return bytes.Contains(head, []byte("%PDF-"))
}

// HashBytes is the hex SHA-256 of b: a document's content hash.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// DocumentID derives a document's id from its content hash (the first 16
// hex characters of HashBytes), so the same bytes always get the same id.
func DocumentID(contentHash string) string {
	if len(contentHash) > 16 {
		return contentHash[:16]
	}
	return contentHash
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// badTextAt finds the first byte that makes b not UTF-8 text: a NUL or an
// invalid UTF-8 sequence. With truncated, an incomplete rune at the very
// end is allowed (b is a prefix of the file). bad is false if b is text.
func badTextAt(b []byte, truncated bool) (offset int, bad bool) {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0 {
				return i, true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			if truncated && !utf8.FullRune(b[i:]) {
				return 0, false
			}
			return i, true
		}
		i += n
	}
	return 0, false
}

// decodeText checks that data is UTF-8 text and returns it without a byte
// order mark and with line ends normalised to "\n". Byte offsets in the
// reasons count from the start of the file.
func decodeText(path string, data []byte) (string, error) {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return "", skip(path, "UTF-16 text; convert the file to UTF-8")
	}
	if off, bad := badTextAt(data, false); bad {
		if data[off] == 0 {
			return "", skip(path, "binary file, not text (NUL byte at offset %d)", off)
		}
		return "", skip(path, "invalid UTF-8 at byte offset %d; convert the file to UTF-8", off)
	}
	s := string(bytes.TrimPrefix(data, utf8BOM))
	if strings.Contains(s, "\r") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	if strings.TrimSpace(s) == "" {
		return "", skip(path, "empty file (only whitespace)")
	}
	return s, nil
}

// unsupportedReason says why Sniff refused a file.
func unsupportedReason(path string, head []byte) string {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != "" && ext != strings.ToLower(filepath.Base(path)) {
		return fmt.Sprintf("unsupported file type %q; ibid reads %s", ext, SupportedList())
	}
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return "UTF-16 text; convert the file to UTF-8"
	}
	if off, bad := badTextAt(head, true); bad {
		if head[off] == 0 {
			return fmt.Sprintf("binary file, not text (NUL byte at offset %d)", off)
		}
		return fmt.Sprintf("invalid UTF-8 at byte offset %d; convert the file to UTF-8", off)
	}
	return "unknown format"
}
