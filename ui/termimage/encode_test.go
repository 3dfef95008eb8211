package termimage

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden and testdata/page.png")

// testPage is a small page: white, three rows of dark "words", the middle
// one under a yellow mark with an orange outline (as the PDF engine marks
// a sentence), one transparent corner.
func testPage() image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, 60, 80))
	for y := range 80 {
		for x := range 60 {
			c := color.NRGBA{255, 255, 255, 255}
			if y >= 34 && y < 46 && x >= 6 && x < 54 {
				c = color.NRGBA{255, 236, 140, 255}
				if y == 34 || y == 45 || x == 6 || x == 53 {
					c = color.NRGBA{230, 120, 20, 255}
				}
			}
			for _, row := range []int{20, 38, 60} {
				if y >= row && y < row+4 && x >= 10 && x < 50 && (x/6)%2 == 0 {
					c = color.NRGBA{20, 20, 20, 255}
				}
			}
			if x < 4 && y < 4 {
				c = color.NRGBA{}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// pagePNG is testdata/page.png, testPage encoded once (written with
// -update): the escape sequences are recorded from these bytes.
func pagePNG(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join("testdata", "page.png")
	if *update {
		var b bytes.Buffer
		if err := png.Encode(&b, testPage()); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// golden compares got with testdata/name.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./ui/termimage -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s:\n got %q\nwant %q", name, path, got, want)
	}
}

var testArea = Area{Cols: 20, Rows: 8, CellWidth: 6, CellHeight: 12}

func encode(t *testing.T, p Protocol, data []byte, a Area) (string, int) {
	t.Helper()
	var b bytes.Buffer
	rows, err := Encode(&b, p, data, a)
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), rows
}

// TestEncodeKitty: the PNG goes as it is, base64 in commands of at most
// 4096 bytes, the first with the action, format, quiet flag, id and the
// cells it covers, m=1 on all but the last.
func TestEncodeKitty(t *testing.T) {
	data := pagePNG(t)
	got, rows := encode(t, Kitty, data, testArea)
	golden(t, "kitty", got)
	if rows != 8 {
		t.Errorf("%d rows, want 8 (the page is taller than wide)", rows)
	}
	big := bytes.Repeat(data, 40) // not a PNG past its first copy, but sent as given
	got, _ = encode(t, Kitty, big, testArea)
	cmds := strings.Split(strings.TrimSuffix(got, "\x1b\\"), "\x1b\\")
	var payload strings.Builder
	for i, c := range cmds {
		head, b64, ok := strings.Cut(strings.TrimPrefix(c, "\x1b_G"), ";")
		last := i == len(cmds)-1
		switch {
		case !ok || len(b64) > kittyChunk || len(b64)%4 != 0:
			t.Fatalf("command %d: %q…", i, c[:min(len(c), 60)])
		case i == 0 && head != fmt.Sprintf("a=T,f=100,q=2,i=%d,c=12,r=8,m=1", KittyImageID):
			t.Errorf("first command's keys %q", head)
		case i > 0 && !last && head != "m=1", last && head != "m=0":
			t.Errorf("command %d of %d: keys %q", i, len(cmds), head)
		}
		payload.WriteString(b64)
	}
	if dec, err := base64.StdEncoding.DecodeString(payload.String()); err != nil || !bytes.Equal(dec, big) {
		t.Errorf("the chunks do not carry the PNG: %v", err)
	}
}

// TestEncodeITerm2: one OSC 1337 with the file's size, the cells it covers
// and the PNG in base64, ended by BEL.
func TestEncodeITerm2(t *testing.T) {
	data := pagePNG(t)
	got, _ := encode(t, ITerm2, data, testArea)
	golden(t, "iterm2", got)
	want := "\x1b]1337;File=inline=1;size=" + strconv.Itoa(len(data)) + ";width=12;height=8;preserveAspectRatio=1:" + base64.StdEncoding.EncodeToString(data) + "\x07"
	if got != want {
		t.Errorf("got %q…", got[:60])
	}
}

// TestEncodeSixel: the sixel image decodes to the picture scaled to fit
// and dithered, pixel for pixel, its colours as registered.
func TestEncodeSixel(t *testing.T) {
	data := pagePNG(t)
	got, rows := encode(t, Sixel, data, testArea)
	golden(t, "sixel", got)
	src, _ := png.Decode(bytes.NewReader(data))
	want := dither(scale(src, 72, 96)) // 60×80 into 120×96 pixels
	if rows != 8 {
		t.Errorf("%d rows, want 8", rows)
	}
	img, regs := decodeSixel(t, got)
	if img.Bounds() != want.Bounds() {
		t.Fatalf("decoded %v, want %v", img.Bounds(), want.Bounds())
	}
	for y := range 96 {
		for x := range 72 {
			if img.Pix[y*img.Stride+x] != want.Pix[y*want.Stride+x] {
				t.Fatalf("pixel %d,%d: register %d, want %d", x, y, img.Pix[y*img.Stride+x], want.Pix[y*want.Stride+x])
			}
		}
	}
	for i, c := range regs {
		r, g, b, _ := want.Palette[i].RGBA()
		if c != [3]int{pct(r), pct(g), pct(b)} {
			t.Errorf("register %d is %v, palette %v", i, c, want.Palette[i])
		}
	}
	// the page's parts keep their colours: the mark's yellow, the words' dark
	at := func(x, y int) color.Color { return want.Palette[img.Pix[y*img.Stride+x]] }
	if r, g, b, _ := at(36, 50).RGBA(); r < 0xd000 || g < 0xc000 || b > 0xb000 {
		t.Errorf("the mark's middle is %v, want yellow", at(36, 50))
	}
	if r, _, _, _ := at(3, 3).RGBA(); r < 0xe000 {
		t.Errorf("the transparent corner is %v, want the page's white", at(3, 3))
	}
}

// decodeSixel reads a sixel image as writeSixel writes it (1:1 raster
// attributes, registers in RGB percent, bands of colours), into a
// paletted image of register numbers, and the registers.
func decodeSixel(t *testing.T, s string) (*image.Paletted, map[int][3]int) {
	t.Helper()
	body, ok := strings.CutPrefix(s, "\x1bP0;1;0q\"1;1;")
	if !ok || !strings.HasSuffix(body, "\x1b\\") {
		t.Fatalf("not a sixel image: %q", s[:min(len(s), 30)])
	}
	body = strings.TrimSuffix(body, "\x1b\\")
	num := func() int {
		i := 0
		for i < len(body) && body[i] >= '0' && body[i] <= '9' {
			i++
		}
		n, _ := strconv.Atoi(body[:i])
		body = body[i:]
		return n
	}
	w := num()
	body = body[1:]
	h := num()
	img := image.NewPaletted(image.Rect(0, 0, w, h), make(color.Palette, 256))
	regs := map[int][3]int{}
	x, top, cur := 0, 0, 0
	for len(body) > 0 {
		c := body[0]
		body = body[1:]
		switch {
		case c == '#':
			cur = num()
			if strings.HasPrefix(body, ";2;") {
				body = body[3:]
				r := num()
				body = body[1:]
				g := num()
				body = body[1:]
				regs[cur] = [3]int{r, g, num()}
			}
		case c == '$':
			x = 0
		case c == '-':
			x, top = 0, top+6
		case c == '!':
			n := num()
			bits := body[0] - 63
			body = body[1:]
			for range n {
				set(img, x, top, bits, cur)
				x++
			}
		case c >= 63 && c <= 126:
			set(img, x, top, c-63, cur)
			x++
		default:
			t.Fatalf("unexpected byte %q in the sixel data", c)
		}
	}
	return img, regs
}

func set(img *image.Paletted, x, top int, bits byte, reg int) {
	for k := range 6 {
		if bits&(1<<k) != 0 && image.Pt(x, top+k).In(img.Rect) {
			img.SetColorIndex(x, top+k, uint8(reg))
		}
	}
}

// TestFit: the picture takes the largest size that fits, its aspect
// ratio kept, and the cells it covers.
func TestFit(t *testing.T) {
	for _, c := range []struct {
		a                  Area
		w, h               int
		pw, ph, cols, rows int
	}{
		{Area{80, 23, 9, 18}, 1224, 1584, 319, 414, 36, 23},  // a Letter page in kitty at 80×24
		{Area{160, 47, 9, 18}, 1224, 1584, 653, 846, 73, 47}, // at 160×48
		{Area{80, 23, 9, 18}, 2000, 500, 720, 180, 80, 10},   // wider than tall: the width binds
		{Area{10, 10, 10, 20}, 5, 5, 100, 100, 10, 5},        // enlarged to fill
	} {
		pw, ph, cols, rows := c.a.fit(c.w, c.h)
		if pw != c.pw || ph != c.ph || cols != c.cols || rows != c.rows {
			t.Errorf("%d×%d in %+v: %d×%d px, %d×%d cells; want %d×%d, %d×%d", c.w, c.h, c.a, pw, ph, cols, rows, c.pw, c.ph, c.cols, c.rows)
		}
	}
}

// TestEncodeRefuses: no protocol, no room or not a PNG is an error, and
// nothing is written.
func TestEncodeRefuses(t *testing.T) {
	data := pagePNG(t)
	for _, c := range []struct {
		name string
		p    Protocol
		data []byte
		a    Area
	}{
		{"none", None, data, testArea},
		{"no room", Kitty, data, Area{0, 8, 6, 12}},
		{"not a PNG", Sixel, []byte("%PDF-1.7"), testArea},
	} {
		var b bytes.Buffer
		if _, err := Encode(&b, c.p, c.data, c.a); err == nil || b.Len() > 0 {
			t.Errorf("%s: %v, %d bytes written", c.name, err, b.Len())
		}
	}
}
