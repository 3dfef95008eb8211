// Package pdftest writes small PDFs for tests: a correct file structure
// around content streams, papers of positioned lines in Courier (whose
// widths are exact), outlines, tags, encryption. Nothing here reads a PDF.
package pdftest

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"crypto/rc4"
	"encoding/hex"
	"fmt"
	"image"
	"image/draw"
	"strings"
)

// Object is one indirect object's body (without "n 0 obj"/"endobj").
type Object = string

// Build lays out objects 1..n with a correct xref table. trailerExtra is
// added to the trailer dictionary (e.g. /Encrypt, /ID).
func Build(objs []Object, trailerExtra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailerExtra, xref)
	return b.Bytes()
}

func Stream(content string) Object {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
}

// TextContent draws lines of text top-down in Helvetica.
func TextContent(lines ...string) string {
	var b strings.Builder
	b.WriteString("BT /F1 12 Tf 72 720 Td 16 TL\n")
	for _, l := range lines {
		l = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l)
		fmt.Fprintf(&b, "(%s) Tj T*\n", l)
	}
	b.WriteString("ET")
	return b.String()
}

// Pages makes a PDF with one page per content stream, Helvetica as F1,
// and an Info dictionary (object after the pages) when info is not empty.
func Pages(info string, contents []string, trailerExtra string, encrypt func(num int, data string) string) []byte {
	n := len(contents)
	// 1 catalog, 2 pages, 3 font, then page/content pairs, then info.
	objs := []Object{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
	var kids []string
	for i, c := range contents {
		page := 4 + 2*i
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", page+1))
		if encrypt != nil {
			c = encrypt(page+1, c)
		}
		objs = append(objs, Stream(c))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	if info != "" {
		objs = append(objs, info)
		trailerExtra += fmt.Sprintf("/Info %d 0 R ", len(objs))
	}
	return Build(objs, trailerExtra)
}

// Tiny: two pages, numbered headings, Info title and author.
func Tiny() []byte {
	return Pages("<< /Title (A Tiny Test PDF) /Author (Ibid Tester) >>", []string{
		TextContent("Tiny Test Document", "1 Introduction", "This is the first page. It has two sentences."),
		TextContent("2 Method", "The second page describes the method."),
	}, "", nil)
}

// NoText: one page with a drawn line and no text at all.
func NoText() []byte {
	return Pages("", []string{"2 w 72 72 m 500 700 l S"}, "", nil)
}

// pdfPadding is the password padding string of the standard security
// handler (PDF 1.7, 7.6.3.3).
var pdfPadding = []byte("\x28\xBF\x4E\x5E\x4E\x75\x8A\x41\x64\x00\x4E\x56\xFF\xFA\x01\x08\x2E\x2E\x00\xB6\xD0\x68\x3E\x80\x2F\x0C\xA9\xFE\x64\x53\x69\x7A")

func padPassword(p string) []byte {
	return append([]byte(p), pdfPadding...)[:32]
}

func rc4Bytes(key, data []byte) []byte {
	c, _ := rc4.NewCipher(key)
	out := make([]byte, len(data))
	c.XORKeyStream(out, data)
	return out
}

// Encrypted: Tiny's content encrypted with the standard security
// handler, revision 2 (RC4, 40-bit), user password "secret", so opening it
// without a password fails.
func Encrypted() []byte {
	const user, owner = "secret", "owner-secret"
	var perms int32 = -4
	id := []byte("ibid-test-id-016")
	ok := md5.Sum(padPassword(owner))
	o := rc4Bytes(ok[:5], padPassword(user)) // Algorithm 3
	h := md5.New()                           // Algorithm 2
	h.Write(padPassword(user))
	h.Write(o)
	p := uint32(perms)
	h.Write([]byte{byte(p), byte(p >> 8), byte(p >> 16), byte(p >> 24)})
	h.Write(id)
	key := h.Sum(nil)[:5]
	u := rc4Bytes(key, pdfPadding) // Algorithm 4
	enc := func(num int, data string) string {
		k := md5.Sum(append(append([]byte{}, key...), byte(num), byte(num>>8), byte(num>>16), 0, 0))
		return string(rc4Bytes(k[:10], []byte(data)))
	}
	contents := []string{
		TextContent("Secret Document", "1 Introduction", "Nobody should read this without the password."),
	}
	// Object numbers: pages' content streams are 5, 7, ...; the encrypt
	// dictionary follows the info dictionary.
	trailer := fmt.Sprintf("/Encrypt << /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P %d >> /ID [<%s> <%s>] ",
		hex.EncodeToString(o), hex.EncodeToString(u), perms, hex.EncodeToString(id), hex.EncodeToString(id))
	return Pages("", contents, trailer, enc)
}

// Corrupt: Tiny cut after its header and first object's start.
func Corrupt() []byte {
	return Tiny()[:40]
}

// Item is one line drawn on a fixture page: Courier (6/10 em per
// character, so widths are exact), bold or not, justified to width when
// width > 0 (word spacing fills the line, as TeX does).
type Item struct {
	X, Y, Size float64
	Bold       bool
	Width      float64
	Text       string
	Vertical   bool // turned a quarter (an arXiv stamp in the margin)
	// Turn is the quarter turns counter-clockwise the line is drawn at
	// from (X, Y): 1 reads upwards (as Vertical), 2 upside down, 3
	// downwards.
	Turn int
}

// Paper writes pages of positioned lines with Courier (F1) and
// Courier-Bold (F2).
func Paper(pages [][]Item) []byte { return Outlined(pages, nil) }

// OutlineEntry is a top-level bookmark to a page (0-based).
type OutlineEntry struct {
	Title string
	Page  int
}

// Outlined is Paper with an outline (bookmarks) when outline is
// not empty.
func Outlined(pages [][]Item, outline []OutlineEntry) []byte {
	return paper(612, 792, pages, outline)
}

// Sized is Paper on pages of width by height points.
func Sized(width, height float64, pages [][]Item) []byte {
	return paper(width, height, pages, nil)
}

func paper(width, height float64, pages [][]Item, outline []OutlineEntry) []byte {
	var contents []string
	for _, items := range pages {
		var b strings.Builder
		for _, it := range items {
			font := 1
			if it.Bold {
				font = 2
			}
			tw := 0.0
			if n := strings.Count(it.Text, " "); it.Width > 0 && n > 0 {
				tw = (it.Width - 0.6*it.Size*float64(len(it.Text))) / float64(n)
			}
			s := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(it.Text)
			turn := it.Turn % 4
			if it.Vertical {
				turn = 1
			}
			if turn != 0 {
				m := [4]string{"", "0 1 -1 0", "-1 0 0 -1", "0 -1 1 0"}[turn]
				fmt.Fprintf(&b, "BT /F%d %g Tf %s %g %g Tm (%s) Tj ET\n", font, it.Size, m, it.X, it.Y, s)
				continue
			}
			fmt.Fprintf(&b, "BT /F%d %g Tf %g Tw %g %g Td (%s) Tj ET\n", font, it.Size, tw, it.X, it.Y, s)
		}
		contents = append(contents, b.String())
	}
	n := len(contents)
	objs := []Object{"<< /Type /Catalog /Pages 2 0 R >>", "",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier-Bold /Encoding /WinAnsiEncoding >>"}
	var kids []string
	for i, c := range contents {
		page := 5 + 2*i
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>", width, height, page+1), Stream(c))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	if len(outline) > 0 {
		root := len(objs) + 1
		objs[0] = fmt.Sprintf("<< /Type /Catalog /Pages 2 0 R /Outlines %d 0 R >>", root)
		first, last := root+1, root+len(outline)
		objs = append(objs, fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>", first, last, len(outline)))
		for i, o := range outline {
			item := fmt.Sprintf("<< /Title (%s) /Parent %d 0 R /Dest [%d 0 R /XYZ 0 792 0]", o.Title, root, 5+2*o.Page)
			if i > 0 {
				item += fmt.Sprintf(" /Prev %d 0 R", first+i-1)
			}
			if i < len(outline)-1 {
				item += fmt.Sprintf(" /Next %d 0 R", first+i+1)
			}
			objs = append(objs, item+" >>")
		}
	}
	return Build(objs, "")
}

// Column lays out a paragraph's lines in a Column from y down, 12 points
// apart, each line justified but the last.
func Column(x, y, width float64, lines ...string) []Item {
	var out []Item
	for i, l := range lines {
		w := width
		if i == len(lines)-1 {
			w = 0
		}
		out = append(out, Item{X: x, Y: y - 12*float64(i), Size: 10, Width: w, Text: l})
	}
	return out
}

const (
	LeftX, RightX, ColW = 72.0, 318.0, 222.0
)

// TwoColumnPaper is a two-page, two-column paper whose truth is known:
// running header and page numbers, a footnote, a paragraph that runs from
// the left column into the right one and one that runs onto page 2, words
// hyphenated at line ends, a figure with tick labels and a caption, a
// table with a caption, and a references section.
func TwoColumnPaper() []byte {
	header := func(n int) []Item {
		return []Item{
			{X: 72, Y: 760, Size: 8, Text: "Fixture Journal of Layout, Vol. 1"},
			{X: 300, Y: 40, Size: 9, Text: fmt.Sprint(n)},
		}
	}
	p1 := header(1)
	p1 = append(p1, Item{X: 30, Y: 250, Size: 20, Vertical: true, Text: "arXiv:2305.14627v1 [cs.CL] 24 May 2023"})
	p1 = append(p1,
		Item{X: 150, Y: 720, Size: 18, Bold: true, Text: "A Study of Paper Layout"},
		Item{X: 200, Y: 695, Size: 12, Text: "Ada Lovelace and Alan Turing"},
		Item{X: LeftX, Y: 650, Size: 12, Bold: true, Text: "Abstract"},
	)
	p1 = append(p1, Column(LeftX, 632, ColW,
		"We read papers as papers: columns in",
		"order, notes apart, and words whole.")...)
	p1 = append(p1, Item{X: LeftX, Y: 590, Size: 12, Bold: true, Text: "1 Introduction"})
	p1 = append(p1, Column(LeftX, 572, ColW,
		"A first paragraph starts the section",
		"and it cites a footnote here.")...)
	p1 = append(p1, Item{X: 246, Y: 563, Size: 6, Text: "1"})
	p1 = append(p1, Column(LeftX+12, 548, ColW-12,
		"Models that we use in state-of-the-")...)
	p1 = append(p1, Column(LeftX, 536, ColW,
		"art methods for this study of natu-",
		"ral text and of the work on natural-",
		"language inference; natural text and",
		"language are common words here, and",
		"the results of the many tests of the")...)
	p1[len(p1)-1].Width = ColW // the Column ends mid-sentence, justified
	p1 = append(p1,
		Item{X: LeftX, Y: 96, Size: 6, Text: "1"},
		Item{X: LeftX + 5, Y: 92, Size: 8, Text: "See https://example.org/fixture for data."},
	)
	p1 = append(p1, Column(RightX, 650, ColW,
		"experiment were clear to every one",
		"who looked at them.")...)
	// A figure: tick labels and an axis label in tiny type, then a caption.
	for i, tick := range []string{"0.0", "0.5", "1.0"} {
		p1 = append(p1, Item{X: RightX + 10 + 80*float64(i), Y: 585, Size: 5, Text: tick})
		p1 = append(p1, Item{X: RightX, Y: 592 + 8*float64(i), Size: 5, Text: tick})
	}
	p1 = append(p1, Item{X: RightX + 90, Y: 578, Size: 5, Text: "Year"})
	p1 = append(p1, Column(RightX, 560, ColW,
		"Figure 1: Accuracy by year for each",
		"model in the study.")...)
	p1 = append(p1, Column(RightX, 520, ColW,
		"The last paragraph of this page goes",
		"on across the line and across the page")...)
	p1[len(p1)-1].Width = ColW
	p2 := header(2)
	p2 = append(p2, Column(LeftX, 720, ColW,
		"break and ends on the second page.")...)
	p2 = append(p2, Item{X: LeftX, Y: 690, Size: 12, Bold: true, Text: "2 Method"})
	p2 = append(p2, Column(LeftX, 672, ColW,
		"We measure the layout of each page.")...)
	p2 = append(p2, Column(LeftX, 640, ColW,
		"Table 1: Scores of the two models.")...)
	p2 = append(p2,
		Item{X: LeftX, Y: 620, Size: 10, Text: "Model"}, Item{X: LeftX + 120, Y: 620, Size: 10, Text: "Score"},
		Item{X: LeftX, Y: 608, Size: 10, Text: "Alpha"}, Item{X: LeftX + 120, Y: 608, Size: 10, Text: "0.91"},
	)
	p2 = append(p2, Item{X: RightX, Y: 720, Size: 12, Bold: true, Text: "References"})
	p2 = append(p2, Column(RightX, 702, ColW,
		"Ada Lovelace. 1843. Notes on the")...)
	p2 = append(p2, Column(RightX+10, 690, ColW-10,
		"Analytical Engine. Taylor.")...)
	p2 = append(p2, Column(RightX, 672, ColW,
		"Alan Turing. 1950. Computing machines")...)
	p2 = append(p2, Column(RightX+10, 660, ColW-10,
		"and intelligence. Mind.")...)
	return Paper([][]Item{p1, p2})
}

// Tagged is a one-page tagged PDF: headings marked H1 and H2 in the
// structure tree, set like the body text; tagged false writes the same
// page without the marks.
func Tagged(tagged bool) []byte {
	items := []struct {
		tag, text string
		y         int
	}{
		{"H1", "Overview", 720},
		{"P", "Plain text under a tagged heading, set like it.", 700},
		{"H2", "Details", 670},
		{"P", "More text under the second heading, also plain.", 650},
	}
	var c strings.Builder
	for i, it := range items {
		if tagged {
			fmt.Fprintf(&c, "/%s <</MCID %d>> BDC ", it.tag, i)
		}
		fmt.Fprintf(&c, "BT /F1 10 Tf 72 %d Td (%s) Tj ET", it.y, it.text)
		if tagged {
			c.WriteString(" EMC")
		}
		c.WriteString("\n")
	}
	catalog := "<< /Type /Catalog /Pages 2 0 R >>"
	if tagged {
		catalog = "<< /Type /Catalog /Pages 2 0 R /StructTreeRoot 6 0 R /MarkInfo << /Marked true >> >>"
	}
	objs := []Object{
		catalog,
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R /StructParents 0 >>",
		Stream(c.String()),
		"<< /Type /StructTreeRoot /K [7 0 R] /ParentTree 8 0 R >>",
		"<< /Type /StructElem /S /Document /P 6 0 R /K [9 0 R 10 0 R 11 0 R 12 0 R] >>",
		"<< /Nums [0 [9 0 R 10 0 R 11 0 R 12 0 R]] >>",
	}
	for i, it := range items {
		objs = append(objs, fmt.Sprintf("<< /Type /StructElem /S /%s /P 7 0 R /Pg 4 0 R /K %d >>", it.tag, i))
	}
	return Build(objs, "")
}

// Scanned is a PDF of one page per image, each image filling a page of
// width by height points and nothing else drawn: a scan, with no text
// layer. The images are stored as 8-bit gray (as a scanner keeps a
// page of text; a third of RGB's bytes to compress here and to inflate
// and draw when the scan is read), Flate-compressed.
func Scanned(width, height float64, pages ...image.Image) []byte {
	return ScannedWithLayer(width, height, nil, pages...)
}

// ScannedWithLayer is Scanned with, over page i, the text layer layers[i]
// drawn invisible (text render mode 3, as a scanner's OCR draws it) in
// Helvetica at 10 points, a line every 12 points from (72, 660).
func ScannedWithLayer(width, height float64, layers [][]string, pages ...image.Image) []byte {
	objs := []Object{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
	var kids []string
	for i, img := range pages {
		b := img.Bounds()
		// The pixels are read from an RGBA copy's Pix (img.At would
		// allocate a color per pixel: hundreds of MB for a page at 300 DPI).
		rgba, ok := img.(*image.RGBA)
		if !ok {
			rgba = image.NewRGBA(b)
			draw.Draw(rgba, b, img, b.Min, draw.Src)
		}
		// Compressed for speed, not size: a test's scan is made in every
		// run, under the race detector, and read once.
		var raw bytes.Buffer
		z, _ := zlib.NewWriterLevel(&raw, zlib.BestSpeed)
		row := make([]byte, b.Dx())
		for y := b.Min.Y; y < b.Max.Y; y++ {
			px := rgba.Pix[rgba.PixOffset(b.Min.X, y):]
			for x := range row {
				// Luma (ITU-R BT.601), as image/color's gray model.
				row[x] = uint8((19595*uint32(px[4*x]) + 38470*uint32(px[4*x+1]) + 7471*uint32(px[4*x+2]) + 1<<15) >> 16)
			}
			z.Write(row)
		}
		z.Close()
		page := len(objs) + 1
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
		content := fmt.Sprintf("q %g 0 0 %g 0 0 cm /Im0 Do Q", width, height)
		if i < len(layers) && len(layers[i]) > 0 {
			content += "\nBT 3 Tr /F1 10 Tf 72 660 Td 12 TL\n"
			for _, l := range layers[i] {
				content += "(" + strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l) + ") Tj T*\n"
			}
			content += "ET"
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Resources << /Font << /F1 3 0 R >> /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>", width, height, page+2, page+1),
			Stream(content),
			fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", b.Dx(), b.Dy(), raw.Len(), raw.Bytes()),
		)
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages))
	return Build(objs, "")
}
