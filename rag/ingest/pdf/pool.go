package pdf

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
)

// The pdfium instances of the process. Starting pdfium costs about a
// second of CPU (wazero decodes and validates the 5 MB module even when
// its compiled code comes from the cache, then instantiates it), so it
// starts once per process, not once per Engine: every Engine with the
// same memory limit borrows instances from one shared pool, started by
// the first of them to read a PDF. A chat that switches libraries, a
// server with several, a test binary that opens a library per test pay
// for one start.
//
// Invariants: a pool, once started, lives as long as the process (an
// Engine's Close waits for its own work and leaves the pool to the
// next Engine; a PDF abandoned at its deadline may still be inside
// pdfium, so a pool is never closed under it). At most pdfWorkers
// instances exist per pool, whatever the number of Engines, so the
// memory pdfium takes is bounded per process. A pool that failed to start
// is forgotten: the next Engine tries again.
var pools = struct {
	sync.Mutex
	byLimit map[uint32]*sharedPool // by memory limit, in WebAssembly pages
}{byLimit: map[uint32]*sharedPool{}}

// sharedPool is one pool of pdfium instances, started once.
type sharedPool struct {
	once sync.Once
	pool pdfium.Pool
	err  error
}

// pdfWorkers bounds the number of pdfium instances of a pool (each holds
// its own WebAssembly memory, which grows with the document).
const pdfWorkers = 2

// sharedPoolFor returns the process's pool of instances limited to
// memPages, starting it on first use with the compilation cache in
// cacheDir (see NewEngine; a pool already started keeps the cache it
// started with).
func sharedPoolFor(memPages uint32, cacheDir string) (pdfium.Pool, error) {
	pools.Lock()
	p := pools.byLimit[memPages]
	if p == nil {
		p = &sharedPool{}
		pools.byLimit[memPages] = p
	}
	pools.Unlock()
	p.once.Do(func() { p.pool, p.err = startPool(memPages, cacheDir) })
	if p.err != nil {
		pools.Lock()
		if pools.byLimit[memPages] == p {
			delete(pools.byLimit, memPages)
		}
		pools.Unlock()
		return nil, p.err
	}
	return p.pool, nil
}

// startPool compiles the pdfium module (using the on-disk cache in
// cacheDir when there is one) and creates a pool whose instances may
// grow to memPages.
func startPool(memPages uint32, cacheDir string) (pdfium.Pool, error) {
	// The memory limit stops a decompression bomb before it takes the
	// machine. (WithCloseOnContextDone would let a deadline stop pdfium
	// inside a call, but it starts a goroutine on every call, which more
	// than doubles the cost of reading a page; extract abandons a PDF at
	// its deadline instead.)
	rc := wazero.NewRuntimeConfig().WithMemoryLimitPages(memPages)
	var cache wazero.CompilationCache
	if cacheDir != "" {
		c, err := wazero.NewCompilationCacheWithDir(cacheDir)
		if err == nil {
			cache = c
		}
		// A cache directory that cannot be used only costs time: fall
		// back to compiling in memory.
	}
	if cache == nil {
		cache = wazero.NewCompilationCache()
	}
	rc = rc.WithCompilationCache(cache)
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle:       1,
		MaxIdle:       pdfWorkers,
		MaxTotal:      pdfWorkers,
		ReuseWorkers:  true,
		RuntimeConfig: rc,
		FSConfig:      wazero.NewFSConfig(), // documents are passed as bytes; mount nothing
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
	if err != nil {
		cache.Close(context.Background())
		return nil, fmt.Errorf("%w: couldn't start pdfium: %w", ErrUnavailable, err)
	}
	// The cache holds the runtime's compiled code: it lives as long as
	// the pool, which is never closed.
	return pool, nil
}
