package ingest

import (
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// parseHTML converts HTML to Markdown (html-to-markdown) and reads that as
// Markdown; the text, sections and offsets are the Markdown's. The
// <title> element, when present, is the title.
func parseHTML(path, s string) (*parsed, error) {
	root, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return nil, skip(path, "cannot parse HTML: %v", err)
	}
	title := htmlTitle(root)
	md, err := htmltomarkdown.ConvertNode(root)
	if err != nil {
		return nil, skip(path, "cannot convert HTML to Markdown: %v", err)
	}
	p := parseMarkdown(strings.ReplaceAll(string(md), "\r\n", "\n"))
	if title != "" {
		p.title = title
	}
	return p, nil
}

func htmlTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	if n.Type == html.ElementNode && n.DataAtom == atom.Body {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := htmlTitle(c); t != "" {
			return t
		}
	}
	return ""
}
