package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/store"
)

// Default per-file size limits: what a laptop loads without strain.
const (
	DefaultMaxPDF  = 256 << 20
	DefaultMaxText = 64 << 20
)

// readBlock is how much ReadFile reads between looks at its context.
const readBlock = 1 << 20

// Limits bounds the files Open and ReadFile accept; a zero field means
// its default.
type Limits struct {
	MaxPDF  int64 // bytes of a PDF
	MaxText int64 // bytes of a Markdown, HTML or text file
}

func (l Limits) pdf() int64 {
	if l.MaxPDF > 0 {
		return l.MaxPDF
	}
	return DefaultMaxPDF
}

func (l Limits) text() int64 {
	if l.MaxText > 0 {
		return l.MaxText
	}
	return DefaultMaxText
}

func (l Limits) of(format store.Format) int64 {
	if format == store.FormatPDF {
		return l.pdf()
	}
	return l.text()
}

// Source is a file opened for loading.
//
// Invariants: File is a regular file opened for reading, positioned at
// len(Head); Head is its first min(Size, sniffLen) bytes; Format is
// Sniff's for Path and Head; Size is within the Limits it was opened with.
type Source struct {
	File   *os.File
	Path   string // absolute
	Format store.Format
	Size   int64 // from fstat when opened
	Head   []byte
}

// Close closes the file.
func (s *Source) Close() error { return s.File.Close() }

// Open opens the file at path for loading and checks it before anything
// else is read: it opens without blocking (a named pipe with no writer
// does not hang), takes the opened file's type and size (so a file
// swapped after a check cannot slip through), refuses what is not a
// regular file, larger than its limit, of an unsupported type, empty or,
// for a text format, binary or not UTF-8 in its first bytes. Every refusal
// is a *SkipError whose reason says what to do; other errors are ctx's.
func Open(ctx context.Context, path string, limits Limits) (*Source, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, skip(path, "cannot resolve path: %v", err)
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, skip(path, "%s", readReason(err))
	}
	src, err := check(f, path, abs, limits)
	if err != nil {
		f.Close()
		return nil, err
	}
	return src, nil
}

// check does Open's checks on the opened file f.
func check(f *os.File, path, abs string, limits Limits) (*Source, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, skip(path, "%s", readReason(err))
	}
	mode := info.Mode()
	switch {
	case mode.IsDir():
		return nil, skip(path, "is a directory")
	case !mode.IsRegular():
		return nil, skip(path, "not a regular file (%s); ibid reads regular files only", kindOf(mode))
	case info.Size() == 0:
		return nil, skip(path, "empty file")
	}
	size := info.Size()
	if most := max(limits.pdf(), limits.text()); size > most {
		return nil, tooLarge(path, size, limits)
	}
	head := make([]byte, min(size, sniffLen))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, skip(path, "%s", readReason(err))
	}
	head = head[:n]
	format, ok := Sniff(abs, head)
	if !ok {
		return nil, skip(path, "%s", unsupportedReason(abs, head))
	}
	if size > limits.of(format) {
		return nil, tooLarge(path, size, limits)
	}
	if format != store.FormatPDF {
		if reason := textHeadReason(head); reason != "" {
			return nil, skip(path, "%s", reason)
		}
	}
	return &Source{File: f, Path: abs, Format: format, Size: size, Head: head}, nil
}

// textHeadReason says why the first bytes of a text file show it is not
// UTF-8 text, or "".
func textHeadReason(head []byte) string {
	if len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF) {
		return "UTF-16 text; convert the file to UTF-8"
	}
	if off, bad := badTextAt(head, true); bad {
		return badTextReason(head, off)
	}
	return ""
}

// badTextReason says why data is not text at offset off.
func badTextReason(data []byte, off int) string {
	if data[off] == 0 {
		return fmt.Sprintf("binary file, not text (NUL byte at offset %d)", off)
	}
	return fmt.Sprintf("invalid UTF-8 at byte offset %d; convert the file to UTF-8", off)
}

func tooLarge(path string, size int64, limits Limits) *SkipError {
	return skip(path, "file too large (%s); ibid reads PDFs up to %s and text files up to %s: split the file, or raise the limit with --max-file-size",
		byteSize64(size), byteSize64(limits.pdf()), byteSize64(limits.text()))
}

// kindOf names a file type that is not a regular file.
func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// File is a file read whole for loading.
//
// Invariants: Hash == HashBytes(Data); len(Data) <= the limit for Format;
// for a text format, Data held no NUL byte or invalid UTF-8 as it was read.
type File struct {
	Path   string // absolute
	Format store.Format
	Hash   string
	Data   []byte
}

// ReadFile opens the file at path with Open and reads it whole into one
// buffer sized from the file (no copies as it grows), hashing it as it
// streams and, for a text format, refusing it at its first byte that is
// not UTF-8 text; ctx is checked between blocks of a megabyte, so a
// cancelled read stops at once. A file that grew past its limit since it
// was opened is refused. Refusals are *SkipErrors, as Open's.
func ReadFile(ctx context.Context, path string, limits Limits) (*File, error) {
	src, err := Open(ctx, path, limits)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	limit := limits.of(src.Format)
	data := make([]byte, len(src.Head), src.Size+1)
	copy(data, src.Head)
	h := sha256.New()
	h.Write(data)
	checked := 0 // data[:checked] is known to be text
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // grew since fstat
		}
		n, err := src.File.Read(data[len(data):min(cap(data), len(data)+readBlock)])
		h.Write(data[len(data) : len(data)+n])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, tooLarge(path, int64(len(data)), limits)
		}
		eof := err == io.EOF || (err == nil && n == 0)
		if src.Format != store.FormatPDF {
			if off, bad := badTextAt(data[checked:], !eof); bad {
				return nil, skip(path, "%s", badTextReason(data, checked+off))
			}
			checked = completeRunes(data)
		}
		if eof {
			break
		}
		if err != nil {
			return nil, skip(path, "%s", readReason(err))
		}
	}
	return &File{Path: src.Path, Format: src.Format, Hash: hex.EncodeToString(h.Sum(nil)), Data: data}, nil
}

// completeRunes is len(data) less an incomplete rune at its end.
func completeRunes(data []byte) int {
	n := len(data)
	for k := 1; k <= utf8.UTFMax-1 && k <= n; k++ {
		if utf8.RuneStart(data[n-k]) {
			if !utf8.FullRune(data[n-k:]) {
				return n - k
			}
			break
		}
	}
	return n
}

// byteSize64 is byteSize for sizes that may pass 2 GB.
func byteSize64(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	}
	return byteSize(int(n))
}
