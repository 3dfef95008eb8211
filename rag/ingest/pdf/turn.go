package pdf

// Text turned by a quarter is read in its own frame: the page turned so
// that the text is upright, where the layout's rules (lines, columns,
// paragraphs) hold as for any page. A page whose text is mostly turned (a
// landscape table set sideways on a portrait page, a page of a PDF whose
// text is all sideways) is laid out wholly in that frame; text turned
// another way on a page (the arXiv stamp in the margin, a rotated caption
// or table) is laid out in its frame and read after the page's text, as a
// float. Boxes are turned back to the page for the Document.

// frame is a page's characters that share one turn, in the frame where
// they read upright: raw's chars, figures and size are the frame's.
type frame struct {
	turn int8
	raw  *rawPage
}

// frames splits a page's characters by their turn. The turn most of the
// page's characters have comes first (the page's own frame; turn 0 on a
// tie or an empty page), then the others by turn. A space or line break
// pdfium generated goes with the character before it.
func frames(rp *rawPage) []frame {
	var count [4]int
	for _, c := range rp.chars {
		if !c.generated && !c.skew && !c.unmapped {
			count[c.turn&3]++
		}
	}
	main := int8(0)
	for t := int8(1); t < 4; t++ {
		if count[t] > count[main] {
			main = t
		}
	}
	if count[0]+count[1]+count[2]+count[3] == count[main] {
		return []frame{{main, turnPage(rp, main, rp.chars)}}
	}
	var by [4][]char
	cur := main
	for _, c := range rp.chars {
		if !c.generated {
			cur = c.turn & 3
		}
		by[cur] = append(by[cur], c)
	}
	out := []frame{{main, turnPage(rp, main, by[main])}}
	for t := int8(0); t < 4; t++ {
		if t != main && count[t] > 0 {
			out = append(out, frame{t, turnPage(rp, t, by[t])})
		}
	}
	return out
}

// turnPage is the page rp with chars, in the frame of turn.
func turnPage(rp *rawPage, turn int8, chars []char) *rawPage {
	if turn == 0 && len(chars) == len(rp.chars) {
		return rp
	}
	out := &rawPage{width: rp.width, height: rp.height, textObjects: rp.textObjects, headingObjs: rp.headingObjs}
	if turn%2 == 1 {
		out.width, out.height = rp.height, rp.width
	}
	out.chars = make([]char, len(chars))
	for i, c := range chars {
		if !c.generated {
			c.x0, c.y0, c.x1, c.y1 = toFrame(turn, rp.width, rp.height, c.x0, c.y0, c.x1, c.y1)
		}
		out.chars[i] = c
	}
	for _, f := range rp.figures {
		x0, y0, x1, y1 := toFrame(turn, rp.width, rp.height, f.x0, f.y0, f.x1, f.y1)
		out.figures = append(out.figures, region{x0, y0, x1, y1})
	}
	return out
}

// toFrame turns a box on a page of width w and height h (PDF points, y
// up) into the frame of text turned by turn quarters counter-clockwise:
// turned clockwise by as much, so that the text reads left to right and
// its lines go down.
func toFrame(turn int8, w, h, x0, y0, x1, y1 float32) (float32, float32, float32, float32) {
	switch turn & 3 {
	case 1:
		return y0, w - x1, y1, w - x0
	case 2:
		return w - x1, h - y1, w - x0, h - y0
	case 3:
		return h - y1, x0, h - y0, x1
	}
	return x0, y0, x1, y1
}

// fromFrame is toFrame's inverse: a box in the frame of turn back on the
// page of width w and height h.
func fromFrame(turn int8, w, h, x0, y0, x1, y1 float32) (float32, float32, float32, float32) {
	switch turn & 3 {
	case 1:
		return w - y1, x0, w - y0, x1
	case 2:
		return w - x1, h - y1, w - x0, h - y0
	case 3:
		return y0, h - x1, y1, h - x0
	}
	return x0, y0, x1, y1
}
