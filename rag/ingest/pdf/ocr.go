package pdf

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/internal/regular"
)

// Pages without a text layer (a scan) are read with Tesseract when it is
// installed: each such page is rendered by pdfium at ocrDPI (less for a
// page whose longer side would pass maxRenderSide pixels, so one page's
// image, and Tesseract's memory, stay bounded) and read by
// `tesseract stdin stdout -l LANG tsv` from a grayscale image (Tesseract
// reads in gray; a third of colour's bytes), whose words come with their
// boxes; they become the page's characters (each word's box shared out among its
// letters, each line one baseline), and the page is laid out as any
// other. A page that has any text of its own is not read again.

const (
	ocrDPI         = 300
	ocrPageTimeout = 2 * time.Minute // one page; tesseract is killed past it
	maxOCRTSV      = 16 << 20        // the most of tesseract's output read (or cached) for a page
	// InstallTesseract is the command that installs Tesseract (English).
	InstallTesseract = "apt-get install tesseract-ocr tesseract-ocr-eng"
)

// OCR configures reading pages without a text layer; the zero value
// reads English, caches nothing and reports no progress.
type OCR struct {
	// Lang is Tesseract's language list ("eng", "deu+eng"); "" is "eng".
	Lang string
	// CacheDir keeps each page's words, by the page's hash (the PDF's
	// bytes, the page, the language), so a page is read once; "" keeps
	// none.
	CacheDir string
	// Progress, when set, is called with 0 of total when OCR begins and
	// after each page read (done of total), from one goroutine at a time.
	Progress func(done, total int)
	// DPI is the resolution pages are rendered at for Tesseract; 0 is
	// 300. Lower reads faster, in less memory, and misreads small type.
	DPI int
}

// resolution is the DPI pages are rendered at for Tesseract.
func (o OCR) resolution() int {
	if o.DPI > 0 {
		return o.DPI
	}
	return ocrDPI
}

// SetOCR sets how pages without a text layer are read; call it before
// the first Read.
func (e *Engine) SetOCR(o OCR) { e.ocr = o }

type ocrProgressKey struct{}

// WithOCRProgress returns a context under which a Read reports its OCR
// to fn (pages read of those that need it) instead of OCR.Progress: the
// progress of one file when several are read with one Engine. fn is called
// from one goroutine at a time, never after the Read returns.
func WithOCRProgress(ctx context.Context, fn func(done, total int)) context.Context {
	return context.WithValue(ctx, ocrProgressKey{}, fn)
}

// ocrProgress is the progress function for a Read under ctx.
func (e *Engine) ocrProgress(ctx context.Context) func(done, total int) {
	if fn, ok := ctx.Value(ocrProgressKey{}).(func(done, total int)); ok && fn != nil {
		return fn
	}
	return e.ocr.Progress
}

func (o OCR) lang() string {
	if o.Lang == "" {
		return "eng"
	}
	return o.Lang
}

// errNoTesseract is a PDF that needs OCR where Tesseract is not installed.
var errNoTesseract = errors.New("tesseract is not installed")

// needsOCR lists the pages (0-based) with no character of their own, or
// with only an OCR layer that is junk (see junkLayer), which it clears.
func needsOCR(out *extracted) []int {
	var pages []int
	for i, p := range out.Pages {
		if junkLayer(p) {
			p.chars = nil
		}
		text := false
		for _, c := range p.chars {
			if !c.generated && !c.unmapped && c.r > ' ' {
				text = true
				break
			}
		}
		if !text {
			pages = append(pages, i)
		}
	}
	return pages
}

