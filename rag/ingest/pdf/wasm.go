package pdf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/klippa-app/go-pdfium"
	"github.com/tetratelabs/wazero/api"
)

// wasmDoc reads one PDF's characters by calling pdfium's exported C
// functions on the instance's WebAssembly module directly. go-pdfium's
// per-call wrappers (a handle registry, a uuid and several mallocs per
// call) cost about 8 µs per character; the direct calls cost well under
// one, which keeps layout analysis within a small factor of pdftotext.
//
// Invariant: every call runs with ctx, so a deadline or cancellation stops
// pdfium mid-page (the runtime is built WithCloseOnContextDone); after any
// error the module may be closed and the instance must be killed, not
// reused. scratch is a 64-byte buffer in the module's memory owned by the
// wasmDoc until free.
type wasmDoc struct {
	ctx     context.Context
	mod     api.Module
	fns     map[string]api.Function
	stack   []uint64
	scratch uint32
	data    uint32 // the document's bytes, copied into the module
	doc     uint64
}

// errNoModule means the pdfium instance is not the WebAssembly one.
var errNoModule = errors.New("pdfium instance exposes no WebAssembly module")

// openWasmDoc copies data into inst's module and opens it there.
func openWasmDoc(ctx context.Context, inst pdfium.Pdfium, data []byte) (*wasmDoc, error) {
	mod, err := moduleOf(inst)
	if err != nil {
		return nil, err
	}
	w := &wasmDoc{ctx: ctx, mod: mod, fns: map[string]api.Function{}, stack: make([]uint64, 8)}
	if w.scratch, err = w.malloc(64); err != nil {
		return nil, err
	}
	if w.data, err = w.malloc(uint32(len(data))); err != nil {
		w.free()
		return nil, err
	}
	if !mod.Memory().Write(w.data, data) {
		w.free()
		return nil, fmt.Errorf("couldn't copy the PDF into pdfium's memory")
	}
	d, err := w.call("FPDF_LoadMemDocument", uint64(w.data), uint64(len(data)), 0)
	if err != nil {
		w.free()
		return nil, err
	}
	if uint32(d) == 0 {
		w.free()
		return nil, fmt.Errorf("pdfium refused the document")
	}
	w.doc = d
	return w, nil
}

// moduleOf returns the WebAssembly module behind a pdfium instance (an
// exported field of go-pdfium's implementation type, which lives in an
// internal package).
func moduleOf(inst pdfium.Pdfium) (api.Module, error) {
	impl := reflect.ValueOf(inst.GetImplementation())
	if impl.Kind() != reflect.Pointer || impl.IsNil() {
		return nil, errNoModule
	}
	f := impl.Elem().FieldByName("Module")
	if !f.IsValid() {
		return nil, errNoModule
	}
	mod, ok := f.Interface().(api.Module)
	if !ok || mod == nil {
		return nil, errNoModule
	}
	return mod, nil
}

func (w *wasmDoc) malloc(n uint32) (uint32, error) {
	p, err := w.call("malloc", uint64(n))
	if err != nil {
		return 0, err
	}
	if uint32(p) == 0 {
		return 0, fmt.Errorf("pdfium is out of memory")
	}
	return uint32(p), nil
}

// free closes the document and releases the module memory it holds.
// Errors are ignored: after a failure the module is discarded anyway.
func (w *wasmDoc) free() {
	if w.doc != 0 {
		w.call("FPDF_CloseDocument", w.doc)
		w.doc = 0
	}
	for _, p := range []*uint32{&w.data, &w.scratch} {
		if *p != 0 {
			w.call("free", uint64(*p))
			*p = 0
		}
	}
}

// call invokes an exported function and returns its first result (0 if
// it has none).
func (w *wasmDoc) call(name string, args ...uint64) (uint64, error) {
	fn := w.fns[name]
	if fn == nil {
		fn = w.mod.ExportedFunction(name)
		if fn == nil {
			return 0, fmt.Errorf("pdfium lacks %s", name)
		}
		w.fns[name] = fn
	}
	copy(w.stack, args)
	if err := fn.CallWithStack(w.ctx, w.stack); err != nil {
		return 0, fmt.Errorf("%w: %s: %w", errPDFEngine, name, err)
	}
	return w.stack[0], nil
}

func (w *wasmDoc) f32(off uint32) float32 {
	v, _ := w.mod.Memory().ReadFloat32Le(w.scratch + off)
	return v
}

func (w *wasmDoc) pageCount() (int, error) {
	n, err := w.call("FPDF_GetPageCount", w.doc)
	return int(int32(n)), err
}

