// Package mmap is memory outside the Go heap for a backend's large,
// long-lived arrays: anonymous mappings (the garbage collector neither
// scans them nor counts them towards its next cycle) and files mapped
// read-only (the page cache's own pages, nothing copied). Where the
// system has no mappings (not unix), Anon and File report that they
// refused and the caller allocates on the heap.
//
// Whoever maps owns the memory: Release it once no reader can reach it,
// and never release it twice.
package mmap
