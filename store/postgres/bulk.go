package postgres

import (
	"context"
	"sync"
	"time"
)

// Bulk loads defer the keyword index's upkeep. Inserting a chunk into the
// GIN index on terms costs about ten times what the rest of its COPY
// costs (a posting list for each of its terms), so a batch of at least
// bulkMin chunks writes its index entries to the index's pending list
// (GIN's fastupdate: unsorted, appended, part of the index, WAL-logged, so
// crash-safe and seen by every search), with the pending list's limit
// raised for that transaction so that no insert stops to merge it. Once
// the batch has committed, a merger (one per Store at a time) merges the
// pending list into the index in the background, with
// gin_clean_pending_list; Close waits for it. Searches are right
// throughout; until the merge ends they also read the pending list, which
// costs a keyword search more the longer the list is. Should the process
// end first, autovacuum merges what is left.
const (
	// pendingLimit is the pending list's limit in a bulk batch: larger than
	// any batch's entries, so that the merge is left to the merger.
	pendingLimit = "1GB"
	// mergeTimeout bounds one merge.
	mergeTimeout = 30 * time.Minute
)

// merger runs the background merges of a Store's keyword index.
//
// Invariant: at most one merge runs at a time; pending says one more is
// wanted after it (a bulk batch committed while it ran).
type merger struct {
	mu      sync.Mutex
	running bool
	pending bool
	done    sync.WaitGroup
}

// mergeSoon asks for the keyword index's pending list to be merged, in
// the background, after the bulk batch that just committed.
func (s *Store) mergeSoon() {
	m := &s.merge
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running {
		m.pending = true
		return
	}
	m.running = true
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), mergeTimeout)
			// An error leaves the entries pending: searches still see
			// them, and the next bulk batch or autovacuum merges them.
			s.pool.Exec(ctx, `SELECT gin_clean_pending_list($1::regclass)`, termsIndexName(s.chunks))
			cancel()
			m.mu.Lock()
			if !m.pending {
				m.running = false
				m.mu.Unlock()
				return
			}
			m.pending = false
			m.mu.Unlock()
		}
	}()
}

// MergeKeywordIndex waits until the merges of the keyword index that bulk
// loads left are done (for measurements and tools; Close waits too).
func (s *Store) MergeKeywordIndex() { s.merge.done.Wait() }
