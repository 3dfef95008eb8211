//go:build !unix

package ingest

// openFlags: outside Unix, opening does not wait on named pipes.
const openFlags = 0
