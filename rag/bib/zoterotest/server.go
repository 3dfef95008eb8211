// Package zoterotest is a fake Zotero desktop app for tests: an httptest
// server that answers as Zotero 7's local API does (the web API v3 under
// /api/, user 0): /api/ itself, /users/0/items (regular items, child
// attachments and notes together), /users/0/items/KEY/children,
// /users/0/collections and /users/0/collections/KEY/items, with
// limit/start pagination, Total-Results and Link headers built as Zotero
// builds them, attachment items whose links.enclosure is the file's
// file:// URL (with a length only when the file is on disk), and 403
// "Local API is not enabled" when switched off.
package zoterotest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Creator is an item's creator: First and Last, or Name alone (a
// single-field name, an institution).
type Creator struct {
	Type, First, Last, Name string
}

// Item is a regular item (journalArticle, book, conferencePaper, …).
type Item struct {
	Key, Type, Title, Date, DOI, URL, Extra string
	// Venue is the item type's venue field: publicationTitle,
	// proceedingsTitle or publisher.
	Venue       string
	Creators    []Creator
	Collections []string // collection keys
	DateAdded   string   // "2024-01-10T09:00:00Z"; ordering
}

// Attachment is an attachment item: a child of Parent, or standalone
// when Parent is "".
type Attachment struct {
	Key, Parent, Title string
	// LinkMode is imported_file, imported_url, linked_file or
	// linked_url.
	LinkMode    string
	ContentType string
	// Path is the file's absolute path (imported files: where Zotero
	// keeps it; linked files: as linked), or for a linked file relative to
	// the base folder "attachments:rel/path". A linked URL has none.
	Path        string
	URL         string
	Collections []string
	DateAdded   string
}

// Note is a child note.
type Note struct {
	Key, Parent, HTML string
}

// Collection is a collection; Parent is its parent collection's key.
type Collection struct {
	Key, Name, Parent string
}

// Library is what the fake Zotero holds.
type Library struct {
	Items       []Item
	Attachments []Attachment
	Notes       []Note
	Collections []Collection
}

// Server is the fake Zotero.
type Server struct {
	*httptest.Server

	mu          sync.Mutex
	disabled    bool
	items       []Item
	attachments []Attachment
	notes       []Note
	collections []Collection
	// TopOnlyCollections makes collection listings leave child items
	// out, so that a client must ask for each item's children.
	TopOnlyCollections bool
	// Requests counts requests by path.
	Requests map[string]int
}

