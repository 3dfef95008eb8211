package render

import (
	"fmt"
	"image/color"

	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
)

// Palette is the colours answers are drawn in: the chat's theme's, so
// that Markdown text meets the same contrast as the rest of the chat.
type Palette struct {
	Dark   bool        // glamour's dark layout (else its light one)
	Text   color.Color // body text
	Dim    color.Color // quotes, rules, the smallest headings, HTML
	Accent color.Color // headings and links
	SelFg  color.Color // a first-level heading, on SelBg
	SelBg  color.Color
	CodeBg color.Color // behind code spans
}

// Style is glamour's style for answers, coloured from p (glamour's own
// palettes put light links, quotes and code on white): glamour's light or
// dark layout, with every colour taken from p. Code blocks are drawn
// without syntax colouring, which no palette can keep readable on every
// background.
func Style(th Palette) ansi.StyleConfig {
	cfg := styles.LightStyleConfig
	if th.Dark {
		cfg = styles.DarkStyleConfig
	}
	c := func(col color.Color) *string {
		r, g, b, _ := col.RGBA()
		s := fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
		return &s
	}
	text, dim, accent, code := c(th.Text), c(th.Dim), c(th.Accent), c(th.CodeBg)

	var zero uint
	cfg.Document.Margin = &zero
	cfg.Document.BlockPrefix, cfg.Document.BlockSuffix = "", ""
	cfg.Document.Color = text
	cfg.Paragraph.Color = nil
	cfg.BlockQuote.Color = dim
	cfg.Heading.Color = accent
	cfg.H1.Color, cfg.H1.BackgroundColor = c(th.SelFg), c(th.SelBg)
	for _, h := range []*ansi.StyleBlock{&cfg.H2, &cfg.H3, &cfg.H4, &cfg.H5, &cfg.H6} {
		h.Color, h.BackgroundColor = nil, nil
	}
	cfg.H6.Color = dim
	cfg.Text.Color = nil
	cfg.Strikethrough.Color, cfg.Emph.Color, cfg.Strong.Color = nil, nil, nil
	cfg.HorizontalRule.Color = dim
	cfg.Item.Color, cfg.Enumeration.Color = nil, nil
	cfg.Link.Color, cfg.LinkText.Color = accent, accent
	cfg.Image.Color, cfg.ImageText.Color = accent, dim
	cfg.Code.Color, cfg.Code.BackgroundColor = text, code
	cfg.CodeBlock.Color, cfg.CodeBlock.BackgroundColor = text, nil
	cfg.CodeBlock.Chroma, cfg.CodeBlock.Theme = nil, ""
	cfg.Table.Color = nil
	cfg.DefinitionTerm.Color, cfg.DefinitionDescription.Color = nil, nil
	cfg.HTMLBlock.Color, cfg.HTMLSpan.Color = dim, dim
	return cfg
}