// readScans reads the pages without a text layer with Tesseract, in
// parallel up to the machine's cores, each within ocrPageTimeout; it
// fills their characters and returns the pages it read. ctx's end stops
// every tesseract at once.
func (e *Engine) readScans(ctx context.Context, data []byte, out *extracted, pages []int) ([]int, error) {
	if len(pages) == 0 {
		return nil, nil
	}
	tess, err := exec.LookPath("tesseract")
	if err != nil {
		return nil, errNoTesseract
	}
	progress := e.ocrProgress(ctx)
	if progress != nil {
		progress(0, len(pages))
	}
	var docKey string // the cache's name for data
	if e.ocr.CacheDir != "" {
		sum := sha256.Sum256(data)
		docKey = hex.EncodeToString(sum[:16])
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		done  int
		first error
	)
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), len(pages)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				p := out.Pages[i]
				dpi := ocrPageDPI(p.width, p.height, e.ocr.resolution())
				tsv, err := e.scanPage(ctx, tess, data, docKey, i, dpi)
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("page %d: %w", i+1, err)
					cancel()
				}
				if err == nil && ctx.Err() == nil {
					p.chars = tsvChars(tsv, p.height, dpi)
					done++
					if progress != nil {
						progress(done, len(pages))
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, i := range pages {
		select {
		case work <- i:
		case <-ctx.Done():
		}
	}
	close(work)
	// On ctrl+c, return at once: the workers' tesseracts are killed and
	// the workers write nothing more (they check ctx under mu).
	idle := make(chan struct{})
	go func() { wg.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-parent.Done():
		return nil, parent.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	if err := ctx.Err(); err != nil && first == nil {
		return nil, err
	}
	if first != nil {
		return nil, first
	}
	return pages, nil
}

// ocrPageDPI is the resolution a page of w by h points is read at: dpi,
// or less where the page's longer side would pass maxRenderSide pixels
// (as render lowers it).
func ocrPageDPI(w, h float32, dpi int) int {
	if long := float64(max(w, h)) * float64(dpi) / 72; long > maxRenderSide {
		return max(1, int(float64(dpi)*maxRenderSide/long))
	}
	return dpi
}

// scanPage returns Tesseract's TSV for page i read at dpi (pixel boxes
// at that resolution), from the cache when it is there.
func (e *Engine) scanPage(ctx context.Context, tess string, data []byte, docKey string, i, dpi int) ([]byte, error) {
	var cached string
	if e.ocr.CacheDir != "" {
		cached = filepath.Join(e.ocr.CacheDir, fmt.Sprintf("%s-p%d-%s-%d.tsv", docKey, i+1, strings.ReplaceAll(e.ocr.lang(), "+", "_"), dpi))
		if b, err := regular.ReadFile(cached, maxOCRTSV); err == nil {
			return b, nil
		}
	}
	img, _, err := e.render(ctx, data, i, dpi, true) // Read checked data's streams
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pgm := grayPGM(img)
	pctx, cancel := context.WithTimeout(ctx, ocrPageTimeout)
	defer cancel()
	cmd := exec.CommandContext(pctx, tess, "stdin", "stdout", "-l", e.ocr.lang(), "--dpi", strconv.Itoa(dpi), "tsv")
	cmd.Stdin = bytes.NewReader(pgm)
	cmd.Env = tesseractEnv()
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: 4096}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	tsv, rerr := io.ReadAll(io.LimitReader(stdout, maxOCRTSV))
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case pctx.Err() != nil:
		return nil, fmt.Errorf("tesseract took longer than %s", ocrPageTimeout)
	case werr != nil:
		return nil, fmt.Errorf("tesseract: %v: %s", werr, strings.TrimSpace(stderr.String()))
	case rerr != nil:
		return nil, rerr
	}
	if cached != "" {
		if os.MkdirAll(filepath.Dir(cached), 0o755) == nil {
			atomicfile.WriteFile(cached, tsv, 0o644) // a cache that cannot be written costs time only
		}
	}
	return tsv, nil
}

// tesseractEnv is the environment Tesseract runs in: ours, with
// OpenMP held to one thread unless the user chose a limit. readScans runs
// a Tesseract per core already; OpenMP's threads on top of them wait by
// spinning, which took four times the CPU time (and three times the wall
// time on a busy machine) for the same words.
func tesseractEnv() []string {
	env := os.Environ()
	if _, ok := os.LookupEnv("OMP_THREAD_LIMIT"); !ok {
		env = append(env, "OMP_THREAD_LIMIT=1")
	}
	return env
}

// grayPGM is img as a binary PGM image (luma, ITU-R BT.601 weights): the
// page goes to Tesseract's standard input so, with no file and no time
// spent compressing, in a quarter of the RGBA's bytes.
func grayPGM(img *image.RGBA) []byte {
	b := img.Bounds()
	head := fmt.Sprintf("P5\n%d %d\n255\n", b.Dx(), b.Dy())
	pgm := make([]byte, len(head)+b.Dx()*b.Dy())
	n := copy(pgm, head)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):]
		out := pgm[n : n+b.Dx()]
		for x := range out {
			px := row[4*x : 4*x+3 : 4*x+3]
			out[x] = uint8((299*uint32(px[0]) + 587*uint32(px[1]) + 114*uint32(px[2]) + 500) / 1000)
		}
		n += b.Dx()
	}
	return pgm
}

// limited writes at most n bytes to w, dropping the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if len(p) <= l.n {
		l.n -= len(p)
		return l.w.Write(p)
	}
	if l.n > 0 {
		l.w.Write(p[:l.n])
		l.n = 0
	}
	return len(p), nil
}

