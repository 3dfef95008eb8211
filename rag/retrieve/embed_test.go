package retrieve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

const localGolden = "8:-0.0400 15:0.0400 22:-0.0458"

// fingerprint names a vector's first three non-zero entries.
func fingerprint(v []float32) string {
	var parts []string
	for i, x := range v {
		if x != 0 && len(parts) < 3 {
			parts = append(parts, fmt.Sprintf("%d:%.4f", i, x))
		}
	}
	return strings.Join(parts, " ")
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestLocalEmbedder(t *testing.T) {
	e := NewLocalEmbedder()
	if e.Name() != "local-hash-v1/384" || e.Dimension() != 384 {
		t.Fatalf("Name %q, Dimension %d", e.Name(), e.Dimension())
	}
	texts := []string{
		"Machine learning for protein structure prediction.",
		"機械学習によるタンパク質構造予測",
		"机器学习的方法",
		"机器学习方法研究",
		"今天天气很好",
		"",
	}
	a, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewLocalEmbedder().Embed(context.Background(), slices.Clone(texts))
	for i := range texts {
		if len(a[i]) != e.Dimension() {
			t.Fatalf("vector %d has length %d", i, len(a[i]))
		}
		if !slices.Equal(a[i], b[i]) {
			t.Errorf("text %d: not deterministic", i)
		}
		norm := math.Sqrt(cosine(a[i], a[i]))
		if texts[i] == "" {
			if norm != 0 {
				t.Errorf("empty text: norm %v, want 0", norm)
			}
		} else if math.Abs(norm-1) > 1e-5 {
			t.Errorf("text %d: norm %v", i, norm)
		}
	}
	// Fixed values guard against a hash that changes between runs or
	// versions (libraries store these vectors).
	if got := fingerprint(a[0]); got != localGolden {
		t.Errorf("vector 0 starts %s, want %s: the local embedder changed; rename it (local-hash-v2) so old libraries are refused", got, localGolden)
	}
	if sim, other := cosine(a[2], a[3]), cosine(a[2], a[4]); sim < 0.3 || sim <= other+0.2 {
		t.Errorf("Chinese: similar texts %.3f, unrelated %.3f", sim, other)
	}
	// Partial words match: "structural" shares trigrams with "structure".
	c, _ := e.Embed(context.Background(), []string{"structural predictions", "weather today"})
	if cosine(a[0], c[0]) <= cosine(a[0], c[1]) {
		t.Errorf("related English %.3f not above unrelated %.3f", cosine(a[0], c[0]), cosine(a[0], c[1]))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, texts); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Embed: %v", err)
	}
}
