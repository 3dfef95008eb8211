package pdftest

import (
	"os"
	"path/filepath"
	"testing"
)

// EngineCache is the folder where tests keep the PDF engine's compiled
// code (wazero's compilation cache of pdfium): one folder in the system's
// temporary directory shared by every test process, so pdfium is compiled
// once per machine rather than once per test (a compilation costs tens of
// seconds and hundreds of MB under the race detector). Entries are
// written by rename, so processes may share it.
func EngineCache() string { return filepath.Join(os.TempDir(), "ibid-ingest-test-wazero") }

// CacheHome returns a fresh folder for a test's XDG_CACHE_HOME whose
// ibid/wazero (where a library's PDF engine keeps its compiled code) is a
// link to EngineCache: the test's caches are its own but for pdfium's
// compiled code. Where links cannot be made, the folder is empty (the
// engine compiles pdfium in it).
func CacheHome(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	ShareEngineCache(home)
	return home
}

// ShareEngineCache links home/ibid/wazero (home an XDG_CACHE_HOME) to
// EngineCache; it does nothing when home/ibid/wazero exists or a link
// cannot be made.
func ShareEngineCache(home string) {
	dir := filepath.Join(home, "ibid", "wazero")
	if os.MkdirAll(EngineCache(), 0o755) != nil || os.MkdirAll(filepath.Dir(dir), 0o755) != nil {
		return
	}
	os.Symlink(EngineCache(), dir)
}
