package storetest

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/ibid-dev/ibid/store"
)

// Vector is the deterministic, unit-length vector of segment i of the
// document seed names, for tests of any backend.
func Vector(seed string, i, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(seed))
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(i)))
	v := make([]float32, dim)
	var sum float64
	for j := range v {
		v[j] = float32(r.NormFloat64())
		sum += float64(v[j]) * float64(v[j])
	}
	n := math.Sqrt(sum)
	for j := range v {
		v[j] = float32(float64(v[j]) / n)
	}
	return v
}

// doc builds document id, version v, with n segments whose texts, pages,
// sections and vectors follow from id, v and their index.
func doc(id string, n, v int) store.Put {
	d := store.Document{ID: id, Path: "/papers/" + id + ".pdf", Hash: "h-" + id + "-" + strconv.Itoa(v), Title: "Paper " + id,
		Format: store.FormatPDF, Pages: n + 1, Added: 1700000000, Meta: map[string]string{"v": strconv.Itoa(v)}}
	segs := make([]store.Segment, n)
	for i := range segs {
		segs[i] = store.Segment{
			ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i,
			Text:      segText(id, i, v),
			Section:   []string{"Part " + strconv.Itoa(i%3)},
			PageStart: i + 1, PageEnd: i + 1, Start: i * 100, End: i*100 + 99,
			Vector: Vector(id+"/"+strconv.Itoa(v), i, testInfo.Dimension),
		}
	}
	return store.Put{Document: d, Segments: segs}
}

func segText(id string, i, v int) string {
	return fmt.Sprintf("segment %d of %s version %d", i, id, v)
}

// custom builds a document from texts, with one segment per text, the
// given path, sections and pages (nil: none).
func custom(id, path string, texts []string, sections [][]string, pages [][2]int) store.Put {
	d := store.Document{ID: id, Path: path, Hash: "h-" + id, Format: store.FormatText}
	segs := make([]store.Segment, len(texts))
	for i, t := range texts {
		segs[i] = store.Segment{ID: id + ":" + strconv.Itoa(i), DocumentID: id, Index: i, Text: t,
			Vector: Vector(id, i, testInfo.Dimension)}
		if sections != nil {
			segs[i].Section = sections[i]
		}
		if pages != nil {
			segs[i].PageStart, segs[i].PageEnd = pages[i][0], pages[i][1]
		}
	}
	return store.Put{Document: d, Segments: segs}
}
