package embedded

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/wire"
)

func putOf(id string, n, version int) store.Put {
	doc, segs := makeDoc(id, n, testInfo.Dimension, version)
	return store.Put{Document: doc, Segments: segs}
}

// sameDocs fails unless s holds exactly the documents of want (id → n
// segments, version), each whole.
func sameDocs(t testing.TB, s *Store, want map[string][2]int) {
	t.Helper()
	docs, err := s.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(want) {
		var ids []string
		for _, d := range docs {
			ids = append(ids, d.ID)
		}
		t.Fatalf("library holds %v, want %d documents %v", ids, len(want), want)
	}
	for id, w := range want {
		checkDoc(t, s, id, w[0], w[1])
	}
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	names, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range names {
		if de.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, de.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func flipByte(t testing.TB, path string, at int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[at] ^= 0x55
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t testing.TB, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// writeFormat1 writes a library of format 1 in dir holding puts, one
// record each, as ibid before format 2 did.
func writeFormat1(t testing.TB, dir string, puts []store.Put) {
	t.Helper()
	m := manifest{Format: 1, Embedder: testInfo.Embedder, Dimension: testInfo.Dimension, Generation: 1}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, manifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var log, vecs []byte
	row := 0
	for _, p := range puts {
		js, _ := json.Marshal(p.Document)
		pl := binary.AppendUvarint(nil, 1)
		pl = append(pl, opPut)
		pl = wire.AppendBytes(pl, js)
		pl = binary.AppendUvarint(pl, uint64(row))
		pl = binary.AppendUvarint(pl, uint64(len(p.Segments)))
		for _, s := range p.Segments {
			pl = append(pl, 0)
			pl = wire.AppendString(pl, s.Text)
			pl = binary.AppendUvarint(pl, uint64(len(s.Section)))
			for _, h := range s.Section {
				pl = wire.AppendString(pl, h)
			}
			for _, v := range []int{s.PageStart, s.PageEnd, s.Start, s.End} {
				pl = binary.AppendVarint(pl, int64(v))
			}
			vecs = append(vecs, floatBytes(s.Vector)...)
			row++
		}
		log = binary.LittleEndian.AppendUint32(log, uint32(len(pl)))
		log = binary.LittleEndian.AppendUint32(log, crc32.Checksum(pl, crcTable))
		log = append(log, pl...)
	}
	if err := os.WriteFile(filepath.Join(dir, logName(1)), log, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, vectorName(1)), vecs, 0o644); err != nil {
		t.Fatal(err)
	}
}
