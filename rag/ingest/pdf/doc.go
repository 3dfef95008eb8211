// Package pdf reads PDFs as papers: the PDF layout engine under
// rag/ingest.
//
// An Engine runs pdfium (compiled to WebAssembly, run by wazero) to get each
// page's characters with their boxes, fonts and tags, the outline and the
// Info dictionary, then lays the pages out (layOut): characters into
// fragments and lines, lines into columns and reading order, running
// headers, footers, page numbers and figure text out, footnotes apart,
// paragraphs joined across column and page breaks, headings found from the
// outline, the tags or the numbering, the title and authors recognised.
// Read returns the result as a Document: pages, and blocks in reading
// order, each with its kind, its text and where each of its lines is drawn.
// Turning blocks into a document's text, sections and segments is the
// loader's work (rag/ingest), not this package's.
//
// Invariants:
//   - Reading is bounded: one PDF gets at most the engine's deadline (30 s)
//     and each pdfium instance at most its memory limit (1 GiB); past
//     either, Read returns an *Error ("corrupt or hostile PDF (...)") and
//     the engine goes on with a fresh instance.
//   - Bad input never panics out of Read: a document's fault is an *Error
//     with a one-line Reason for the user; only the context's errors and
//     ErrUnavailable (the engine itself) are returned otherwise.
//   - A Document keeps the invariants its type states (blocks in reading
//     order, line offsets in order inside the text, boxes inside their
//     pages), whatever the characters on the pages.
//
// pdftest writes the small PDFs the tests read.
package pdf
