package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/store"
)

// A library's settings (store.Settings: the folders it follows) live in
// settings.json in its folder, beside the manifest, apart from the log:
// they are not documents, they change seldom, and a reader wants them
// without replaying anything. The file is replaced whole, atomically
// (written aside, synced, renamed, the folder synced), by a writer that
// holds the library's lock, so that two processes adding folders at once
// cannot lose one another's; readers read it whole, without the lock.
// Compactions and repairs leave it alone; dropping the library drops it.
// A store in memory keeps its settings in memory.

const (
	settingsName = "settings.json"
	// settingsMax bounds the file read: every value at its limit would
	// not fit, but a library keeps a few small values.
	settingsMax = 16 << 20
)

var _ store.Settings = (*Store)(nil)

// Settings returns the library's settings.
func (s *Store) Settings(ctx context.Context) (map[string]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	closed, mem := s.closed, maps.Clone(s.mem)
	s.mu.RUnlock()
	if closed {
		return nil, store.ErrClosed
	}
	if s.disk == nil {
		if mem == nil {
			mem = map[string]string{}
		}
		return mem, nil
	}
	return readSettings(s.dir)
}

// SetSettings stores put and removes del in one atomic, durable change.
func (s *Store) SetSettings(ctx context.Context, put map[string]string, del []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.CheckSettings(put, del); err != nil {
		return err
	}
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.unlock()
	if s.isClosed() {
		return store.ErrClosed
	}
	d := s.disk
	if d == nil {
		s.mu.Lock()
		if s.mem == nil {
			s.mem = map[string]string{}
		}
		apply(s.mem, put, del)
		s.mu.Unlock()
		return nil
	}
	if !d.writable() {
		return fmt.Errorf("%w: library in %s", store.ErrReadOnly, d.dir)
	}
	if d.damage != nil {
		return fmt.Errorf("%w: %w", store.ErrReadOnly, d.damage)
	}
	unlock, err := d.lockFile(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := readSettings(d.dir)
	if err != nil {
		return err
	}
	apply(cur, put, del)
	b, err := json.MarshalIndent(cur, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(d.dir, settingsName), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("couldn't write library settings: %w", err)
	}
	return syncDir(d.dir)
}

// apply puts put into m and removes del from it.
func apply(m map[string]string, put map[string]string, del []string) {
	maps.Copy(m, put)
	for _, k := range del {
		delete(m, k)
	}
}

// readSettings reads the settings file of the library in dir; a library
// without one has none.
func readSettings(dir string) (map[string]string, error) {
	path := filepath.Join(dir, settingsName)
	b, err := regular.ReadFile(path, settingsMax)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't read library settings: %w", err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("library settings %s are damaged (%v): remove the file, then add the library's folders again (ibid add FOLDER); its documents are not affected", path, err)
	}
	return m, nil
}
