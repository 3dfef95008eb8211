package ingest

import "github.com/ibid-dev/ibid/rag/ingest/pdf"

// ReferencesHeadings name a document's list of references in the languages
// ibid reads (pdf.ReferencesHeadings: the PDF engine knows them as back
// matter). A section under one of them, numbered or not ("References",
// "7 References": store.Filter.SkipHeadings), is the references: found
// when a search asks for them, left out of answers by default
// (retrieve.Options.References). Every format's headings count, not only
// a PDF's.
var ReferencesHeadings = pdf.ReferencesHeadings
