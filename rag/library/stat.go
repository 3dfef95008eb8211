package library

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"strconv"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// A document remembers the size and modification time its file had when
// it was read (Document.Meta, MetaFileSize and MetaFileModified), so that
// an add or a sync that meets the file again with the same size and time
// takes it as unchanged without reading or hashing it: a folder of a
// thousand unchanged papers is checked in the time it takes to list it.
// A file changed without a change of size or time (rare: a tool that
// restores the time) is caught by reading it, `ibid add` after `touch`.

// Document.Meta keys of a document's file as it was read.
const (
	MetaFileSize     = "file_size"  // bytes, decimal
	MetaFileModified = "file_mtime" // modification time, unix nanoseconds, decimal
)

// fileStat is a file's size and modification time.
type fileStat struct {
	size  int64
	mtime int64 // unix nanoseconds
}

func statOf(fi fs.FileInfo) fileStat {
	return fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// docStat is the file's stat that d recorded; ok is false when it
// recorded none (documents added before stats were recorded).
func docStat(d store.Document) (fileStat, bool) {
	size, err1 := strconv.ParseInt(d.Meta[MetaFileSize], 10, 64)
	mtime, err2 := strconv.ParseInt(d.Meta[MetaFileModified], 10, 64)
	if err1 != nil || err2 != nil {
		return fileStat{}, false
	}
	return fileStat{size, mtime}, true
}

// unembedded is the set of documents whose vectors a repair lost
// (store.Unembedded; empty for a store that loses none): they are embedded
// again when their file is met, never taken as unchanged.
func (l *Library) unembedded(ctx context.Context) (map[string]bool, error) {
	lost := map[string]bool{}
	if u, ok := l.st.(store.Unembedded); ok {
		ids, err := u.Unembedded(ctx)
		if err != nil {
			return nil, fmt.Errorf("couldn't read library %q: %w", l.name, err)
		}
		for _, id := range ids {
			lost[id] = true
		}
	}
	return lost, nil
}

// unchangedAs reports whether a file of stat st, whose document d was
// indexed with strategy, is known unchanged without reading it: d
// recorded the same size and time.
func unchangedAs(d store.Document, st fileStat, strategy ingest.Strategy) bool {
	have, ok := docStat(d)
	return ok && have == st && DocumentStrategy(d) == strategy
}

// withStat is d recording st (its Meta copied, not changed in place), and
// whether that changed anything.
func withStat(d store.Document, st fileStat) (store.Document, bool) {
	if have, ok := docStat(d); ok && have == st {
		return d, false
	}
	m := maps.Clone(d.Meta)
	if m == nil {
		m = map[string]string{}
	}
	m[MetaFileSize] = strconv.FormatInt(st.size, 10)
	m[MetaFileModified] = strconv.FormatInt(st.mtime, 10)
	d.Meta = m
	return d, true
}
