package bib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultZoteroURL is where Zotero 7's local API listens.
const DefaultZoteroURL = "http://127.0.0.1:23119/api/"

// ZoteroEnable says what to switch on in Zotero for its local API.
const ZoteroEnable = "in Zotero 7 or later, open Settings → Advanced and check \"Allow other applications on this computer to communicate with Zotero\""

// Zotero reads a Zotero library through the local API of the running
// Zotero desktop app (Zotero 7 and later): the web API v3 served at
// http://127.0.0.1:23119/api/ for the local library, read-only, user 0.
type Zotero struct {
	// BaseURL is the API root; DefaultZoteroURL when empty.
	BaseURL string
	// Client makes the requests; one with a 30-second timeout when nil.
	Client *http.Client
	// PageSize is how many objects one request asks for (limit); 100
	// when 0, the web API's largest page.
	PageSize int
}

// ZoteroError is a failure to read the Zotero library, with what to do.
type ZoteroError struct {
	Msg string
	Err error
}

func (e *ZoteroError) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *ZoteroError) Unwrap() error { return e.Err }

// ParseZoteroSource reads a "zotero:" argument: "zotero:" (the whole
// library) or "zotero:collection/NAME" (a collection, by name, by path
// "Parent/Child", or by key, with its subcollections). ok is false when
// arg is not a Zotero source at all.
func ParseZoteroSource(arg string) (collection string, ok bool, err error) {
	rest, found := strings.CutPrefix(arg, "zotero:")
	if !found {
		return "", false, nil
	}
	rest = strings.TrimPrefix(rest, "//")
	switch {
	case rest == "" || rest == "/":
		return "", true, nil
	case strings.HasPrefix(rest, "collection/"):
		name := strings.Trim(strings.TrimPrefix(rest, "collection/"), "/")
		if name == "" {
			return "", true, fmt.Errorf("zotero:collection/ needs a collection name, e.g. zotero:collection/Thesis")
		}
		return name, true, nil
	}
	return "", true, fmt.Errorf("%q: use zotero: for the whole library or zotero:collection/NAME for one collection", arg)
}

func (z *Zotero) base() string {
	b := z.BaseURL
	if b == "" {
		b = DefaultZoteroURL
	}
	if !strings.HasSuffix(b, "/") {
		b += "/"
	}
	return b
}

