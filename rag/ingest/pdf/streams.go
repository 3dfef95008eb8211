package pdf

import (
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
)

// maxInflate is the most one compressed stream of a PDF other than an
// image may inflate to (an Engine's default). A paper's content streams,
// fonts and object streams inflate to a few MB; a decompression bomb's to
// gigabytes, which pdfium would inflate into its memory before any
// deadline or limit stopped it (its memory grows by copying, so the
// process peaked at three times the limit).
const maxInflate = 256 << 20

// errInflate is a stream that inflates past its limit.
var errInflate = errors.New("inflates past the limit")

// checkStreams inflates, in Go and in constant memory, every FlateDecode
// stream of data that is not an image, and fails with a *hostileError at
// the first that inflates past limit bytes. It reads the file's bytes as
// they are (no cross-reference table): a stream it cannot find or inflate
// is left to pdfium. It stops when ctx is done.
func checkStreams(ctx context.Context, data []byte, limit int64) error {
	for at := 0; ; {
		k := bytes.Index(data[at:], []byte("stream"))
		if k < 0 {
			return nil
		}
		start := at + k + len("stream")
		at = start
		if k >= 3 && bytes.HasSuffix(data[:start-len("stream")], []byte("end")) {
			continue // "endstream"
		}
		switch {
		case bytes.HasPrefix(data[start:], []byte("\r\n")):
			start += 2
		case bytes.HasPrefix(data[start:], []byte("\n")), bytes.HasPrefix(data[start:], []byte("\r")):
			start++
		default:
			continue
		}
		dict := streamDict(data[:at-len("stream")])
		if !bytes.Contains(dict, []byte("/FlateDecode")) && !bytes.Contains(dict, []byte("/Fl ")) && !bytes.Contains(dict, []byte("/Fl]")) && !bytes.Contains(dict, []byte("/Fl/")) {
			continue
		}
		if bytes.Contains(dict, []byte("/Image")) {
			continue // pdfium bounds an image by its declared size
		}
		n, err := inflated(ctx, data[start:], limit)
		if err := ctx.Err(); err != nil {
			return err
		}
		if errors.Is(err, errInflate) {
			return &hostileError{fmt.Sprintf("a compressed stream inflates past %d MiB", limit>>20)}
		}
		at = start + int(n)
	}
}

// streamDict is the dictionary before a stream keyword: the bytes back to
// the nearest "obj", at most 4 KiB.
func streamDict(before []byte) []byte {
	from := max(0, len(before)-4096)
	if k := bytes.LastIndex(before[from:], []byte("obj")); k >= 0 {
		from += k
	}
	return before[from:]
}

// inflated inflates a stream's bytes (zlib, or raw deflate) into nothing
// and returns how many compressed bytes it read; err is errInflate past
// limit bytes. A stream that is not deflate at all reads as empty. A zlib
// stream's deflate data is read past its 2-byte header without its
// Adler-32 checksum: the size is what counts, and summing up to 256 MiB
// would cost as much as inflating them.
func inflated(ctx context.Context, data []byte, limit int64) (int64, error) {
	skip := 0
	if zlibHeader(data) {
		skip = 2
	}
	in := &countingReader{r: bytes.NewReader(data[skip:]), n: int64(skip)}
	r := flate.NewReader(in)
	defer r.Close()
	w := &budgetWriter{ctx: ctx, left: limit}
	_, err := io.Copy(w, r)
	if errors.Is(err, errInflate) {
		return in.n, err
	}
	return in.n, nil // the end of the stream, or bytes that are not deflate
}

// zlibHeader reports whether data starts with a zlib header (RFC 1950)
// that compress/zlib accepts: deflate, a window of at most 32 KiB, the
// check bits right and no preset dictionary.
func zlibHeader(data []byte) bool {
	if len(data) < 2 {
		return false
	}
	h := uint(data[0])<<8 | uint(data[1])
	return data[0]&0x0f == 8 && data[0]>>4 <= 7 && h%31 == 0 && data[1]&0x20 == 0
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// budgetWriter discards what it is given, up to left bytes, and stops at
// ctx's end.
type budgetWriter struct {
	ctx  context.Context
	left int64
}

func (w *budgetWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	w.left -= int64(len(p))
	if w.left < 0 {
		return 0, errInflate
	}
	return len(p), nil
}
