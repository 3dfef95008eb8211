package pdf

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/internal/cputime"
)

// densePage is one page of cols columns and rows rows of 2-point text,
// each cell a short word of its own (a dense table, or OCR word boxes):
// cols*rows text boxes.
func densePage(cols, rows int) *rawPage {
	const size, cell, line = 2, 12, 4
	p := &rawPage{width: float32(144 + cell*cols), height: float32(144 + line*rows)}
	obj := uint32(0)
	for r := range rows {
		y := p.height - 72 - float32(line*r)
		for c := range cols {
			obj++
			x := float32(72 + cell*c)
			for k, ch := range fmt.Sprintf("w%d", c%100) {
				x0 := x + float32(k)*1.2
				p.chars = append(p.chars, char{r: ch, x0: x0, x1: x0 + 1.2, y0: y, y1: y + size, size: size, obj: obj})
			}
			p.chars = append(p.chars, char{r: ' ', generated: true})
		}
		p.chars = append(p.chars, char{r: '\n', generated: true})
	}
	return p
}

// layoutCPU is the CPU time of laying out one dense page.
func layoutCPU(t *testing.T, cols, rows int) time.Duration {
	t.Helper()
	page := densePage(cols, rows)
	start := cputime.Process()
	d, err := readPaper(context.Background(), &extracted{Pages: []*rawPage{page}})
	took := cputime.Process() - start
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Blocks) == 0 {
		t.Fatal("no blocks")
	}
	return took
}

// Laying out a page grows near-linearly with its text boxes: a page of
// 8x the columns (on a page 8x as wide) costs well under 64x (the square)
// the CPU time. (Column detection compared every line with every point
// across the page and every gutter: 2,000 columns of 40 rows took half a
// minute.)
func TestDenseColumnsNearLinear(t *testing.T) {
	layoutCPU(t, 50, 40) // warm up
	small := layoutCPU(t, 100, 40)
	big := layoutCPU(t, 800, 40)
	t.Logf("100 columns: %v, 800 columns: %v (%.1fx)", small, big, float64(big)/float64(max(small, 1)))
	if big > 20*max(small, time.Millisecond) {
		t.Errorf("8x the text boxes took %.1fx the time (%v, %v): not near-linear", float64(big)/float64(small), small, big)
	}
}

// BenchmarkDenseColumns lays out one page of C columns x 40 rows of
// 2-point text and reports text boxes per second.
//
//	go test ./rag/ingest/pdf/ -run '^$' -bench DenseColumns
func BenchmarkDenseColumns(b *testing.B) {
	for _, cols := range []int{500, 2000} {
		b.Run(fmt.Sprint(cols), func(b *testing.B) {
			page := densePage(cols, 40)
			for b.Loop() {
				if _, err := readPaper(context.Background(), &extracted{Pages: []*rawPage{page}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cols*40*b.N)/b.Elapsed().Seconds(), "boxes/s")
		})
	}
}
