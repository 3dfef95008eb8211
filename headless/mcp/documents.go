package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/store"
)

// document is a document as the tools and resources describe it.
type document struct {
	DocumentID string   `json:"document_id" jsonschema:"the document's id: pass it as search's document filter"`
	Title      string   `json:"title"`
	Authors    []string `json:"authors,omitempty" jsonschema:"the authors, where known"`
	Year       string   `json:"year,omitempty" jsonschema:"the year of publication, where known"`
	Path       string   `json:"path,omitempty" jsonschema:"the file it was read from"`
	URL        string   `json:"url,omitempty"`
	Format     string   `json:"format"`
	Pages      int      `json:"pages,omitempty" jsonschema:"the number of pages (PDFs)"`
	Passages   int      `json:"passages" jsonschema:"how many passages (segments) the document was split into"`
	Added      string   `json:"added,omitempty" jsonschema:"when it was added to the library (UTC)"`
}

func describeDocument(d store.Document) document {
	out := document{
		DocumentID: d.ID, Title: rag.DocTitle(d), Authors: authors(d), Year: year(d),
		Path: d.Path, URL: d.URL, Format: string(d.Format), Pages: d.Pages, Passages: d.Segments,
	}
	if n, err := strconv.Atoi(d.Meta["passages"]); err == nil && n > 0 {
		out.Passages = n
	}
	if d.Added > 0 {
		out.Added = time.Unix(d.Added, 0).UTC().Format(time.RFC3339)
	}
	return out
}

// authors are a document's authors: from a bibliography (Meta "authors",
// bib.MetaAuthorList), else the author its file names.
func authors(d store.Document) []string {
	if list := bib.MetaAuthorList(d.Meta[bib.MetaAuthors]); len(list) > 0 {
		return list
	}
	if a := strings.TrimSpace(d.Author); a != "" {
		return []string{a}
	}
	return nil
}

// year is a document's year: from a bibliography (Meta "year"), else the
// year its date starts with.
func year(d store.Document) string {
	if y := strings.TrimSpace(d.Meta[bib.MetaYear]); y != "" {
		return y
	}
	if len(d.Date) >= 4 {
		if _, err := strconv.Atoi(d.Date[:4]); err == nil {
			return d.Date[:4]
		}
	}
	return ""
}

// listArgs are list_documents' arguments.
type listArgs struct {
	Filter string `json:"filter,omitempty" jsonschema:"only documents whose title, file path or id contains this text (any case)"`
	Offset int    `json:"offset,omitempty" jsonschema:"skip this many documents (for the next page: the next_offset of the last answer)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many documents to return, 1 to 200 (default 50)"`
}

// listResult is list_documents' answer.
type listResult struct {
	Library    string     `json:"library"`
	Total      int        `json:"total" jsonschema:"how many documents match, in all"`
	Documents  []document `json:"documents"`
	NextOffset int        `json:"next_offset,omitempty" jsonschema:"the offset of the next page, when there is one"`
}

const (
	defaultListLimit = 50
	maxListLimit     = 200
)

func (s *server) addListDocuments(srv *sdk.Server) {
	schema := mustSchema[listArgs]()
	bound(schema, "limit", 1, maxListLimit, defaultListLimit)
	zero := 0.0
	schema.Properties["offset"].Minimum = &zero
	sdk.AddTool(srv, &sdk.Tool{
		InputSchema: schema,
		Name:        "list_documents",
		Description: "List the documents in the user's library, sorted by file path: each one's id, title, authors and year where known, file path or URL, format, page and passage counts. Use the id as search's document filter. Long lists come in pages (offset, limit); filter narrows by title, path or id.",
		Annotations: readOnly("List the library's documents"),
	}, s.listDocuments)
}

