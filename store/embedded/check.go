package embedded

import (
	"context"
	"hash/crc32"
	"os"
	"slices"
	"sync/atomic"
)

// Checking vectors after the open.
//
// Every document's vectors carry a checksum in the log. A library whose
// vector file is larger than checkAtOpenMax does not read it all before
// Open returns: the codes (read from the codes file, whose blocks name the
// checksum of the vectors they were computed from) are all a query needs
// until its exact rescoring, and reading 3 GB of vectors to check them
// would make a million-segment library take seconds to open. Instead a
// background pass (one goroutine) reads the vectors of those documents in
// row order and checks them. Damage it finds is reported as soon as it is
// found: the library is loaded again with every vector checked, as a
// damaged one is at open (Damage names the documents, Update refuses with
// store.ErrReadOnly, Dense skips their segments).
//
// Invariants:
//   - No write starts before the pass of the generation it writes to has
//     ended (awaitCheck, called by lockCaughtUp): a write never copies or
//     extends vectors whose damage has not been looked for.
//   - Documents whose codes had to be computed at open, vectors that are
//     missing from a short file, the format 1 check (no checksums) and the
//     exact path's vectors (small libraries) are all checked during the
//     open, as before; so is every vector of a library under
//     checkAtOpenMax, and of `ibid doctor` (Check and Repair: checkAll).
//   - The pass also checks the codes the open took from the codes file
//     without checking them (mapped, see codes.go): codes that fail their
//     block's checksum are handled as damaged vectors are, by a load with
//     every vector and code checked, which computes those codes from the
//     vectors (the codes file is a cache: that is not damage).
//   - Until the pass reaches a damaged document, a query may rescore one of
//     its candidates with the damaged vectors, or pick candidates by its
//     damaged codes (their scores are still exact, from the vectors).
//   - The pass first checks what an open took from a snapshot (snapshot.go):
//     the log's records up to where the snapshot reaches; and the checksum
//     of a saved keyword index of keywordCheckLater bytes or more, which
//     the open decoded without it (keyword.LoadUnchecked). Either failing is
//     handled as damaged vectors are: the load with everything checked
//     replays the whole log (reporting damage if the log holds any) and
//     builds a damaged keyword index again (a cache: that is not damage).
//     Until then a keyword query may rank by damaged postings.

// checkAtOpenMax is the size of vector file (bytes) that a load checks
// whole before it returns; larger ones are checked in the background. A
// variable for tests.
var checkAtOpenMax int64 = 256 << 20

// checkGate, when set, holds every background pass that starts back
// until the channel is closed, before it reads anything; a variable for
// tests, which look at the view a pass is about to check.
var checkGate atomic.Pointer[chan struct{}]

// keywordCheckLater is the size of saved keyword index (bytes) from which
// a load leaves its checksum to the background pass; a variable for tests.
var keywordCheckLater int64 = 64 << 20

// span is one document's rows in the vector file and their checksum, and
// the codes the open took from the codes file without checking them
// (codes nil when it checked them) with the checksum their block records.
type span struct {
	row, n   int
	sum      uint32
	codes    []byte
	codesSum uint32
}

// vectorCheck is one background pass over the spans a load left
// unchecked, and the start of the log it took from a snapshot.
type vectorCheck struct {
	vf    *os.File // the vector file of the load (the store's vf while it is current)
	spans []span   // in row order
	lf    *os.File // the log of the load
	log   *logMark // the log's start the load took from a snapshot, nil if none
	// kwIntact checks the checksum of the saved keyword index the load
	// used without checking it (nil: none).
	kwIntact func() bool
	done     chan struct{}
	bad      atomic.Bool // a span or record failed its checksum or could not be read
	logOK    atomic.Bool // the log's records are checked and sound (set before done)
}

