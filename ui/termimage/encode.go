package termimage

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strconv"
)

// Area is where an image goes on the screen: a grid of Cols×Rows cells,
// each CellWidth×CellHeight pixels.
type Area struct {
	Cols, Rows            int
	CellWidth, CellHeight int
}

// fit scales an image of w×h pixels to the largest size that fits in a,
// its aspect ratio kept: pw×ph pixels, taking cols×rows cells (each at
// least 1, at most a's).
func (a Area) fit(w, h int) (pw, ph, cols, rows int) {
	aw, ah := a.Cols*a.CellWidth, a.Rows*a.CellHeight
	s := math.Min(float64(aw)/float64(w), float64(ah)/float64(h))
	pw, ph = max(int(float64(w)*s), 1), max(int(float64(h)*s), 1)
	cols = min(max((pw+a.CellWidth-1)/a.CellWidth, 1), a.Cols)
	rows = min(max((ph+a.CellHeight-1)/a.CellHeight, 1), a.Rows)
	return pw, ph, cols, rows
}

// KittyImageID is the image id Encode gives a picture sent with the Kitty
// protocol; DeleteKitty removes it.
const KittyImageID = 4231

// kittyChunk is the most base64 a Kitty graphics command carries; a longer
// payload goes in several commands (m=1 on all but the last).
const kittyChunk = 4096

// Encode writes the PNG data as p's escape sequences at the cursor, scaled
// to fit in a, its aspect ratio kept, and returns how many rows it
// takes. The picture's top-left corner is the cursor's cell; where the
// cursor is left afterwards depends on the terminal, so a caller places
// it again before writing more. None is an error: there is no way to
// show an image in such a terminal.
//   - Kitty: the PNG as it is (f=100), in chunks, displayed at once
//     (a=T) over cols×rows cells, the terminal's answers suppressed (q=2)
//     so that none reaches the program's input;
//   - ITerm2: the PNG as it is, inline, over cols×rows cells;
//   - Sixel: the picture decoded, scaled to its pixels with a box filter
//     and dithered to a 256-colour palette (sixel.go).
func Encode(w io.Writer, p Protocol, data []byte, a Area) (rows int, err error) {
	if a.Cols < 1 || a.Rows < 1 || a.CellWidth < 1 || a.CellHeight < 1 {
		return 0, fmt.Errorf("no room for an image: %d×%d cells of %d×%d pixels", a.Cols, a.Rows, a.CellWidth, a.CellHeight)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, fmt.Errorf("not a PNG: %w", err)
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return 0, errors.New("an empty PNG")
	}
	pw, ph, cols, rows := a.fit(cfg.Width, cfg.Height)
	switch p {
	case Kitty:
		return rows, writeKitty(w, data, cols, rows)
	case ITerm2:
		return rows, writeITerm2(w, data, cols, rows)
	case Sixel:
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return 0, fmt.Errorf("not a PNG: %w", err)
		}
		return rows, writeSixel(w, dither(scale(img, pw, ph)))
	}
	return 0, errors.New("this terminal displays no images")
}

// writeKitty sends data (a PNG) with the Kitty graphics protocol.
func writeKitty(w io.Writer, data []byte, cols, rows int) error {
	enc := base64.StdEncoding.EncodeToString(data)
	var b bytes.Buffer
	for first := true; first || enc != ""; first = false {
		n := min(len(enc), kittyChunk)
		more := 0
		if n < len(enc) {
			more = 1
		}
		b.WriteString("\x1b_G")
		if first {
			fmt.Fprintf(&b, "a=T,f=100,q=2,i=%d,c=%d,r=%d,", KittyImageID, cols, rows)
		}
		fmt.Fprintf(&b, "m=%d;%s\x1b\\", more, enc[:n])
		enc = enc[n:]
	}
	_, err := w.Write(b.Bytes())
	return err
}

// DeleteKitty is the Kitty command that deletes the image Encode sent,
// with its data.
const DeleteKitty = "\x1b_Ga=d,d=I,q=2,i=4231\x1b\\"

// writeITerm2 sends data (a PNG) as an iTerm2 inline image.
func writeITerm2(w io.Writer, data []byte, cols, rows int) error {
	var b bytes.Buffer
	b.WriteString("\x1b]1337;File=inline=1;size=")
	b.WriteString(strconv.Itoa(len(data)))
	fmt.Fprintf(&b, ";width=%d;height=%d;preserveAspectRatio=1:", cols, rows)
	b.WriteString(base64.StdEncoding.EncodeToString(data))
	b.WriteByte(0x07)
	_, err := w.Write(b.Bytes())
	return err
}

// scale resamples img to w×h pixels, each the mean of the source pixels
// it covers (a box filter: shrinking a page keeps thin strokes as grey
// rather than dropping them); enlarging repeats pixels. Transparent parts
// are drawn over white, the page's colour.
func scale(img image.Image, w, h int) *image.RGBA {
	b := img.Bounds()
	src := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(src, src.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(src, src.Bounds(), img, b.Min, draw.Over)
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	sw, sh := b.Dx(), b.Dy()
	for y := range h {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := range w {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var sum [3]int
			for sy := y0; sy < y1; sy++ {
				row := src.Pix[sy*src.Stride+x0*4 : sy*src.Stride+x1*4]
				for i := 0; i < len(row); i += 4 {
					sum[0] += int(row[i])
					sum[1] += int(row[i+1])
					sum[2] += int(row[i+2])
				}
			}
			n := (y1 - y0) * (x1 - x0)
			o := out.PixOffset(x, y)
			out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = uint8(sum[0]/n), uint8(sum[1]/n), uint8(sum[2]/n), 0xff
		}
	}
	return out
}
