package store

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Settings is a Store that keeps a few named values for its library as a
// whole, apart from its documents: rag/library keeps there the folders
// and globs a library follows and the options they were added with, so
// that `ibid sync` and the chat's watcher know them wherever the library
// is opened. Keys are short names the caller chooses; values are opaque
// text (rag/library writes JSON).
//
// Invariants every backend keeps (store/storetest checks them):
//   - SetSettings is atomic and durable: when it returns, all of its puts
//     and deletes are kept, and after an error or a crash at any moment the
//     library holds all of them or none.
//   - Settings are not documents: Update, Documents, counts and searches
//     never see them, and SetSettings never changes a document.
//   - Another store on the same library (another process) sees them
//     without reopening; another library's are never seen; a dropped
//     library's are gone with it.
//   - A read-only store refuses SetSettings with an error wrapping
//     ErrReadOnly, a closed one with ErrClosed; a bad key or a value over
//     MaxSettingSize is refused and nothing changes.
//
// It is optional; a Store without it cannot remember folders (rag/library
// says so when asked to).
type Settings interface {
	// Settings returns every key and its value (an empty map when there
	// are none).
	Settings(ctx context.Context) (map[string]string, error)
	// SetSettings stores put (replacing the values of keys already there)
	// and removes del, in one atomic change. Removing a key that is not
	// there is no error; a key both put and removed is removed.
	SetSettings(ctx context.Context, put map[string]string, del []string) error
}

// Limits of Settings' keys and values.
const (
	MaxSettingKey  = 1024    // bytes of a key
	MaxSettingSize = 1 << 20 // bytes of a value
)

// CheckSettings says why a SetSettings call's keys or values cannot be
// stored: an empty key, one over MaxSettingKey bytes or not UTF-8 or
// holding a NUL, or a value over MaxSettingSize bytes or not UTF-8 or
// holding a NUL. Backends call it before they change anything.
func CheckSettings(put map[string]string, del []string) error {
	check := func(k string) error {
		switch {
		case k == "":
			return fmt.Errorf("a library setting needs a key")
		case len(k) > MaxSettingKey:
			return fmt.Errorf("library setting key %.40q… is longer than %d bytes", k, MaxSettingKey)
		case !utf8.ValidString(k) || strings.ContainsRune(k, 0):
			return fmt.Errorf("library setting key %q is not text", k)
		}
		return nil
	}
	for k, v := range put {
		if err := check(k); err != nil {
			return err
		}
		switch {
		case len(v) > MaxSettingSize:
			return fmt.Errorf("library setting %q: its value is %d bytes, more than %d", k, len(v), MaxSettingSize)
		case !utf8.ValidString(v) || strings.ContainsRune(v, 0):
			return fmt.Errorf("library setting %q: its value is not text", k)
		}
	}
	for _, k := range del {
		if err := check(k); err != nil {
			return err
		}
	}
	return nil
}
