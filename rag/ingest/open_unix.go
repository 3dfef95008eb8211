//go:build unix

package ingest

import "syscall"

// openFlags makes opening a named pipe return at once instead of waiting
// for a writer.
const openFlags = syscall.O_NONBLOCK
