package embedded

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Problem is one piece of damage found in a library's files.
type Problem struct {
	File   string // file name in the library folder
	Offset int64  // byte offset of the damage, -1 when it concerns the whole file
	Length int64  // bytes affected (0 when unknown)
	What   string // what is wrong and what was lost
}

func (p Problem) String() string {
	if p.Offset < 0 {
		return p.File + ": " + p.What
	}
	return fmt.Sprintf("%s at byte %d: %s", p.File, p.Offset, p.What)
}

// DamageError reports damage found in a library: records or vectors that
// fail their checksums with intact data after them, which a crash cannot
// explain. The library opens read-only with every intact record; nothing
// is truncated or removed until `ibid doctor --repair` (Repair) runs.
type DamageError struct {
	Dir      string
	Library  string // the library's name, for the hint ("" or "default": none needed)
	Problems []Problem
}

func (e *DamageError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "library in %s is damaged: ", e.Dir)
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		if i == 3 {
			fmt.Fprintf(&b, "and %d more", len(e.Problems)-3)
			break
		}
		b.WriteString(p.String())
	}
	b.WriteString(". It is open read-only with every intact record; run " + repairHint(e.Library) + " to rebuild it (damaged data is moved aside, never deleted)")
	return b.String()
}

// add records a problem, creating the error on the first one.
func (d *disk) addDamage(p Problem) {
	if d.damage == nil {
		d.damage = &DamageError{Dir: d.dir, Library: d.library}
	}
	d.damage.Problems = append(d.damage.Problems, p)
}

// The log is the commit, but not the only record of how much was
// committed: the generation's commit file (commitfile.go) says how far the
// log and the vector file reached at the last commit, and the vector file
// holds a row for every segment the log put. A crash leaves these in
// agreement, or leaves only what was never committed (a torn record at
// the log's end, vector rows written for a record that never was). Any
// other disagreement is a file cut short or damaged (a copy or a sync
// that did not finish, a file system that lost its tail): it is reported
// as damage, the library opens read-only, and nothing is cut, so that the
// next write cannot make the loss permanent. Those checks follow.

// checkCommitted compares what a replay of the current generation read
// (its log up to byte end, reaching rows vector rows) with the commit file
// as read before the replay (m, or merr). A commit file is written after
// its record is synced, so it never claims more than the log holds.
func (d *disk) checkCommitted(m mark, merr error, end int64, rows int) {
	if merr != nil {
		return // no evidence: an older library, or the file was lost (the next commit writes it)
	}
	if m.man.info() != d.man.info() {
		d.addDamage(Problem{File: manifestName, Offset: -1, What: fmt.Sprintf(
			"it says embedder %q (dimension %d), but %s says %q (dimension %d)",
			d.man.Embedder, d.man.Dimension, markName(d.man.Generation), m.man.Embedder, m.man.Dimension)})
	}
	if m.logEnd <= end && m.rows <= rows {
		return
	}
	what := fmt.Sprintf("the log's intact records end at byte %d, but %s records commits up to byte %d", end, markName(d.man.Generation), m.logEnd)
	if m.logEnd <= end {
		what = fmt.Sprintf("the log's intact records put %d vector rows, but %s records %d", rows, markName(d.man.Generation), m.rows)
	}
	d.addDamage(Problem{File: logName(d.man.Generation), Offset: end, Length: max(0, m.logEnd-end), What: what +
		": the log was cut short (a copy or sync that did not finish, or a disk that lost its end), and what was committed after it is missing " +
		"(put back a copy of the whole file if you have one)"})
	d.cut = true
}

// checkVectorTail compares the vector file's size (vsize bytes, -1 when
// there is none) with the rows the log commits. Rows past them are what
// a writer left when it died between syncing its vectors and its record,
// when the commit file (m, or merr) vouches that the log is whole; without
// that evidence they may be the vectors of commits the log lost, and are
// reported, never cut.
func (d *disk) checkVectorTail(m mark, merr error, rows int, vsize int64) {
	committed := int64(rows) * int64(d.man.Dimension) * 4
	if vsize <= committed || merr == nil || d.cut {
		return
	}
	why := "there is no commit file to say whether they were committed"
	if !errors.Is(merr, fs.ErrNotExist) {
		why = fmt.Sprintf("%s cannot be read (%v) to say whether they were committed", markName(d.man.Generation), merr)
	}
	d.addDamage(Problem{File: vectorName(d.man.Generation), Offset: committed, Length: vsize - committed, What: fmt.Sprintf(
		"it holds %d bytes past the %d rows the log commits, and %s: either a write was interrupted or the log lost its end (nothing was cut)",
		vsize-committed, rows, why)})
}