// startCheck starts the background pass over spans, the log's start up
// to log (nil: none) and the saved keyword index's checksum (kwIntact,
// nil: none) for the load that made s.vf current; the caller holds wsem.
func (s *Store) startCheck(spans []span, log *logMark, kwIntact func() bool) {
	if len(spans) == 0 && log == nil && kwIntact == nil {
		s.check = nil
		return
	}
	slices.SortFunc(spans, func(a, b span) int { return a.row - b.row })
	c := &vectorCheck{vf: s.vf, spans: spans, lf: s.lf, log: log, kwIntact: kwIntact, done: make(chan struct{})}
	c.logOK.Store(log == nil)
	s.check = c
	go s.runCheck(c)
}

// runCheck reads and checks c's log and spans until one fails, the store
// is closed or loads another view; on damage it loads the library again
// with every record and vector checked, unless a writer waiting in
// awaitCheck does.
func (s *Store) runCheck(c *vectorCheck) {
	if gate := checkGate.Load(); gate != nil {
		<-*gate
	}
	if c.log != nil && !s.logIntact(c) {
		s.mu.RLock()
		gone := s.closed || s.vf != c.vf || s.lf != c.lf
		s.mu.RUnlock()
		if gone {
			close(c.done)
			return
		}
		c.bad.Store(true)
	} else {
		c.logOK.Store(true)
	}
	if c.kwIntact != nil && !c.bad.Load() && !c.kwIntact() {
		c.bad.Store(true) // the load with everything checked builds the index again
	}
	dim := s.info.Dimension
	var buf []byte
	for _, sp := range c.spans {
		if c.bad.Load() {
			break
		}
		n := sp.n * dim * 4
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		b := buf[:n]
		s.mu.RLock()
		if s.closed || s.vf != c.vf {
			s.mu.RUnlock()
			close(c.done)
			return
		}
		k, _ := c.vf.ReadAt(b, vecOffset(sp.row, dim))
		codesOK := sp.codes == nil || s.codesIntact(sp)
		s.mu.RUnlock()
		if k != n || crc32.Checksum(b, crcTable) != sp.sum || !codesOK {
			c.bad.Store(true)
			break
		}
	}
	close(c.done)
	if !c.bad.Load() {
		return
	}
	if err := s.lock(context.Background()); err != nil {
		return
	}
	defer s.unlock()
	if !s.isClosed() {
		s.reloadIfBad(c)
	}
}

// logIntact reports whether c's log holds intact records from its start
// to where the snapshot says, the very records the snapshot was written
// from (their number and the digest of their checksums). A log closed
// under it (the view was replaced) fails too: the caller tells.
func (s *Store) logIntact(c *vectorCheck) bool {
	if c.lf == nil {
		return false
	}
	m, err := walkLog(c.lf, c.log.end, true)
	return err == nil && m.records == c.log.records && m.digest == c.log.digest && m.last == c.log.last
}

// codesIntact reports whether the codes the open mapped for sp pass their
// block's checksum; a codes file cut under the mapping fails it too. The
// caller holds mu.
func (s *Store) codesIntact(sp span) bool {
	var err error
	defer s.codesFault(&err)() // after a fault: false
	return crc32.Checksum(sp.codes, crcTable) == sp.codesSum
}

// awaitCheck waits for the background pass of the current view to end
// and, when it found damage that no one has loaded yet, loads the library
// again with every vector checked (then d.damage says what). The caller
// holds wsem.
func (s *Store) awaitCheck(ctx context.Context) error {
	c := s.check
	if c == nil {
		return nil
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.reloadIfBad(c)
}

// reloadIfBad loads the library again, every vector checked, when c found
// damage and is still the current view's pass. The caller holds wsem.
func (s *Store) reloadIfBad(c *vectorCheck) error {
	if s.check != c {
		return nil
	}
	s.check = nil
	if !c.bad.Load() {
		return nil
	}
	d := s.disk
	d.checkAll = true
	defer func() { d.checkAll = false }()
	return s.loadLocked()
}
