package embedded

import (
	"os"

	"github.com/ibid-dev/ibid/store/internal/mmap"
)

// view is what the entries of a load refer to outside the heap: the
// vector file their rows lie in, the log their texts lie in, and the
// memory their codes lie in. The Store holds the view of its entries and
// is its one owner: release closes and frees it all, once no reader can
// reach those entries (a new load replaced them, or Close). A compaction
// replaces the files (the entries' new rows and texts lie in the new
// generation's) but keeps the codes' memory. nil files: a store in memory
// only, or a library not written yet.
type view struct {
	vf, lf *os.File
	codes  codeMemory
}

// release closes v's files and frees its codes' memory.
func (v view) release() {
	closeFile(v.vf)
	closeFile(v.lf)
	v.codes.release()
}

// codeMemory is the memory outside the heap that a load's entries keep
// their codes in: an anonymous mapping (codes computed at open) and the
// codes file mapped read-only (codes read from it); nil where there is
// none, or the codes are on the heap. It outlives a compaction (the
// entries keep their codes) and is released once no reader can reach the
// entries of the load: after the next load, or by Close.
type codeMemory struct {
	anon, file []byte
}

func (m codeMemory) release() {
	if m.anon != nil {
		mmap.Release(m.anon)
	}
	if m.file != nil {
		mmap.Release(m.file)
	}
}
