package embedded

import (
	"fmt"
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
