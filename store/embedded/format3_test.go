package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/wire"
)

// testdata/format2 is a library written by ibid with formatVersion 2
// (commit d314200): puts of a (3 segments, version 1), b (5, 1), c (2, 1),
// a again (4, 2), then a delete of c, one record each, through makeDoc,
// put and Update as in these tests.
const format2Fixture = "testdata/format2"

// format2Docs is what the fixture holds: id → segments, version.
var format2Docs = map[string][2]int{"a": {4, 2}, "b": {5, 1}}

// boxedPut is document id with boxes on some of its segments (pages as
// makeDoc gives them: segment i covers pages i+1 and i+2).
func boxedPut(id string) store.Put {
	p := putOf(id, 3, 1)
	p.Segments[0].Boxes = []store.Box{{Page: 1, X0: 72.125, Y0: 1e-3, X1: 611.99, Y1: 700}, {Page: 2, X1: 10, Y1: 10}}
	p.Segments[2].Boxes = []store.Box{{Page: 4, X0: 0.1, Y0: 0.2, X1: 0.3, Y1: math.MaxFloat32}}
	return p
}

func readManifestFile(t testing.TB, dir string) manifest {
	t.Helper()
	m, _, ok, err := readManifest(dir)
	if err != nil || !ok {
		t.Fatalf("manifest of %s: %v, %v", dir, ok, err)
	}
	return m
}

// TestFormat2ReadOnly: a library of format 2 opened read-only is read as it
// is, and nothing in its folder changes.
func TestFormat2ReadOnly(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, format2Fixture)
	before := snapshot(t, dir)
	s, err := OpenDir(context.Background(), dir, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Damage(); err != nil {
		t.Fatal(err)
	}
	sameDocs(t, s, format2Docs)
	err = s.Update(context.Background(), []store.Put{boxedPut("x")}, nil)
	wantErr(t, err, store.ErrReadOnly)
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatalf("a read-only open changed the folder: %v", changed(before, after))
	}
}

