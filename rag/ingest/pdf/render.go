package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"

	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/store"
)

// Rendering a page ("the page as it looks"): pdfium draws it into a
// bitmap at renderDPI, at most maxRenderSide pixels on its longer side,
// so that a page of any size costs a bounded image.
const (
	renderDPI     = 144
	maxRenderSide = 4000
	maxRenderFile = 512 << 20 // a PDF to render is read whole: bound it
)

// RenderFunc renders page (1-based) of the PDF at path as a PNG with
// marks drawn over it; (*Engine).RenderPage is one.
type RenderFunc func(ctx context.Context, path string, page int, marks []store.Box) ([]byte, error)

// RenderPage renders page (1-based, as store.Box.Page) of the PDF at path
// as a PNG, with each of marks that lies on that page drawn over the page
// (a translucent yellow fill and an orange outline over the rectangle:
// store.Box's points from the page's top-left corner), within the
// engine's deadline and memory limit. Marks on other pages are ignored.
// A file that is not a readable PDF is an *Error.
func (e *Engine) RenderPage(ctx context.Context, path string, page int, marks []store.Box) ([]byte, error) {
	data, err := readPDF(path)
	if err != nil {
		return nil, err
	}
	img, scale, err := e.render(ctx, data, page-1, renderDPI, false)
	if err != nil {
		return nil, err
	}
	for _, m := range marks {
		if m.Page == page {
			mark(img, m, scale)
		}
	}
	// Compressed for speed: on a page of an ALCE paper at renderDPI, 4%
	// larger than png's default level, encoded in 57 ms instead of 100
	// and decoded in half the time (a page is rendered each time the
	// viewer shows it).
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// readPDF reads a regular file of at most maxRenderFile bytes.
func readPDF(path string) ([]byte, error) {
	data, err := regular.ReadFile(path, maxRenderFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
		return nil, &Error{Reason: err.Error(), Err: err}
	}
	return data, err
}

// render draws page index (0-based) of data at dpi, or less where the
// page would pass maxRenderSide pixels, and returns the image (white
// behind the page) and its pixels per point; checked as onDocument's.
func (e *Engine) render(ctx context.Context, data []byte, index, dpi int, checked bool) (*image.RGBA, float64, error) {
	type out struct {
		img   *image.RGBA
		scale float64
	}
	r, err := guard(e, ctx, func(dctx context.Context, inst pdfium.Pdfium) (out, error) {
		var o out
		err := e.onDocument(ctx, dctx, inst, data, checked, func(_ *session, doc references.FPDF_DOCUMENT) error {
			n, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc})
			if err != nil {
				return err
			}
			if index < 0 || index >= n.PageCount {
				return &Error{Reason: fmt.Sprintf("no page %d (the PDF has %d)", index+1, n.PageCount)}
			}
			pg := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}}
			size, err := inst.GetPageSize(&requests.GetPageSize{Page: pg})
			if err != nil {
				return err
			}
			if long := max(size.Width, size.Height) * float64(dpi) / 72; long > maxRenderSide {
				dpi = max(1, int(float64(dpi)*maxRenderSide/long))
			}
			res, err := inst.RenderPageInDPI(&requests.RenderPageInDPI{Page: pg, DPI: dpi})
			if err != nil {
				return err
			}
			defer res.Cleanup()
			// The bitmap lives in pdfium's memory: copy it out, on white
			// (pdfium leaves a page with transparency transparent).
			src := res.Result.Image
			img := image.NewRGBA(src.Rect)
			onWhite(img.Pix, src.Pix)
			o = out{img, float64(dpi) / 72}
			return nil
		})
		return o, err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		if _, ok := err.(*Error); !ok {
			err = &Error{Reason: pdfReason(err), Err: err}
		}
		return nil, 0, err
	}
	return r.img, r.scale, nil
}

// onWhite copies the pixels of src (RGBA, straight alpha) to dst over
// white, dst's alpha opaque. Most pages come opaque from pdfium: they are
// copied whole, and only the pixels that are not opaque are blended (a
// page at 300 DPI is 8 million pixels; a blend of every byte cost a
// quarter of a second, and ten times that under the race detector).
func onWhite(dst, src []byte) {
	n := min(len(dst), len(src)) &^ 3
	copy(dst[:n], src[:n])
	for i := 3; i < n; i += 4 {
		a := uint32(dst[i])
		if a == 255 {
			continue
		}
		for k := i - 3; k < i; k++ {
			dst[k] = uint8((uint32(dst[k])*a + 255*(255-a)) / 255)
		}
		dst[i] = 255
	}
}

// mark draws box m (points, top-left origin) over img at scale pixels per
// point: a translucent yellow fill and a two-pixel orange outline.
func mark(img *image.RGBA, m store.Box, scale float64) {
	r := image.Rect(int(float64(m.X0)*scale), int(float64(m.Y0)*scale), int(float64(m.X1)*scale+0.999), int(float64(m.Y1)*scale+0.999)).Intersect(img.Rect)
	fill := color.RGBA{255, 220, 0, 255}
	edge := color.RGBA{230, 120, 0, 255}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if x-r.Min.X < 2 || r.Max.X-1-x < 2 || y-r.Min.Y < 2 || r.Max.Y-1-y < 2 {
				img.SetRGBA(x, y, edge)
				continue
			}
			// Multiply: the words stay dark under the highlight.
			c := img.RGBAAt(x, y)
			img.SetRGBA(x, y, color.RGBA{uint8(uint16(c.R) * uint16(fill.R) / 255), uint8(uint16(c.G) * uint16(fill.G) / 255), uint8(uint16(c.B) * uint16(fill.B) / 255), 255})
		}
	}
}