func (z *Zotero) client() *http.Client {
	if z.Client != nil {
		return z.Client
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// Entries reads the items of the library, or of one collection and its
// subcollections, with their attachments. Each regular item is an entry;
// a standalone attachment (a file with no parent item) is one too.
// Entries come in the order the items were added to Zotero.
func (z *Zotero) Entries(ctx context.Context, collection string) ([]Entry, error) {
	if err := z.ping(ctx); err != nil {
		return nil, err
	}
	var items []zItem
	if collection == "" {
		all, err := z.list(ctx, "users/0/items")
		if err != nil {
			return nil, err
		}
		items = all
	} else {
		keys, err := z.collectionKeys(ctx, collection)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, k := range keys {
			got, err := z.list(ctx, "users/0/collections/"+url.PathEscape(k)+"/items")
			if err != nil {
				return nil, err
			}
			for _, it := range got {
				if !seen[it.Key] {
					seen[it.Key] = true
					items = append(items, it)
				}
			}
		}
	}
	return z.entries(ctx, items)
}

// ping checks that Zotero answers and its local API is on.
func (z *Zotero) ping(ctx context.Context) error {
	resp, err := z.do(ctx, z.base())
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// do GETs u and turns Zotero's refusals into errors that say what to do.
func (z *Zotero) do(ctx context.Context, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &ZoteroError{Msg: "bad Zotero address " + z.base(), Err: err}
	}
	req.Header.Set("Zotero-API-Version", "3")
	resp, err := z.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var op *net.OpError
		if errors.As(err, &op) {
			return nil, &ZoteroError{Msg: "couldn't reach Zotero at " + z.base() + ": is Zotero 7 running? Start it and try again; its local API must be on (" + ZoteroEnable + ")", Err: err}
		}
		return nil, &ZoteroError{Msg: "couldn't read from Zotero at " + z.base(), Err: err}
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	msg := oneLine(string(body))
	switch resp.StatusCode {
	case http.StatusForbidden:
		return nil, &ZoteroError{Msg: "Zotero's local API is off: " + ZoteroEnable + ", then try again (Zotero said: " + msg + ")"}
	case http.StatusNotFound:
		if u == z.base() {
			return nil, &ZoteroError{Msg: "Zotero at " + z.base() + " has no local API: it needs Zotero 7 or later (Zotero said: " + msg + ")"}
		}
	case http.StatusNotImplemented:
		return nil, &ZoteroError{Msg: "this Zotero does not speak API version 3 (Zotero said: " + msg + "); ibid reads Zotero 7's local API"}
	}
	return nil, &ZoteroError{Msg: fmt.Sprintf("Zotero answered %s for %s", resp.Status, u), Err: errors.New(msg)}
}

// maxPages bounds a listing, so that a server that always says "next"
// cannot keep us reading.
const maxPages = 100000

// list reads every object of an API listing, page by page: limit and
// start, following the Link header's rel="next" while there is one
// (the local API may also send everything at once, with no next).
func (z *Zotero) list(ctx context.Context, path string) ([]zItem, error) {
	size := z.PageSize
	if size <= 0 {
		size = 100
	}
	base, err := url.Parse(z.base())
	if err != nil {
		return nil, &ZoteroError{Msg: "bad Zotero address " + z.base(), Err: err}
	}
	next, _ := base.Parse(path + "?limit=" + strconv.Itoa(size) + "&start=0")
	var out []zItem
	for page := 0; page < maxPages && next != nil; page++ {
		resp, err := z.do(ctx, next.String())
		if err != nil {
			return nil, err
		}
		var got []zItem
		err = json.NewDecoder(io.LimitReader(resp.Body, 1<<30)).Decode(&got)
		link := resp.Header.Get("Link")
		resp.Body.Close()
		if err != nil {
			return nil, &ZoteroError{Msg: "Zotero sent a listing ibid cannot read (" + path + ")", Err: err}
		}
		out = append(out, got...)
		next = nil
		if n := linkNext(link); n != "" && len(got) > 0 {
			if u, err := url.Parse(n); err == nil {
				// Keep our own host: Zotero builds the link from the Host
				// header, which a proxy may have changed.
				next = base.ResolveReference(&url.URL{Path: u.Path, RawQuery: u.RawQuery})
			}
		}
	}
	return out, nil
}

// linkNext is the URL of rel="next" in a Link header.
func linkNext(h string) string {
	for _, part := range strings.Split(h, ",") {
		u, params, ok := strings.Cut(part, ";")
		if !ok {
			continue
		}
		if strings.Contains(strings.ReplaceAll(params, " ", ""), `rel="next"`) {
			return strings.Trim(strings.TrimSpace(u), "<>")
		}
	}
	return ""
}

// collectionKeys finds a collection by name, path ("Parent/Child") or
// key, and returns its key and its subcollections' keys.
func (z *Zotero) collectionKeys(ctx context.Context, name string) ([]string, error) {
	cols, err := z.list(ctx, "users/0/collections")
	if err != nil {
		return nil, err
	}
	byKey := map[string]zItem{}
	for _, c := range cols {
		byKey[c.Key] = c
	}
	path := func(c zItem) string {
		parts := []string{c.Data.Name}
		for p, hops := c.Data.parent(), 0; p != "" && hops < 64; hops++ {
			pc, ok := byKey[p]
			if !ok {
				break
			}
			parts = append([]string{pc.Data.Name}, parts...)
			p = pc.Data.parent()
		}
		return strings.Join(parts, "/")
	}
	var match []zItem
	for _, c := range cols {
		if c.Key == name || strings.EqualFold(c.Data.Name, name) || strings.EqualFold(path(c), name) {
			match = append(match, c)
		}
	}
	switch {
	case len(match) == 0:
		names := make([]string, 0, len(cols))
		for _, c := range cols {
			names = append(names, path(c))
		}
		have := "the library has no collections"
		if len(names) > 0 {
			if len(names) > 30 {
				names = append(names[:30], "…")
			}
			have = "its collections are: " + strings.Join(names, ", ")
		}
		return nil, &ZoteroError{Msg: fmt.Sprintf("Zotero has no collection %q (%s)", name, have)}
	case len(match) > 1:
		var paths []string
		for _, c := range match {
			paths = append(paths, path(c)+" (key "+c.Key+")")
		}
		return nil, &ZoteroError{Msg: fmt.Sprintf("several Zotero collections are named %q: %s; name one by its path or key, e.g. zotero:collection/%s", name, strings.Join(paths, ", "), match[0].Key)}
	}
	// The collection and everything under it.
	keys := []string{match[0].Key}
	in := map[string]bool{match[0].Key: true}
	for i := 0; i < len(keys); i++ {
		for _, c := range cols {
			if c.Data.parent() == keys[i] && !in[c.Key] {
				in[c.Key] = true
				keys = append(keys, c.Key)
			}
		}
	}
	return keys, nil
}
