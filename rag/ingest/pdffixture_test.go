package ingest

import (
	"bytes"
	"crypto/md5"
	"crypto/rc4"
	"encoding/hex"
	"fmt"
	"strings"
)

// The small PDFs in testdata are written by these functions (run the tests
// with -update to rewrite them); TestFixturesUpToDate checks they match.

// pdfObject is one indirect object's body (without "n 0 obj"/"endobj").
type pdfObject = string

// buildPDF lays out objects 1..n with a correct xref table. trailerExtra is
// added to the trailer dictionary (e.g. /Encrypt, /ID).
func buildPDF(objs []pdfObject, trailerExtra string) []byte {
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

func stream(content string) pdfObject {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
}

// textContent draws lines of text top-down in Helvetica.
func textContent(lines ...string) string {
	var b strings.Builder
	b.WriteString("BT /F1 12 Tf 72 720 Td 16 TL\n")
	for _, l := range lines {
		l = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l)
		fmt.Fprintf(&b, "(%s) Tj T*\n", l)
	}
	b.WriteString("ET")
	return b.String()
}

// pagesPDF makes a PDF with one page per content stream, Helvetica as F1,
// and an Info dictionary (object after the pages) when info is not empty.
func pagesPDF(info string, contents []string, trailerExtra string, encrypt func(num int, data string) string) []byte {
	n := len(contents)
	// 1 catalog, 2 pages, 3 font, then page/content pairs, then info.
	objs := []pdfObject{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
	var kids []string
	for i, c := range contents {
		page := 4 + 2*i
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", page+1))
		if encrypt != nil {
			c = encrypt(page+1, c)
		}
		objs = append(objs, stream(c))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	if info != "" {
		objs = append(objs, info)
		trailerExtra += fmt.Sprintf("/Info %d 0 R ", len(objs))
	}
	return buildPDF(objs, trailerExtra)
}

// tinyPDF: two pages, numbered headings, Info title and author.
func tinyPDF() []byte {
	return pagesPDF("<< /Title (A Tiny Test PDF) /Author (Ibid Tester) >>", []string{
		textContent("Tiny Test Document", "1 Introduction", "This is the first page. It has two sentences."),
		textContent("2 Method", "The second page describes the method."),
	}, "", nil)
}

// noTextPDF: one page with a drawn line and no text at all.
func noTextPDF() []byte {
	return pagesPDF("", []string{"2 w 72 72 m 500 700 l S"}, "", nil)
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

// encryptedPDF: tinyPDF's content encrypted with the standard security
// handler, revision 2 (RC4, 40-bit), user password "secret", so opening it
// without a password fails.
func encryptedPDF() []byte {
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
		textContent("Secret Document", "1 Introduction", "Nobody should read this without the password."),
	}
	// Object numbers: pages' content streams are 5, 7, ...; the encrypt
	// dictionary follows the info dictionary.
	trailer := fmt.Sprintf("/Encrypt << /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P %d >> /ID [<%s> <%s>] ",
		hex.EncodeToString(o), hex.EncodeToString(u), perms, hex.EncodeToString(id), hex.EncodeToString(id))
	return pagesPDF("", contents, trailer, enc)
}

// corruptPDF: tinyPDF cut after its header and first object's start.
func corruptPDF() []byte {
	return tinyPDF()[:40]
}
