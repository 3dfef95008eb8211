package keyword

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ibid-dev/ibid/internal/cputime"
	"github.com/ibid-dev/ibid/internal/shareddata"
)

// scifactTexts returns up to n SciFact abstracts (title and text), or skips.
func scifactTexts(tb testing.TB, n int) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join(shareddata.Dir(), "scifact", "corpus.jsonl"))
	if err != nil {
		tb.Skipf("no SciFact corpus: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && len(out) < n {
		var d struct{ Title, Text string }
		if json.Unmarshal(sc.Bytes(), &d) == nil {
			out = append(out, d.Title+"\n"+d.Text)
		}
	}
	return out
}

// BenchmarkTokenize analyses 1,000 SciFact abstracts an op. Besides the
// wall time it reports the process's CPU time an op (cpu-ms/op, garbage
// collection included), which depends less on what else a shared machine
// runs.
func BenchmarkTokenize(b *testing.B) { benchTokenize(b, Tokenize) }

func benchTokenize(b *testing.B, tokenize func(string) []string) {
	texts := scifactTexts(b, 1000)
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		for _, t := range texts {
			tokenize(t)
		}
	}
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
