package library

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// paperPDF is a one-page PDF whose page reads lines top-down (Latin-1
// text, Helvetica), with an Info title when title is not "".
func paperPDF(title string, lines ...string) []byte {
	latin1 := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			switch {
			case r == '\\' || r == '(' || r == ')':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r < 128:
				b.WriteRune(r)
			case r < 256:
				fmt.Fprintf(&b, "\\%03o", r)
			default:
				b.WriteByte('?')
			}
		}
		return b.String()
	}
	var content strings.Builder
	content.WriteString("BT /F1 11 Tf 72 740 Td 15 TL\n")
	for _, l := range lines {
		fmt.Fprintf(&content, "(%s) Tj T*\n", latin1(l))
	}
	content.WriteString("ET")
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()),
	}
	trailer := ""
	if title != "" {
		objs = append(objs, fmt.Sprintf("<< /Title (%s) >>", latin1(title)))
		trailer = fmt.Sprintf("/Info %d 0 R ", len(objs))
	}
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
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer, xref)
	return b.Bytes()
}

// The papers of the bibliography fixtures (rag/bib/testdata): the
// published Gao et al. 2023 (its DOI printed), its preprint (another
// file), and Müller et al. 2021 (a scan without text clues in its name).
var (
	gao2023PDF = paperPDF("Precise Zero-Shot Dense Retrieval without Relevance Labels",
		"Precise Zero-Shot Dense Retrieval without Relevance Labels",
		"Luyu Gao, Xueguang Ma, Jimmy Lin, Jamie Callan",
		"Proceedings of ACL 2023, pages 1762-1777. doi:10.18653/v1/2023.acl-long.99",
		"Abstract. Dense retrieval works well when relevance labels are available.",
		"We propose HyDE, hypothetical document embeddings, for zero-shot retrieval.",
		"HyDE first asks a language model to write a hypothetical document.")
	gao2022PDF = paperPDF("",
		"arXiv:2212.10496v1 [cs.IR] 20 Dec 2022",
		"Precise Zero-Shot Dense Retrieval without Relevance Labels",
		"Luyu Gao, Xueguang Ma, Jimmy Lin, Jamie Callan",
		"Preprint. Under review. We study zero-shot dense retrieval without any labels.")
	mullerPDF = paperPDF("",
		"Zeitschrift für Wissenschaftsforschung 12 (3), 45-67",
		"Über die Entstehung der Zitierpraxis: Eine Fallstudie",
		"Jörg Müller, María García-López, Ana van der Berg",
		"Die Fußnote entstand im siebzehnten Jahrhundert aus der Randglosse.")
)

// bibFixture copies rag/bib/testdata/name into dir with its
// placeholders filled (@@DIR@@: dir; @@ROOT@@: dir without its leading
// slash), and returns the copy's path.
func bibFixture(t *testing.T, name, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "bib", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "@@DIR@@", dir)
	s = strings.ReplaceAll(s, "@@ROOT@@", strings.TrimPrefix(dir, "/"))
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeBytes writes data at dir/rel, making its folders.
func writeBytes(t *testing.T, dir, rel string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
