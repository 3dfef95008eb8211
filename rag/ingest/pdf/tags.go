package pdf

import (
	"strings"
	"unicode/utf16"
)

// headingTags maps the structure types of a tagged PDF that mark
// headings to their depth.
var headingTags = map[string]int{"H": 1, "H1": 1, "H2": 2, "H3": 3, "H4": 4, "H5": 5, "H6": 6, "Title": 1}

// readTags reads a tagged page's structure tree and returns, for each
// marked-content id that a heading element owns, the heading's depth;
// nil when the page is not tagged or has no headings.
func (w *wasmDoc) readTags(page uint64) (map[int32]int, error) {
	tree, err := w.call("FPDF_StructTree_GetForPage", page)
	if err != nil || uint32(tree) == 0 {
		return nil, err
	}
	defer w.call("FPDF_StructTree_Close", tree)
	n, err := w.call("FPDF_StructTree_CountChildren", tree)
	if err != nil {
		return nil, err
	}
	levels := map[int32]int{}
	for i := 0; i < int(int32(n)); i++ {
		el, err := w.call("FPDF_StructTree_GetChildAtIndex", tree, uint64(i))
		if err != nil {
			return nil, err
		}
		if err := w.walkTag(el, 0, levels, 0); err != nil {
			return nil, err
		}
	}
	if len(levels) == 0 {
		return nil, nil
	}
	return levels, nil
}

// walkTag records the marked-content ids under element el, with level the
// depth of the nearest heading above (0 for none).
func (w *wasmDoc) walkTag(el uint64, level int, levels map[int32]int, depth int) error {
	if uint32(el) == 0 || depth > 64 {
		return nil
	}
	if t, err := w.tagType(el); err != nil {
		return err
	} else if l, ok := headingTags[t]; ok {
		level = l
	}
	if level > 0 {
		cnt, err := w.call("FPDF_StructElement_GetMarkedContentIdCount", el)
		if err != nil {
			return err
		}
		for k := 0; k < int(int32(cnt)); k++ {
			id, err := w.call("FPDF_StructElement_GetMarkedContentIdAtIndex", el, uint64(k))
			if err != nil {
				return err
			}
			if int32(id) >= 0 {
				levels[int32(id)] = level
			}
		}
	}
	n, err := w.call("FPDF_StructElement_CountChildren", el)
	if err != nil {
		return err
	}
	for i := 0; i < int(int32(n)); i++ {
		c, err := w.call("FPDF_StructElement_GetChildAtIndex", el, uint64(i))
		if err != nil {
			return err
		}
		if err := w.walkTag(c, level, levels, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// tagType is a structure element's type ("H1", "P"), at most 23
// characters.
func (w *wasmDoc) tagType(el uint64) (string, error) {
	const at, size = 16, 48
	n, err := w.call("FPDF_StructElement_GetType", el, uint64(w.scratch+at), size)
	if err != nil || n == 0 || n > size {
		return "", err
	}
	b, _ := w.mod.Memory().Read(w.scratch+at, uint32(n))
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
	}
	return strings.TrimRight(string(utf16.Decode(u)), "\x00"), nil
}
