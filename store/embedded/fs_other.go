//go:build !unix

package embedded

import "os"

// On systems without flock, writers of one library in two processes are not
// kept apart; the staleness check before each write still catches most cases.
func lockFile(f *os.File) error { return nil }

func unlockFile(f *os.File) error { return nil }

// syncDir is a no-op where folders cannot be opened for syncing.
func syncDir(dir string) error { return nil }
