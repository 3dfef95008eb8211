package embedded

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/synthvec"
)

var codesInfo = store.Info{Embedder: "clustered", Dimension: 32}

// codesLibrary makes a library past exactMax on disk (12 documents of 48
// searchable segments), in three batches (so the codes file holds blocks
// appended by several commits), and returns its folder with the answers
// to queries of a fresh open.
func codesLibrary(t *testing.T, seed uint64) (dir string, queries [][]float32, want [][]store.Hit) {
	t.Helper()
	dir = t.TempDir()
	s := mustOpen(t, dir, codesInfo)
	clusteredLibrary(t, s, synthvec.New(seed, codesInfo.Dimension, 20), 12, 50, 5)
	s.Close()
	s = mustOpen(t, dir, codesInfo)
	defer s.Close()
	if len(s.disk.codesMissing) != 0 || s.disk.codesBroken {
		t.Fatalf("a fresh library's codes file: %d documents without codes, broken %v", len(s.disk.codesMissing), s.disk.codesBroken)
	}
	sp := synthvec.New(seed+100, codesInfo.Dimension, 20)
	for range 8 {
		q := sp.Vector()
		hits, err := s.Dense(context.Background(), q, 10, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		queries, want = append(queries, q), append(want, hits)
	}
	return dir, queries, want
}

// sameAnswers fails unless s answers the queries exactly as want.
func sameAnswers(t *testing.T, s *Store, queries [][]float32, want [][]store.Hit) {
	t.Helper()
	if s.dense.exact {
		t.Fatal("on the exact path: the codes are not used")
	}
	for i, q := range queries {
		got, err := s.Dense(context.Background(), q, 10, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("query %d: %v\nwant %v", i, ids(got), ids(want[i]))
		}
	}
}

func ids(hits []store.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s %.6f", h.Segment.ID, h.Score))
	}
	return out
}

// A damaged, stale, cut or missing codes file is never used as it is: the
// codes it cannot vouch for are computed from the vectors, the answers
// are those of the intact library, the library is not reported damaged
// (the file is a cache), a read-only open changes nothing, and a writable
// open puts the file right, so that the next open computes nothing.
func TestCodesDamage(t *testing.T) {
	t.Parallel()
	dir, queries, want := codesLibrary(t, 1)
	name := codesName(1)
	intact, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	other, _, _ := codesLibrary(t, 2) // the same documents and rows, other vectors
	stale, err := os.ReadFile(filepath.Join(other, name))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(at float64) func([]byte) []byte {
		return func(b []byte) []byte {
			b = bytes.Clone(b)
			b[int(float64(len(b)-1)*at)] ^= 0x5a
			return b
		}
	}
	attacks := []struct {
		name   string
		damage func([]byte) []byte // nil: remove the file
	}{ // all but "garbage appended" hit codes in use
		{"deleted", nil},
		{"empty", func([]byte) []byte { return nil }},
		{"half", func(b []byte) []byte { return b[:len(b)/2] }},
		{"last byte cut", func(b []byte) []byte { return b[:len(b)-1] }},
		{"garbage appended", func(b []byte) []byte { return append(bytes.Clone(b), bytes.Repeat([]byte{0xa5}, 999)...) }},
		{"header flipped", flip(0)},
		{"first block header flipped", func(b []byte) []byte { b = bytes.Clone(b); b[codesHeader+9] ^= 1; return b }},
		{"flipped at 1%", flip(0.01)},
		{"flipped at 10%", flip(0.10)},
		{"flipped at 50%", flip(0.50)},
		{"flipped at 99%", flip(0.99)},
		{"of other vectors", func([]byte) []byte { return stale }},
		{"another dimension", func(b []byte) []byte {
			b = bytes.Clone(b)
			copy(b, codesFileHeader(codesInfo.Dimension*2))
			return b
		}},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			lib := copyDir(t, dir)
			path := filepath.Join(lib, name)
			if a.damage == nil {
				os.Remove(path)
			} else if err := os.WriteFile(path, a.damage(intact), 0o644); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)

			ro, err := OpenDir(context.Background(), lib, store.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := ro.Damage(); err != nil {
				t.Fatalf("read-only: %v", err)
			}
			if a.name != "garbage appended" && len(ro.disk.codesMissing) == 0 && !ro.disk.codesBroken {
				t.Fatal("read-only: every code was taken from the damaged file")
			}
			sameAnswers(t, ro, queries, want)
			ro.Close()
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
				t.Fatal("a read-only open changed the codes file")
			}

			s := mustOpen(t, lib, codesInfo)
			sameAnswers(t, s, queries, want)
			s.Close()

			again, err := OpenDir(context.Background(), lib, store.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if n := len(again.disk.codesMissing); n != 0 || again.disk.codesBroken {
				t.Fatalf("after a writable open, %d documents' codes still computed (broken %v)", n, again.disk.codesBroken)
			}
			sameAnswers(t, again, queries, want)
		})
	}
}