// char is one character of a page as pdfium reports it, in content
// order. Boxes are in PDF points with y growing upwards ("loose" boxes:
// the font's ascent to descent, so all characters of a line share them).
type char struct {
	r              rune
	x0, y0, x1, y1 float32
	size           float32
	bold           bool
	generated      bool   // a space or line break pdfium inserted
	unmapped       bool   // a glyph without a Unicode value
	turn           int8   // quarter turns counter-clockwise of its baseline, 0..3
	skew           bool   // turned by an angle that is no quarter turn
	obj            uint32 // the text object the character belongs to
	heading        int8   // depth of the tagged heading it is in, 0 for none
}

// region is a rectangle on a page (PDF points, y up) holding an image or
// a form XObject: a figure, usually.
type region struct{ x0, y0, x1, y1 float32 }

// rawPage is what readPage gets from one page.
type rawPage struct {
	width, height float32
	chars         []char
	figures       []region
	textObjects   int // text objects drawn directly on the page
	invisible     int // of them, drawn invisible (a scan's OCR layer)
	// headingObjs maps text objects (by address) inside a tagged heading
	// to its depth; nil for an untagged page.
	headingObjs map[uint32]int
}

// errTooManyChars is a page whose characters would pass the PDF's bound.
var errTooManyChars = errors.New("too many characters")

// readPage reads page i's characters and figure regions; more than
// most characters is errTooManyChars.
func (w *wasmDoc) readPage(i, most int) (*rawPage, error) {
	page, err := w.call("FPDF_LoadPage", w.doc, uint64(i))
	if err != nil {
		return nil, err
	}
	if uint32(page) == 0 {
		return nil, fmt.Errorf("pdfium cannot load page %d", i+1)
	}
	defer w.call("FPDF_ClosePage", page)
	out := &rawPage{}
	wd, err := w.call("FPDF_GetPageWidthF", page)
	if err != nil {
		return nil, err
	}
	ht, err := w.call("FPDF_GetPageHeightF", page)
	if err != nil {
		return nil, err
	}
	out.width, out.height = math.Float32frombits(uint32(wd)), math.Float32frombits(uint32(ht))
	if err := w.readFigures(page, out); err != nil {
		return nil, err
	}
	tp, err := w.call("FPDFText_LoadPage", page)
	if err != nil {
		return nil, err
	}
	if uint32(tp) == 0 {
		return out, nil
	}
	defer w.call("FPDFText_ClosePage", tp)
	n, err := w.call("FPDFText_CountChars", tp)
	if err != nil {
		return nil, err
	}
	count := int(int32(n))
	if count > most {
		return nil, errTooManyChars
	}
	out.chars = make([]char, 0, max(count, 0))
	var lastObj uint32
	var lastBold, lastUnmapped, lastSkew bool
	var lastTurn int8
	var lastSize float32
	for k := 0; k < count; k++ {
		if k&1023 == 0 && w.ctx.Err() != nil {
			return nil, w.ctx.Err()
		}
		u, err := w.call("FPDFText_GetUnicode", tp, uint64(k))
		if err != nil {
			return nil, err
		}
		c := char{r: rune(uint32(u))}
		if c.r == ' ' || c.r == '\r' || c.r == '\n' {
			// A space or line break, drawn or generated by pdfium: a
			// separator whatever its box.
			c.generated = true
			out.chars = append(out.chars, c)
			continue
		}
		if _, err := w.call("FPDFText_GetLooseCharBox", tp, uint64(k), uint64(w.scratch)); err != nil {
			return nil, err
		}
		// FS_RECTF: left, top, right, bottom.
		c.x0, c.y1, c.x1, c.y0 = w.f32(0), w.f32(4), w.f32(8), w.f32(12)
		o, err := w.call("FPDFText_GetTextObject", tp, uint64(k))
		if err != nil {
			return nil, err
		}
		c.obj = uint32(o)
		if c.obj != lastObj || k == 0 {
			// Size, weight and Unicode mapping are properties of the text
			// object (its font): read them once per object.
			lastObj = c.obj
			fs, err := w.call("FPDFText_GetFontSize", tp, uint64(k))
			if err != nil {
				return nil, err
			}
			lastSize = float32(math.Float64frombits(fs))
			wt, err := w.call("FPDFText_GetFontWeight", tp, uint64(k))
			if err != nil {
				return nil, err
			}
			lastBold = int32(wt) >= 600
			if !lastBold {
				if lastBold, err = w.boldName(tp, k); err != nil {
					return nil, err
				}
			}
			m, err := w.call("FPDFText_HasUnicodeMapError", tp, uint64(k))
			if err != nil {
				return nil, err
			}
			lastUnmapped = int32(m) == 1
			a, err := w.call("FPDFText_GetCharAngle", tp, uint64(k))
			if err != nil {
				return nil, err
			}
			// Text
			// turned by a quarter (an arXiv stamp in the margin, a
			// landscape table, a rotated caption) is read in its own
			// frame (see turned); text at another angle is not prose.
			lastTurn, lastSkew = quarterTurn(math.Float32frombits(uint32(a)))
		}
		c.size, c.bold = lastSize, lastBold
		c.heading = int8(out.headingObjs[c.obj])
		c.unmapped = c.r == 0 || lastUnmapped && (c.r == 0xFFFD || c.r < 0x20)
		// Text scaled down by its matrix (a chart's labels drawn at 12
		// points and shrunk) keeps its nominal size in pdfium: take the
		// size from the box, whose height is about 0.9 of the size.
		h := c.y1 - c.y0
		if lastTurn%2 == 1 {
			h = c.x1 - c.x0 // the glyph's height lies across the page
		}
		if h > 0 && h < 0.7*c.size && !lastSkew {
			c.size = h / 0.9
		}
		c.turn, c.skew = lastTurn, lastSkew
		out.chars = append(out.chars, c)
	}
	return out, nil
}

