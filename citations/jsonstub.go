package citations

func newJSONStream(mode Mode, h Handler, opt Options) Stream { return NewRenumberer(h, opt) }
func (o *renderer) json(mode Mode, s string)                 { o.inline(s) }
