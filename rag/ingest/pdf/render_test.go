package pdf

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"github.com/ibid-dev/ibid/store"
)

// dark reports whether a pixel is ink (a glyph's), not paper.
func dark(img *image.RGBA, x, y int) bool {
	p := img.Pix[img.PixOffset(x, y):]
	return (uint32(p[0])+uint32(p[1])+uint32(p[2]))*0x101/3 < 0x6000
}

// asRGBA is img as an *image.RGBA, so a test reads its pixels as bytes
// (a page's millions of At calls, each a color in an interface, took
// seconds under the race detector).
func asRGBA(img image.Image) *image.RGBA {
	if m, ok := img.(*image.RGBA); ok {
		return m
	}
	m := image.NewRGBA(img.Bounds())
	draw.Draw(m, m.Bounds(), img, img.Bounds().Min, draw.Src)
	return m
}

// The page renders as it looks, and a mark lies over the words of the
// sentence it marks: the sentence's ink is all inside the rectangle, the
// rectangle holds ink, and nothing outside it changes.
func TestRenderPageMarksTheSentence(t *testing.T) {
	// A page of 6 by 3.5 inches: a quarter of a Letter page's pixels to
	// render, code and compare.
	const w, h = 432, 252
	var page []pdftest.Item
	page = append(page, pdftest.Column(72, 190, 300, "An unmarked paragraph opens the page here.")...)
	page = append(page, pdftest.Column(72, 130, 300, "The marked sentence is this one, alone.")...)
	page = append(page, pdftest.Column(72, 70, 300, "Another unmarked paragraph closes it.")...)
	data := pdftest.Sized(w, h, [][]pdftest.Item{page})
	path := filepath.Join(t.TempDir(), "marks.pdf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	d := readDoc(t, data)
	var marks []store.Box
	for _, b := range d.Blocks {
		if strings.Contains(b.Text, "The marked sentence") {
			for _, l := range b.Lines {
				marks = append(marks, l.Box)
			}
		}
	}
	if len(marks) != 1 {
		t.Fatalf("marks %v", marks)
	}
	e := testEngine(t)
	decode := func(marks []store.Box) *image.RGBA {
		t.Helper()
		b, err := e.RenderPage(context.Background(), path, 1, marks)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return asRGBA(img)
	}
	plain, marked := decode(nil), decode(marks)
	scale := float64(renderDPI) / 72
	if got := plain.Bounds(); got.Dx() != int(w*scale+0.5) || got.Dy() != int(h*scale+0.5) {
		t.Fatalf("rendered %v, want the %dx%d-point page at %d DPI", got, w, h, renderDPI)
	}
	m := marks[0]
	rect := image.Rect(int(float64(m.X0)*scale), int(float64(m.Y0)*scale), int(float64(m.X1)*scale+0.999), int(float64(m.Y1)*scale+0.999))
	// Rows outside the mark's band are compared whole (a per-pixel loop
	// over the page's two million pixels took seconds under the race
	// detector); its band, pixel by pixel.
	inside, outsideInBand, changedOutside := 0, 0, 0
	b := plain.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := plain.PixOffset(b.Min.X, y)
		end := row + 4*b.Dx()
		if y < rect.Min.Y || y >= rect.Max.Y {
			if !bytes.Equal(plain.Pix[row:end], marked.Pix[row:end]) {
				for i := row; i < end; i += 4 {
					if !bytes.Equal(plain.Pix[i:i+4], marked.Pix[i:i+4]) {
						changedOutside++
					}
				}
			}
			continue
		}
		for x := b.Min.X; x < b.Max.X; x++ {
			in := image.Pt(x, y).In(rect)
			if dark(plain, x, y) {
				if in {
					inside++
				} else {
					outsideInBand++ // the sentence's row, outside the mark
				}
			}
			if i := plain.PixOffset(x, y); !in && !bytes.Equal(plain.Pix[i:i+4], marked.Pix[i:i+4]) {
				changedOutside++
			}
		}
	}
	if inside < 200 || outsideInBand > 0 || changedOutside > 0 {
		t.Errorf("ink inside the mark %d px, beside it on its row %d px; pixels changed outside it %d", inside, outsideInBand, changedOutside)
	}
	// Inside, the highlight tints the paper but keeps the words dark.
	cy := (rect.Min.Y + rect.Max.Y) / 2
	if r, g, bl, _ := marked.At(rect.Min.X+4, cy).RGBA(); !(r > 0xC000 && g > 0xC000 && bl < 0x4000) {
		t.Errorf("the mark's fill is %x %x %x, want yellow", r, g, bl)
	}
	if _, err := e.RenderPage(context.Background(), path, 2, nil); err == nil {
		t.Error("page 2 of a one-page PDF rendered")
	}
}

// onWhite copies opaque pixels as they are and blends the others over
// white, as the byte-by-byte blend it replaced did.
func TestOnWhite(t *testing.T) {
	src := []byte{
		10, 20, 30, 255, // opaque: as it is
		10, 20, 30, 0, // transparent: white
		0, 100, 200, 128, // half: blended
		255, 0, 0, 1,
		7, 7, 7, // a partial pixel: left alone
	}
	dst := make([]byte, len(src))
	onWhite(dst, src)
	want := make([]byte, len(src))
	for i := 0; i+3 < len(src); i += 4 {
		a := uint32(src[i+3])
		for k := range 3 {
			want[i+k] = uint8((uint32(src[i+k])*a + 255*(255-a)) / 255)
		}
		want[i+3] = 255
	}
	if !bytes.Equal(dst, want) {
		t.Errorf("onWhite = %v, want %v", dst, want)
	}
	if !bytes.Equal(dst[:8], []byte{10, 20, 30, 255, 255, 255, 255, 255}) {
		t.Errorf("opaque and transparent pixels: %v", dst[:8])
	}
}
