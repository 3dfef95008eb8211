package library

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/internal/xdg"
)

// A sync remembers the files it skipped (an unsupported type, a PDF that
// cannot be read) with their size and time, so that the next sync does
// not open them again while they are unchanged: a folder of papers also
// holds pictures, archives and drafts in other formats. It is a cache,
// under the XDG cache folder, one file per library: losing it costs a
// look at those files again. `ibid add` ignores it and tries every file.

// skipsMax bounds the cache file read.
const skipsMax = 32 << 20

// skipped is a file a sync skipped, as it was then.
type skipped struct {
	Size   int64  `json:"size"`
	MTime  int64  `json:"mtime"`
	Reason string `json:"reason"`
}

// skipMemo is a library's memory of skipped files.
//
// Invariant: files maps absolute paths to what they were when skipped;
// path is where it is saved ("" for a library in memory).
type skipMemo struct {
	mu    sync.Mutex
	path  string
	files map[string]skipped
	dirty bool
}

// skipMemo returns the library's memory of skipped files, read from the
// cache on first use.
func (l *Library) skipMemo() *skipMemo {
	l.smu.Lock()
	defer l.smu.Unlock()
	if l.skips != nil {
		return l.skips
	}
	m := &skipMemo{files: map[string]skipped{}}
	if !l.InMemory() {
		sum := sha256.Sum256([]byte(l.loc + "\x00" + l.name))
		m.path = filepath.Join(xdg.CacheDir(), "sync", hex.EncodeToString(sum[:12])+".json")
		if b, err := regular.ReadFile(m.path, skipsMax); err == nil {
			if json.Unmarshal(b, &m.files) != nil {
				m.files = map[string]skipped{}
			}
		}
	}
	l.skips = m
	return m
}

// known reports whether the file at path was skipped as it is now (st).
func (m *skipMemo) known(path string, st fileStat) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.files[path]
	return ok && s.Size == st.size && s.MTime == st.mtime
}

// remember notes that the file at path, as st, was skipped for reason.
func (m *skipMemo) remember(path string, st fileStat, reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[path] = skipped{Size: st.size, MTime: st.mtime, Reason: reason}
	m.dirty = true
}

// save writes the memory to the cache when it changed, forgetting files
// that are gone. It is best effort: a cache that cannot be written only
// costs the next sync a look at those files.
func (m *skipMemo) save() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for p := range m.files {
		if _, err := os.Lstat(p); err != nil {
			delete(m.files, p)
			m.dirty = true
		}
	}
	if !m.dirty || m.path == "" {
		return
	}
	b, err := json.Marshal(m.files)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(m.path), 0o755) == nil && atomicfile.WriteFile(m.path, b, 0o644) == nil {
		m.dirty = false
	}
}

// rememberSkips puts the files the add skipped into the library's memory
// of skipped files, so that a sync of the roots they are under does not
// open them again while they are unchanged.
func (a *adder) rememberSkips() {
	if len(a.skipStats) == 0 {
		return
	}
	m := a.l.skipMemo()
	for _, s := range a.rep.Skipped {
		abs, err := filepath.Abs(s.Path)
		if err != nil {
			continue
		}
		if st, ok := a.skipStats[abs]; ok {
			m.remember(abs, st, s.Reason)
		}
	}
	m.save()
}