// boldName reads the font name of character k: fonts without a weight in
// their descriptor still say "Bold" (or TeX's "Medi", "CMBX") in the name.
func (w *wasmDoc) boldName(tp uint64, k int) (bool, error) {
	n, err := w.call("FPDFText_GetFontInfo", tp, uint64(k), uint64(w.scratch+8), 48, uint64(w.scratch))
	if err != nil {
		return false, err
	}
	if n == 0 || n > 48 {
		return false, nil
	}
	b, _ := w.mod.Memory().Read(w.scratch+8, uint32(n))
	return isBoldFontName(string(b)), nil
}

// readFigures records the boxes of image and form objects on the page.
func (w *wasmDoc) readFigures(page uint64, out *rawPage) error {
	tags, err := w.readTags(page)
	if err != nil {
		return err
	}
	if tags != nil {
		out.headingObjs = map[uint32]int{}
	}
	n, err := w.call("FPDFPage_CountObjects", page)
	if err != nil {
		return err
	}
	for k := 0; k < int(int32(n)); k++ {
		o, err := w.call("FPDFPage_GetObject", page, uint64(k))
		if err != nil {
			return err
		}
		t, err := w.call("FPDFPageObj_GetType", o)
		if err != nil {
			return err
		}
		if t == 1 { // FPDF_PAGEOBJ_TEXT
			out.textObjects++
			mode, err := w.call("FPDFTextObj_GetTextRenderMode", o)
			if err != nil {
				return err
			}
			if int32(mode) == 3 { // FPDF_TEXTRENDERMODE_INVISIBLE: an OCR layer
				out.invisible++
			}
			if tags != nil {
				id, err := w.call("FPDFPageObj_GetMarkedContentID", o)
				if err != nil {
					return err
				}
				if l := tags[int32(id)]; l > 0 && int32(id) >= 0 {
					out.headingObjs[uint32(o)] = l
				}
			}
		}
		if t != 3 && t != 5 { // FPDF_PAGEOBJ_IMAGE, FPDF_PAGEOBJ_FORM
			continue
		}
		s := uint64(w.scratch)
		ok, err := w.call("FPDFPageObj_GetBounds", o, s, s+4, s+8, s+12)
		if err != nil {
			return err
		}
		if int32(ok) == 1 {
			out.figures = append(out.figures, region{w.f32(0), w.f32(4), w.f32(8), w.f32(12)})
		}
	}
	return nil
}

// quarterTurn reads a character's angle as pdfium gives it (radians
// clockwise, as on a screen, 0 to 2π; -1 when unknown) as quarter turns
// counter-clockwise on the page: text drawn with "0 1 -1 0 x y Tm" reads
// upwards, one quarter; skew is true for an angle more than 0.1 radians
// from any quarter turn.
func quarterTurn(angle float32) (turn int8, skew bool) {
	if angle < 0 {
		return 0, false
	}
	q := float64(angle) / (math.Pi / 2)
	r := math.Round(q)
	if math.Abs(q-r)*math.Pi/2 > 0.1 {
		return 0, true
	}
	return int8((4 - int(r)%4) % 4), false
}

// isBoldFontName reports whether a font's name marks it bold.
func isBoldFontName(name string) bool {
	for _, s := range []string{"Bold", "bold", "BOLD", "Medi", "Black", "Heavy", "Semibold", "SemiBold", "Demi", "CMBX", "CMB10", "-BX", "Hei"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}