// TestFormat2Upgrade: a library of format 2 opened writable is read as it
// is and stays format 2 until the first write, which replaces only its
// manifest (format 3) before appending; the old records are untouched and
// everything reads back identically, boxes included, after reopening.
func TestFormat2Upgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := copyDir(t, format2Fixture)
	oldLog, err := os.ReadFile(filepath.Join(dir, logName(1)))
	if err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, dir, testInfo)
	sameDocs(t, s, format2Docs)
	if m := readManifestFile(t, dir); m.Format != 2 {
		t.Fatalf("opening changed the format to %d", m.Format)
	}
	// Another process's reader, which read the manifest of format 2.
	r, err := OpenDir(ctx, dir, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	p := boxedPut("x")
	if err := s.Update(ctx, []store.Put{p}, nil); err != nil {
		t.Fatal(err)
	}
	m := readManifestFile(t, dir)
	if m.Format != formatVersion || m.Generation != 1 || s.disk.man != m {
		t.Fatalf("manifest after a write = %+v, store's %+v; want format %d, generation 1", m, s.disk.man, formatVersion)
	}
	newLog, err := os.ReadFile(filepath.Join(dir, logName(1)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(newLog, oldLog) || len(newLog) == len(oldLog) {
		t.Fatalf("the upgrade rewrote the log (%d bytes → %d) instead of appending", len(oldLog), len(newLog))
	}
	// What it appended starts with the manifest's second copy.
	if !bytes.HasPrefix(newLog[len(oldLog):], infoRecord(m)) {
		t.Fatalf("the upgrade appended no info record first: % x", newLog[len(oldLog):min(len(newLog), len(oldLog)+48)])
	}
	if mk, err := readMark(dir, 1); err != nil || mk.logEnd != int64(len(newLog)) || mk.docs != 3 {
		t.Fatalf("commit file after the write = %+v, %v; want the log's %d bytes and 3 documents", mk, err, len(newLog))
	}

	for _, st := range []*Store{s, r} { // the writer, and the reader that saw format 2
		if err := st.Damage(); err != nil {
			t.Fatal(err)
		}
		checkBoxed(t, st, p)
		for id, w := range format2Docs {
			checkDoc(t, st, id, w[0], w[1])
		}
	}
	s.Close()
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	checkBoxed(t, s, p)
	if n, _ := s.Len(ctx); n != 4+5+3 {
		t.Fatalf("Len = %d after reopening, want 12", n)
	}
	for id, w := range format2Docs {
		checkDoc(t, s, id, w[0], w[1])
	}
}

// checkBoxed fails unless s holds p's segments with their boxes exactly.
func checkBoxed(t testing.TB, s *Store, p store.Put) {
	t.Helper()
	segs, err := s.Segments(context.Background(), p.Document.ID, 0, -1)
	if err != nil || len(segs) != len(p.Segments) {
		t.Fatalf("Segments(%s) = %d, %v", p.Document.ID, len(segs), err)
	}
	for i, w := range p.Segments {
		w.Vector = nil
		if !reflect.DeepEqual(segs[i], w) {
			t.Fatalf("segment %s = %+v, want %+v", w.ID, segs[i], w)
		}
	}
}

// TestFormat2RecordsAreFormat3: the current writer, given what the
// fixture's writer was given (no boxes), writes the same log byte for byte.
func TestFormat2RecordsAreFormat3(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := mustOpen(t, dir, testInfo)
	put(t, s, "a", 3, 1)
	put(t, s, "b", 5, 1)
	put(t, s, "c", 2, 1)
	put(t, s, "a", 4, 2)
	if err := s.Update(context.Background(), nil, []string{"c"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	m := readManifestFile(t, dir)
	for _, name := range []string{logName(1), vectorName(1)} {
		got, err1 := os.ReadFile(filepath.Join(dir, name))
		want, err2 := os.ReadFile(filepath.Join(format2Fixture, name))
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		if name == logName(1) { // format 4 starts the log with the manifest's copy
			got, _ = bytes.CutPrefix(got, infoRecord(m))
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s differs from format 2's (%d bytes, want %d)", name, len(got), len(want))
		}
	}
	if m.Format != formatVersion {
		t.Fatalf("a new library has format %d", m.Format)
	}
}

// TestNewerFormat: a library of a format this ibid does not know is refused
// with a message that says so, and its folder is left alone.
func TestNewerFormat(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, format2Fixture)
	m := readManifestFile(t, dir)
	m.Format = formatVersion + 1
	if err := writeManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	for _, ro := range []bool{false, true} {
		_, err := OpenDir(context.Background(), dir, store.Options{ReadOnly: ro, Info: testInfo, Create: true})
		if err == nil || !strings.Contains(err.Error(), "written by a newer ibid") || !strings.Contains(err.Error(), fmt.Sprintf("format %d", formatVersion+1)) {
			t.Fatalf("read-only %v: error = %v", ro, err)
		}
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatalf("refusing changed the folder: %v", changed(before, after))
	}
}

// TestCompactKeepsBoxes: compaction rewrites boxes exactly, and a library
// converted from format 1 takes boxes.
func TestCompactKeepsBoxes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	writeFormat1(t, dir, []store.Put{putOf("a", 3, 1)})
	s := mustOpen(t, dir, testInfo)
	p := boxedPut("x")
	if err := s.Update(ctx, []store.Put{p}, nil); err != nil {
		t.Fatal(err)
	}
	if s.disk.man.Format != formatVersion || s.disk.man.Generation != 2 {
		t.Fatalf("format 1 converted to %+v", s.disk.man)
	}
	put(t, s, "a", 3, 2)
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	checkBoxed(t, s, p)
	s.Close()
	s = mustOpen(t, dir, testInfo)
	defer s.Close()
	checkBoxed(t, s, p)
	checkDoc(t, s, "a", 3, 2)
}

// TestBoxesCorrupt: a box count larger than the record can hold is
// corruption, found before anything is allocated for it; so are a flagged
// segment without boxes and, in format 3, a flag no format defines.
func TestBoxesCorrupt(t *testing.T) {
	doc, segs := makeDoc("bc", 1, 4, 1)
	segs[0].Boxes = []store.Box{{Page: 1, X1: 1, Y1: 1}}
	p, err := appendPut(binary.AppendUvarint(nil, 1), &doc, segs, []bool{false}, 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	body := p[1+opFrame:] // the payload is uvarint 1, the op's frame, the op
	// The op ends with the box count (1), the page (varint 1) and 16 bytes.
	countAt := len(body) - 18
	flagAt := bytes.Index(body, wire.AppendString(nil, segs[0].Text)) - 1
	if body[countAt] != 1 || body[countAt+1] != 2 || body[flagAt] != segBoxes {
		t.Fatalf("unexpected layout: count % x, flags %x", body[countAt:countAt+2], body[flagAt])
	}
	spliced := func(at int, with []byte, drop int) []byte {
		q := binary.AppendUvarint(nil, 1)
		q, start := beginOp(q)
		q = append(append(append(q, body[:at]...), with...), body[at+drop:]...)
		return endOp(q, start)
	}
	if _, err := decodePayload(spliced(0, nil, 0), formatVersion, nil); err != nil {
		t.Fatalf("the unspoiled op: %v", err)
	}
	cases := map[string][]byte{
		"huge count":     spliced(countAt, binary.AppendUvarint(nil, 1<<40), 1),
		"count too big":  spliced(countAt, []byte{2}, 1),
		"count of zero":  spliced(countAt, []byte{0}, len(body)-countAt),
		"undefined flag": spliced(flagAt, []byte{segBoxes | 8}, 1),
	}
	for name, pl := range cases {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err := decodePayload(pl, formatVersion, nil)
		runtime.ReadMemStats(&m1)
		if !errors.Is(err, wire.ErrCorrupt) {
			t.Errorf("%s: error = %v", name, err)
		}
		if n := m1.TotalAlloc - m0.TotalAlloc; n > 1<<16 {
			t.Errorf("%s: decoding allocated %d bytes", name, n)
		}
	}
}

// snapshot reads every file of dir.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range names {
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[de.Name()] = string(b)
	}
	return out
}

func changed(before, after map[string]string) []string {
	var out []string
	for k, v := range after {
		if w, ok := before[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, k+" (removed)")
		}
	}
	return out
}