// A codes file cut anywhere in its last block (a crash while a writer
// appended it) costs that document's codes only, computed on open; the
// next writer appends after the last intact block, and the file is whole
// again.
func TestCodesTornAppend(t *testing.T) {
	t.Parallel()
	dir, queries, want := codesLibrary(t, 3)
	path := filepath.Join(dir, codesName(1))
	intact, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := len(intact) - blockHeader - codeBody(50, 32)
	for _, cut := range []int{last + 3, last + blockHeader, last + blockHeader + 77, len(intact) - 1} {
		lib := copyDir(t, dir)
		if err := os.WriteFile(filepath.Join(lib, codesName(1)), intact[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := OpenDir(context.Background(), lib, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.disk.codesMissing) != 1 {
			t.Fatalf("cut at %d: %d documents without codes, want 1", cut, len(s.disk.codesMissing))
		}
		sameAnswers(t, s, queries, want)
		s.Close()

		s = mustOpen(t, lib, codesInfo)
		doc, segs := makeDoc("late", 3, codesInfo.Dimension, 1)
		for i := range segs {
			segs[i].Vector = make([]float32, codesInfo.Dimension) // never a hit: the answers stay the intact library's
		}
		if err := s.Update(context.Background(), []store.Put{{Document: doc, Segments: segs}}, nil); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s, err = OpenDir(context.Background(), lib, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.disk.codesMissing) != 0 || s.disk.codesBroken {
			t.Fatalf("cut at %d, after a write: %d documents without codes", cut, len(s.disk.codesMissing))
		}
		sameAnswers(t, s, queries, want)
		s.Close()
	}
}

const envCodesChild = "IBID_EMBEDDED_CODES_CHILD"

// codesChild is the writer TestKillWhileAppendingCodes kills: it adds
// documents of clustered vectors to a library past exactMax, one commit
// each, printing each one it finished.
func codesChild() {
	dir := os.Getenv(envCodesChild)
	if dir == "" {
		return
	}
	ctx := context.Background()
	s, err := OpenDir(ctx, dir, store.Options{Info: codesInfo, Create: true})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	sp := synthvec.New(uint64(time.Now().UnixNano()), codesInfo.Dimension, 10)
	for i := 0; ; i++ {
		id := "k" + strconv.Itoa(i)
		segs := make([]store.Segment, 300)
		for j := range segs {
			segs[j] = store.Segment{ID: id + ":" + strconv.Itoa(j), DocumentID: id, Index: j, Text: "t", Vector: sp.Vector()}
		}
		if err := s.Update(ctx, []store.Put{{Document: store.Document{ID: id}, Segments: segs}}, nil); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("done", i)
	}
}

// TestKillWhileAppendingCodes kills a writer of a library past exactMax
// at random moments (between its commit record and its codes, among
// others): the reopened library is not damaged, holds every commit, and
// answers as the exact scan does, with codes from the file where the file
// has them.
func TestKillWhileAppendingCodes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 5))
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for round := range 4 {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), envCodesChild+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for n := 0; n < 3+r.IntN(4) && sc.Scan(); n++ { // 900 to 1,800 rows: past exactMax from the first round
			if !strings.HasPrefix(sc.Text(), "done ") {
				cmd.Process.Kill()
				t.Fatalf("child: %s", sc.Text())
			}
		}
		time.Sleep(time.Duration(r.IntN(3000)) * time.Microsecond)
		cmd.Process.Kill()
		cmd.Wait()

		s, err := OpenDir(context.Background(), dir, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Damage(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if s.dense.exact {
			s.Close()
			continue
		}
		if len(s.disk.codesMissing) > 1 || s.disk.codesBroken {
			t.Fatalf("round %d: %d documents without codes (broken %v): more than the one a kill can cut", round, len(s.disk.codesMissing), s.disk.codesBroken)
		}
		ref := newReference(t, s)
		sp := synthvec.New(uint64(round), codesInfo.Dimension, 10)
		found, total := 0, 0
		for range 10 {
			q := sp.Vector()
			got, err := s.Dense(context.Background(), q, 10, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			a, b := recall(t, got, ref.dense(q, 10, store.Filter{}), store.Filter{})
			found, total = found+a, total+b
		}
		if found < total*99/100 {
			t.Fatalf("round %d: recall %d of %d", round, found, total)
		}
		s.Close()
	}
}
