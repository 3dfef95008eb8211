package library

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ibid-dev/ibid/store"
)

// Remove removes the documents that refs name, all in one commit, and
// returns them. A ref is a document id, a unique prefix of one, a
// document's path (as given to add, or absolute), or a folder, which names
// every document under it. If any ref names no document, or a prefix names
// several, Remove removes nothing and says which.
func (l *Library) Remove(ctx context.Context, refs ...string) ([]store.Document, error) {
	ctx, cancel := l.bind(ctx) // Close cancels it
	defer cancel()
	l.wmu.Lock()
	defer l.wmu.Unlock()

	docs, ids, err := l.resolve(ctx, refs)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	err = l.st.Update(ctx, nil, ids)
	if errors.Is(err, store.ErrNotFound) {
		// Another process removed or replaced one of them meanwhile: look
		// again.
		if docs, ids, err = l.resolve(ctx, refs); err != nil {
			return nil, err
		}
		err = l.st.Update(ctx, nil, ids)
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't remove documents from library %q: %w", l.name, err)
	}
	return docs, nil
}

// resolve finds the documents refs name, each once, in the order named.
func (l *Library) resolve(ctx context.Context, refs []string) ([]store.Document, []string, error) {
	all, err := l.Documents(ctx)
	if err != nil {
		return nil, nil, err
	}
	seen := make(map[string]bool)
	var docs []store.Document
	var ids []string
	var missing []string
	for _, ref := range refs {
		found, err := match(all, ref)
		if err != nil {
			return nil, nil, err
		}
		if len(found) == 0 {
			missing = append(missing, ref)
			continue
		}
		for _, d := range found {
			if !seen[d.ID] {
				seen[d.ID] = true
				docs = append(docs, d)
				ids = append(ids, d.ID)
			}
		}
	}
	switch len(missing) {
	case 0:
		return docs, ids, nil
	case 1:
		return nil, nil, fmt.Errorf("no document in library %q is %q (nothing removed); see ibid ls --library %s", l.name, missing[0], l.name)
	}
	return nil, nil, fmt.Errorf("no document in library %q is %s (nothing removed); see ibid ls --library %s",
		l.name, strings.Join(quote(missing), " or "), l.name)
}

// match finds the documents ref names: exact id, path, folder, then
// unique id prefix.
func match(all []store.Document, ref string) ([]store.Document, error) {
	if ref == "" {
		return nil, nil
	}
	for _, d := range all {
		if d.ID == ref {
			return []store.Document{d}, nil
		}
	}
	abs, err := filepath.Abs(ref)
	if err != nil {
		abs = filepath.Clean(ref)
	}
	var found []store.Document
	for _, d := range all {
		if d.Path == abs || d.Path == ref {
			found = append(found, d)
		}
	}
	if len(found) > 0 {
		return found, nil
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() || strings.HasSuffix(ref, string(filepath.Separator)) {
		prefix := strings.TrimSuffix(abs, string(filepath.Separator)) + string(filepath.Separator)
		for _, d := range all {
			if strings.HasPrefix(d.Path, prefix) {
				found = append(found, d)
			}
		}
		if len(found) > 0 {
			return found, nil
		}
	}
	for _, d := range all {
		if strings.HasPrefix(d.ID, ref) {
			found = append(found, d)
		}
	}
	if len(found) > 1 {
		var names []string
		for _, d := range found[:min(len(found), 4)] {
			names = append(names, d.ID[:min(len(d.ID), len(ref)+4)]+" ("+filepath.Base(d.Path)+")")
		}
		return nil, fmt.Errorf("%q is the start of %d document ids (%s); give more of the id (nothing removed)",
			ref, len(found), strings.Join(names, ", "))
	}
	return found, nil
}

func quote(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
