package termimage

import (
	"bufio"
	"fmt"
	"image"
	"image/color/palette"
	"image/draw"
	"io"
)

// dither maps img to the 256 colours of Plan 9's palette (16 greys among
// them, enough for text) with Floyd–Steinberg error diffusion: sixel
// graphics draw from a palette of at most 256 registers.
func dither(img *image.RGBA) *image.Paletted {
	out := image.NewPaletted(img.Bounds(), palette.Plan9)
	draw.FloydSteinberg.Draw(out, img.Bounds(), img, img.Bounds().Min)
	return out
}

// writeSixel writes img as one DEC sixel image: the introducer with a
// 1:1 pixel aspect ratio and a background that stays as it is, the raster
// size, a colour register for each palette entry the image uses (RGB in
// percent), then bands of six rows, each written colour by colour (#n,
// then one character per column, 63 plus the column's six bits, runs of
// four or more as !count), $ returning to the band's start between
// colours and - moving to the next band.
func writeSixel(w io.Writer, img *image.Paletted) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	fmt.Fprintf(bw, "\x1bP0;1;0q\"1;1;%d;%d", width, height)
	used := make([]bool, len(img.Palette))
	for _, p := range img.Pix {
		used[p] = true
	}
	for i, c := range img.Palette {
		if used[i] {
			r, g, bl, _ := c.RGBA()
			fmt.Fprintf(bw, "#%d;2;%d;%d;%d", i, pct(r), pct(g), pct(bl))
		}
	}
	bits := make([]byte, width)
	for top := 0; top < height; top += 6 {
		inBand := make([]bool, len(img.Palette))
		for y := top; y < min(top+6, height); y++ {
			for _, p := range img.Pix[y*img.Stride : y*img.Stride+width] {
				inBand[p] = true
			}
		}
		first := true
		for ci := range img.Palette {
			if !inBand[ci] {
				continue
			}
			clear(bits)
			for y := top; y < min(top+6, height); y++ {
				row := img.Pix[y*img.Stride : y*img.Stride+width]
				for x, p := range row {
					if int(p) == ci {
						bits[x] |= 1 << (y - top)
					}
				}
			}
			if !first {
				bw.WriteByte('$')
			}
			first = false
			fmt.Fprintf(bw, "#%d", ci)
			writeRuns(bw, bits)
		}
		bw.WriteByte('-')
	}
	bw.WriteString("\x1b\\")
	return bw.Flush()
}

// writeRuns writes one colour's row of sixels, runs of four or more the
// same as !count, and drops the empty sixels at its end.
func writeRuns(w *bufio.Writer, bits []byte) {
	end := len(bits)
	for end > 0 && bits[end-1] == 0 {
		end--
	}
	for i := 0; i < end; {
		j := i
		for j < end && bits[j] == bits[i] {
			j++
		}
		ch := 63 + bits[i]
		if n := j - i; n >= 4 {
			fmt.Fprintf(w, "!%d%c", n, ch)
		} else {
			for range n {
				w.WriteByte(ch)
			}
		}
		i = j
	}
}

// pct is a 16-bit colour channel in percent, as sixel registers take it.
func pct(v uint32) int { return int((v*100 + 0x7fff) / 0xffff) }
