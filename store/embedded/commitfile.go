package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ibid-dev/ibid/internal/regular"
)

// A generation's commit file, commit-N (format 4), records how far its
// log and vector file reached at the last commit, the library's counts
// then, and the manifest's facts (a third copy, after the manifest and the
// log's info records):
//
//	"ibC4" | uint32 format | uint32 dimension | uint64 generation |
//	uint64 log length | uint64 vector rows | uint64 documents |
//	uint64 segments | uint16 n | n bytes embedder | uint32 CRC-32C of all before
//
// all little-endian. A commit writes it after the log's record is synced,
// so it never claims more than the log holds: a log shorter than its
// commit file says, or a vector file with more rows than the log explains
// and no commit file to vouch for them, was cut or damaged, not left by a
// crash (see disk.checkMark). It is not synced at each commit: after a
// power cut it may tell an older commit, which is only less evidence. A
// new generation's commit file is written and synced with its other files,
// before the manifest switches to it; so a generation with a valid commit
// file is whole.
const markMagic = "ibC4"

// markMax bounds what is read of a commit file.
const markMax = 64 << 10

func markName(gen int) string { return fmt.Sprintf("commit-%06d", gen) }

// mark is what a commit file records.
type mark struct {
	man    manifest // Generation: the file's
	logEnd int64
	rows   int
	docs   int // live documents after the commit
	segs   int // live segments after the commit
}

func (m mark) encode() []byte {
	b := make([]byte, 0, 64+len(m.man.Embedder))
	b = append(b, markMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(m.man.Format))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.man.Dimension))
	for _, v := range [...]uint64{uint64(m.man.Generation), uint64(m.logEnd), uint64(m.rows), uint64(m.docs), uint64(m.segs)} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(m.man.Embedder)))
	b = append(b, m.man.Embedder...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

// errBadMark is a commit file that is not one.
var errBadMark = errors.New("not a commit record (damaged)")

func decodeMark(b []byte) (mark, error) {
	const fixed = 4 + 4 + 4 + 5*8 + 2
	if len(b) < fixed+4 || string(b[:4]) != markMagic {
		return mark{}, errBadMark
	}
	n := int(binary.LittleEndian.Uint16(b[fixed-2:]))
	if len(b) != fixed+n+4 || crc32.Checksum(b[:fixed+n], crcTable) != binary.LittleEndian.Uint32(b[fixed+n:]) {
		return mark{}, errBadMark
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[12+8*i:]) }
	for i := range 5 {
		if u(i) > 1<<50 {
			return mark{}, errBadMark
		}
	}
	m := mark{
		man: manifest{Format: int(binary.LittleEndian.Uint32(b[4:])), Dimension: int(binary.LittleEndian.Uint32(b[8:])),
			Generation: int(u(0)), Embedder: string(b[fixed : fixed+n])},
		logEnd: int64(u(1)), rows: int(u(2)), docs: int(u(3)), segs: int(u(4)),
	}
	if validInfo(m.man.info()) != nil || m.man.Generation < 1 || m.man.Format < 4 {
		return mark{}, errBadMark
	}
	return m, nil
}

// readMark reads generation gen's commit file in dir. A missing file is
// an error wrapping fs.ErrNotExist; one that does not decode, errBadMark
// (read again a few times first: a writer may be rewriting it this
// moment).
func readMark(dir string, gen int) (mark, error) {
	path := filepath.Join(dir, markName(gen))
	var err error
	for try := range 3 {
		var b []byte
		if b, err = regular.ReadFile(path, markMax); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return mark{}, err
			}
			return mark{}, fmt.Errorf("%w: %v", errBadMark, err)
		}
		var m mark
		if m, err = decodeMark(b); err == nil {
			if m.man.Generation != gen {
				return mark{}, fmt.Errorf("%w: it names generation %d", errBadMark, m.man.Generation)
			}
			return m, nil
		}
		time.Sleep(time.Duration(try+1) * time.Millisecond)
	}
	return mark{}, err
}

// writeMark records the commit that reached d.logEnd and d.rows, with the
// library's counts after it, in the current generation's commit file
// (opened with the log). A failure is not the commit's: the record is
// committed; the file is only evidence, and stays behind.
func (d *disk) writeMark(docs, segs int) {
	if d.mark == nil {
		return
	}
	b := mark{man: d.man, logEnd: d.logEnd, rows: d.rows, docs: docs, segs: segs}.encode()
	if _, err := d.mark.WriteAt(b, 0); err == nil {
		cutTo(d.mark, int64(len(b)))
	}
}

// createMark writes generation gen's commit file anew and syncs it, for a
// generation just written (compaction, repair).
func createMark(dir string, m mark) error {
	f, _, err := regular.OpenFile(filepath.Join(dir, markName(m.man.Generation)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(m.encode())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