// New starts a fake Zotero with this library; it is closed when the test
// ends.
func New(t interface{ Cleanup(func()) }, lib Library) *Server {
	s := &Server{items: lib.Items, attachments: lib.Attachments, notes: lib.Notes, collections: lib.Collections, Requests: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// URL of the API root, as a client is given it.
func (s *Server) APIURL() string { return s.Server.URL + "/api/" }

// SetEnabled switches the local API on or off (Zotero's "Allow other
// applications on this computer to communicate with Zotero").
func (s *Server) SetEnabled(on bool) {
	s.mu.Lock()
	s.disabled = !on
	s.mu.Unlock()
}

// SetLibrary replaces the library's items (as if the user edited it in
// Zotero).
func (s *Server) SetLibrary(lib Library) {
	s.mu.Lock()
	s.items, s.attachments, s.notes, s.collections = lib.Items, lib.Attachments, lib.Notes, lib.Collections
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Requests[r.URL.Path]++
	h := w.Header()
	h.Set("Zotero-API-Version", "3")
	h.Set("Zotero-Schema-Version", "29")
	if s.disabled {
		http.Error(w, "Local API is not enabled", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet {
		http.Error(w, "Method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if v := r.Header.Get("Zotero-API-Version"); v != "" && v != "3" {
		http.Error(w, "API version not implemented: "+v, http.StatusNotImplemented)
		return
	}
	path := r.URL.Path
	switch {
	case path == "/api/":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "Nothing to see here.")
		return
	case !strings.HasPrefix(path, "/api/users/"):
		http.Error(w, "Not found", http.StatusNotFound)
		return
	}
	parts := strings.Split(strings.TrimPrefix(path, "/api/users/"), "/")
	if parts[0] != "0" {
		http.Error(w, "Only data for the logged-in user is available locally -- use userID 0", http.StatusBadRequest)
		return
	}
	parts = parts[1:]
	var data []map[string]any
	switch {
	case len(parts) == 1 && parts[0] == "items":
		data = s.allItems("")
	case len(parts) == 3 && parts[0] == "items" && parts[2] == "children":
		data = s.children(parts[1])
	case len(parts) == 1 && parts[0] == "collections":
		for _, c := range s.collections {
			data = append(data, s.collectionJSON(c))
		}
	case len(parts) == 3 && parts[0] == "collections" && parts[2] == "items":
		if !s.hasCollection(parts[1]) {
			http.Error(w, "Not found", http.StatusNotFound)
			return
		}
		data = s.allItems(parts[1])
	default:
		http.Error(w, "Not found", http.StatusNotFound)
		return
	}
	s.page(w, r, data)
}

// page writes one page of data, with the headers Zotero sends.
func (s *Server) page(w http.ResponseWriter, r *http.Request, data []map[string]any) {
	q := r.URL.Query()
	total := len(data)
	start, _ := strconv.Atoi(q.Get("start"))
	start = max(0, min(start, total))
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 {
		limit = total - start
	}
	end := min(total, start+limit)
	links := []string{}
	build := func(st int) string {
		p := url.Values{}
		for k, v := range q {
			p[k] = v
		}
		if st > 0 {
			p.Set("start", strconv.Itoa(st))
		} else {
			p.Del("start")
		}
		return "http://localhost:23119" + r.URL.Path + "?" + p.Encode()
	}
	if start > 0 {
		links = append(links, fmt.Sprintf(`<%s>; rel="first"`, build(0)), fmt.Sprintf(`<%s>; rel="prev"`, build(start-limit)))
	}
	if limit > 0 && end < total {
		links = append(links, fmt.Sprintf(`<%s>; rel="next"`, build(end)))
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Total-Results", strconv.Itoa(total))
	h.Set("Last-Modified-Version", "4242")
	if len(links) > 0 {
		h.Set("Link", strings.Join(links, ", "))
	}
	page := data[start:end]
	if page == nil {
		page = []map[string]any{}
	}
	b, _ := json.MarshalIndent(page, "", "    ")
	w.Write(b)
}

func (s *Server) hasCollection(key string) bool {
	for _, c := range s.collections {
		if c.Key == key {
			return true
		}
	}
	return false
}

// allItems is every item, attachment and note, or those of a collection
// (its items, and their children unless TopOnlyCollections), sorted by
// date modified, newest first, as Zotero's default sort.
func (s *Server) allItems(collection string) []map[string]any {
	in := func(cols []string) bool {
		if collection == "" {
			return true
		}
		for _, c := range cols {
			if c == collection {
				return true
			}
		}
		return false
	}
	parents := map[string]bool{}
	var out []map[string]any
	for _, it := range s.items {
		if in(it.Collections) {
			parents[it.Key] = true
			out = append(out, s.itemJSON(it))
		}
	}
	for _, a := range s.attachments {
		if (a.Parent == "" && in(a.Collections)) || (a.Parent != "" && (collection == "" || parents[a.Parent] && !s.TopOnlyCollections)) {
			out = append(out, s.attachmentJSON(a))
		}
	}
	for _, n := range s.notes {
		if collection == "" || parents[n.Parent] && !s.TopOnlyCollections {
			out = append(out, noteJSON(n))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i]["key"].(string) > out[j]["key"].(string)
	})
	return out
}

func (s *Server) children(key string) []map[string]any {
	var out []map[string]any
	for _, a := range s.attachments {
		if a.Parent == key {
			out = append(out, s.attachmentJSON(a))
		}
	}
	for _, n := range s.notes {
		if n.Parent == key {
			out = append(out, noteJSON(n))
		}
	}
	return out
}

func library() map[string]any {
	return map[string]any{"type": "user", "id": 0, "name": "My Library", "links": map[string]any{
		"self": map[string]any{"href": "http://localhost:23119/api/users/0", "type": "application/json"}}}
}

func selfLinks(key string) map[string]any {
	return map[string]any{
		"self":      map[string]any{"href": "http://localhost:23119/api/users/0/items/" + key, "type": "application/json"},
		"alternate": map[string]any{"href": "https://www.zotero.org/users/0/items/" + key, "type": "text/html"},
	}
}

func (s *Server) numChildren(key string) int {
	n := 0
	for _, a := range s.attachments {
		if a.Parent == key {
			n++
		}
	}
	for _, nt := range s.notes {
		if nt.Parent == key {
			n++
		}
	}
	return n
}

func (s *Server) itemJSON(it Item) map[string]any {
	creators := []map[string]any{}
	summary := ""
	for i, c := range it.Creators {
		m := map[string]any{"creatorType": c.Type}
		if c.Name != "" {
			m["name"] = c.Name
		} else {
			m["firstName"], m["lastName"] = c.First, c.Last
		}
		creators = append(creators, m)
		if i == 0 {
			summary = c.Last + c.Name
		}
	}
	if len(it.Creators) > 2 {
		summary += " et al."
	}
	data := map[string]any{
		"key": it.Key, "version": 4242, "itemType": it.Type, "title": it.Title, "creators": creators,
		"abstractNote": "", "date": it.Date, "url": it.URL, "accessDate": "", "extra": it.Extra,
		"tags": []any{}, "collections": nonNil(it.Collections), "relations": map[string]any{},
		"dateAdded": it.DateAdded, "dateModified": it.DateAdded, "language": "", "libraryCatalog": "",
	}
	switch it.Type {
	case "journalArticle":
		data["publicationTitle"], data["DOI"] = it.Venue, it.DOI
		data["volume"], data["issue"], data["pages"], data["ISSN"] = "", "", "", ""
	case "conferencePaper":
		data["proceedingsTitle"], data["DOI"], data["conferenceName"] = it.Venue, it.DOI, ""
	case "book":
		data["publisher"], data["place"], data["ISBN"] = it.Venue, "", ""
	case "preprint":
		data["repository"], data["DOI"] = it.Venue, it.DOI
	default:
		// Types without a DOI field keep it in Extra, as Zotero does.
		if it.DOI != "" {
			data["extra"] = strings.TrimSpace(it.Extra + "\nDOI: " + it.DOI)
		}
	}
	meta := map[string]any{"creatorSummary": summary, "numChildren": s.numChildren(it.Key)}
	if y := it.Date; len(y) >= 4 {
		meta["parsedDate"] = y
	}
	return map[string]any{"key": it.Key, "version": 4242, "library": library(), "links": selfLinks(it.Key), "meta": meta, "data": data}
}

func (s *Server) attachmentJSON(a Attachment) map[string]any {
	data := map[string]any{
		"key": a.Key, "version": 4242, "itemType": "attachment", "title": a.Title, "linkMode": a.LinkMode,
		"accessDate": "", "url": a.URL, "note": "", "contentType": a.ContentType, "charset": "",
		"tags": []any{}, "relations": map[string]any{}, "dateAdded": a.DateAdded, "dateModified": a.DateAdded,
	}
	if a.Parent != "" {
		data["parentItem"] = a.Parent
	} else {
		data["collections"] = nonNil(a.Collections)
	}
	links := selfLinks(a.Key)
	if a.Parent != "" {
		links["up"] = map[string]any{"href": "http://localhost:23119/api/users/0/items/" + a.Parent, "type": "application/json"}
	}
	switch a.LinkMode {
	case "imported_file", "imported_url":
		name := a.Path[strings.LastIndex(a.Path, "/")+1:]
		data["filename"] = name
		data["md5"], data["mtime"] = nil, nil
		enc := map[string]any{"href": (&url.URL{Scheme: "file", Path: a.Path}).String(), "type": a.ContentType, "title": name}
		if st, err := os.Stat(a.Path); err == nil {
			enc["length"] = st.Size()
		}
		links["enclosure"] = enc
	case "linked_file":
		data["path"] = a.Path
		data["filename"] = a.Path[strings.LastIndex(a.Path, "/")+1:]
	}
	return map[string]any{"key": a.Key, "version": 4242, "library": library(), "links": links,
		"meta": map[string]any{"numChildren": 0}, "data": data}
}

func noteJSON(n Note) map[string]any {
	return map[string]any{"key": n.Key, "version": 4242, "library": library(), "links": selfLinks(n.Key),
		"meta": map[string]any{"numChildren": 0},
		"data": map[string]any{"key": n.Key, "version": 4242, "itemType": "note", "parentItem": n.Parent, "note": n.HTML,
			"tags": []any{}, "relations": map[string]any{}}}
}

func (s *Server) collectionJSON(c Collection) map[string]any {
	var parent any = false
	if c.Parent != "" {
		parent = c.Parent
	}
	n := 0
	for _, it := range s.items {
		for _, k := range it.Collections {
			if k == c.Key {
				n++
			}
		}
	}
	return map[string]any{"key": c.Key, "version": 4242, "library": library(),
		"links": map[string]any{"self": map[string]any{"href": "http://localhost:23119/api/users/0/collections/" + c.Key, "type": "application/json"}},
		"meta":  map[string]any{"numCollections": 0, "numItems": n},
		"data":  map[string]any{"key": c.Key, "version": 4242, "name": c.Name, "parentCollection": parent, "relations": map[string]any{}}}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
