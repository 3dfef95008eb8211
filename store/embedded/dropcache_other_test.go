//go:build !linux

package embedded

// dropCache cannot drop a file's pages here; the cold figure is skipped.
func dropCache(dir string) bool { return false }