func (s *server) listDocuments(ctx context.Context, _ *sdk.CallToolRequest, in listArgs) (*sdk.CallToolResult, listResult, error) {
	out := listResult{Library: s.cfg.LibraryName, Documents: []document{}}
	if in.Limit == 0 {
		in.Limit = defaultListLimit
	}
	if in.Limit < 1 || in.Limit > maxListLimit {
		return nil, out, fmt.Errorf("limit %d: give a number of documents from 1 to %d, and page with offset", in.Limit, maxListLimit)
	}
	if in.Offset < 0 {
		return nil, out, fmt.Errorf("offset %d: give 0 or more", in.Offset)
	}
	docs, err := s.cfg.Library.Documents(ctx)
	if err != nil {
		return nil, out, fmt.Errorf("couldn't list the documents of library %q: %w", s.cfg.LibraryName, err)
	}
	f := strings.ToLower(strings.TrimSpace(in.Filter))
	var match []store.Document
	for _, d := range docs {
		if f == "" || strings.Contains(strings.ToLower(rag.DocTitle(d)+"\n"+d.Path+"\n"+d.ID), f) {
			match = append(match, d)
		}
	}
	out.Total = len(match)
	for i := in.Offset; i < len(match) && i < in.Offset+in.Limit; i++ {
		out.Documents = append(out.Documents, describeDocument(match[i]))
	}
	if in.Offset+in.Limit < len(match) {
		out.NextOffset = in.Offset + in.Limit
	}
	return nil, out, nil
}

// resourcePrefix starts a document's resource URI; the document id follows.
const resourcePrefix = "ibid://library/"

// resourcePage is how many documents one resources/list page holds.
const resourcePage = 100

// addResources makes each document a resource, ibid://library/{id}, whose
// contents are its metadata as JSON. Reads go through a resource
// template; listing is answered from the library at each request (a
// middleware), so documents added while the server runs are listed.
func (s *server) addResources(srv *sdk.Server) {
	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "document",
		Title:       "A document of the library",
		Description: "A document's metadata (title, authors, year, path, pages, abstract, …) as JSON; the id is list_documents' document_id.",
		MIMEType:    "application/json",
		URITemplate: resourcePrefix + "{document_id}",
	}, s.readResource)
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method != "resources/list" {
				return next(ctx, method, req)
			}
			params, _ := req.GetParams().(*sdk.ListResourcesParams)
			return s.listResources(ctx, params)
		}
	})
}

func (s *server) listResources(ctx context.Context, params *sdk.ListResourcesParams) (*sdk.ListResourcesResult, error) {
	start := 0
	if params != nil && params.Cursor != "" {
		n, err := strconv.Atoi(params.Cursor)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("invalid cursor %q", params.Cursor)
		}
		start = n
	}
	docs, err := s.cfg.Library.Documents(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't list the documents of library %q: %w", s.cfg.LibraryName, err)
	}
	out := &sdk.ListResourcesResult{Resources: []*sdk.Resource{}}
	for i := start; i < len(docs) && i < start+resourcePage; i++ {
		d := describeDocument(docs[i])
		desc := d.Path
		if d.URL != "" {
			desc = d.URL
		}
		out.Resources = append(out.Resources, &sdk.Resource{
			URI: resourcePrefix + d.DocumentID, Name: d.DocumentID, Title: d.Title,
			Description: desc, MIMEType: "application/json",
		})
	}
	if start+resourcePage < len(docs) {
		out.NextCursor = strconv.Itoa(start + resourcePage)
	}
	return out, nil
}

// resourceJSON is a document resource's contents.
type resourceJSON struct {
	document
	Abstract string            `json:"abstract,omitempty"`
	Meta     map[string]string `json:"meta,omitempty"`
}

func (s *server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, resourcePrefix)
	if !ok || id == "" {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	d, err := s.cfg.Library.Document(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't read document %q: %w", id, err)
	}
	b, err := json.MarshalIndent(resourceJSON{document: describeDocument(d), Abstract: d.Meta["abstract"], Meta: d.Meta}, "", "  ")
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}