// tsvChars turns Tesseract's TSV (one row a word, with its box in pixels
// at dpi, top-left origin) into a page's characters (PDF points, y up on
// a page of the given height): the words of a line share the line's
// height, each word's letters share out its width, a space is generated
// between words and a line break after each line.
func tsvChars(tsv []byte, height float32, dpi int) []char {
	type line struct {
		words  []ocrWord
		y0, y1 float32
	}
	k := float32(72) / float32(dpi)
	var lines []*line
	key := ""
	sc := bufio.NewScanner(bytes.NewReader(tsv))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue // a header, a block, a paragraph or a line row
		}
		text := strings.TrimSpace(f[11])
		conf, _ := strconv.ParseFloat(f[10], 64)
		if text == "" || conf < 0 {
			continue
		}
		n := make([]float32, 4)
		ok := true
		for j := range n {
			v, err := strconv.Atoi(f[6+j])
			ok = ok && err == nil && v >= 0
			n[j] = float32(v)
		}
		if !ok {
			continue
		}
		w := ocrWord{text: text, x0: n[0] * k, x1: (n[0] + n[2]) * k, y1: height - n[1]*k, y0: height - (n[1]+n[3])*k}
		if lk := f[1] + "/" + f[2] + "/" + f[3] + "/" + f[4]; lk != key || len(lines) == 0 {
			key = lk
			lines = append(lines, &line{y0: w.y0, y1: w.y1})
		}
		l := lines[len(lines)-1]
		l.words = append(l.words, w)
		l.y0, l.y1 = min(l.y0, w.y0), max(l.y1, w.y1)
	}
	// One size for the page's body: its lines' median band, so that the
	// lines of a paragraph agree (a line without descenders has a lower
	// band); a line much taller or shorter keeps its own.
	bands := make([]float32, 0, len(lines))
	for _, l := range lines {
		bands = append(bands, medianBand(l.words))
	}
	slices.Sort(bands)
	var body float32
	if len(bands) > 0 {
		body = bands[len(bands)/2]
	}
	var out []char
	for li, l := range lines {
		// The line's band is its words' median top and bottom: a word
		// much taller than the others (a stamp turned on its side that
		// Tesseract read as a word) is left out.
		tops, bottoms := make([]float32, 0, len(l.words)), make([]float32, 0, len(l.words))
		for _, w := range l.words {
			tops, bottoms = append(tops, w.y1), append(bottoms, w.y0)
		}
		slices.Sort(tops)
		slices.Sort(bottoms)
		y0, y1 := bottoms[len(bottoms)/2], tops[len(tops)/2]
		if y1 <= y0 {
			continue
		}
		h := y1 - y0
		if h < 1.25*body && h > 0.8*body {
			h = body
		}
		size := h / 0.65 // the words' median top and bottom: about two thirds of the type's size
		first := true
		for _, w := range l.words {
			if w.y1-w.y0 > 2*(y1-y0) {
				continue
			}
			if !first {
				out = append(out, char{r: ' ', generated: true})
			}
			first = false
			runes := []rune(w.text)
			step := (w.x1 - w.x0) / float32(len(runes))
			for j, r := range runes {
				x0 := w.x0 + step*float32(j)
				out = append(out, char{r: r, x0: x0, x1: x0 + step, y0: y0, y1: y1, size: size, obj: uint32(li + 1)})
			}
		}
		out = append(out, char{r: '\n', generated: true})
	}
	return out
}

// ocrWord is a word Tesseract read: its text and box in points, y up.
type ocrWord struct {
	text           string
	x0, y0, x1, y1 float32
}

// medianBand is the height between a line's words' median bottom and
// median top.
func medianBand(words []ocrWord) float32 {
	tops, bottoms := make([]float32, 0, len(words)), make([]float32, 0, len(words))
	for _, w := range words {
		tops, bottoms = append(tops, w.y1), append(bottoms, w.y0)
	}
	slices.Sort(tops)
	slices.Sort(bottoms)
	return tops[len(tops)/2] - bottoms[len(bottoms)/2]
}

// junkLayer reports whether a page's text is only an invisible layer over
// a scan (every text object drawn invisible, an image over most of the
// page) that reads as junk: fewer than half of its words are words (two
// letters or more with a vowel, or a number). A scanner's own OCR that
// reads well is kept.
func junkLayer(p *rawPage) bool {
	if p.textObjects == 0 || p.invisible < p.textObjects {
		return false
	}
	scan := false
	for _, f := range p.figures {
		scan = scan || (f.x1-f.x0)*(f.y1-f.y0) > 0.7*p.width*p.height
	}
	if !scan {
		return false
	}
	var b strings.Builder
	for _, c := range p.chars {
		if c.generated {
			b.WriteByte(' ')
		} else {
			b.WriteRune(c.r)
		}
	}
	words, good := 0, 0
	for _, w := range strings.Fields(b.String()) {
		words++
		t := strings.TrimRight(w, ".,;:!?)")
		t = strings.TrimLeft(t, "(")
		if plausibleWord(t) {
			good++
		}
	}
	return words > 0 && good*2 < words
}

// plausibleWord reports whether a token reads as a word: a number, or two
// letters or more, all letters (a hyphen or an apostrophe inside), with a
// vowel when it is Latin.
func plausibleWord(t string) bool {
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return true
	}
	letters, latin, vowel := 0, false, false
	for _, r := range t {
		switch {
		case unicode.IsLetter(r):
			letters++
			if r < 0x250 {
				latin = true
				vowel = vowel || strings.ContainsRune("aeiouyAEIOUYàáâäèéêëìíîïòóôöùúûü", r)
			}
		case r == '-' || r == '\'' || r == '’':
		default:
			return false
		}
	}
	return letters >= 2 && (!latin || vowel)
}
