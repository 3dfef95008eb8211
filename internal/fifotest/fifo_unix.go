//go:build unix

package fifotest

import "syscall"

// Make makes a named pipe at path, readable and writable by its owner.
func Make(path string) error { return syscall.Mkfifo(path, 0o600) }
