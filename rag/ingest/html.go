package ingest

import (
	"fmt"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlConverter converts HTML to Markdown as html-to-markdown does by
// default, and its tables to Markdown tables, a row to a line, so that a
// row is read (and chunked) whole.
var htmlConverter = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))

// parseHTML converts HTML to Markdown (html-to-markdown) and reads that as
// Markdown; the text, sections and offsets are the Markdown's. The
// <title> element, when present, is the title.
func parseHTML(path, s string) (*parsed, error) {
	root, err := html.Parse(strings.NewReader(s))
	if err != nil {
		if strings.Contains(err.Error(), "open stack of elements exceeds") {
			return nil, skip(path, "HTML nested more than 512 elements deep, which the HTML parser refuses; save the page as text to add it")
		}
		return nil, skip(path, "cannot parse HTML: %v", err)
	}
	title := htmlTitle(root)
	flattened := flattenDOM(root, 0)
	md, err := htmlConverter.ConvertNode(root)
	if err != nil {
		return nil, skip(path, "cannot convert HTML to Markdown: %v", err)
	}
	p := parseMarkdown(strings.ReplaceAll(string(md), "\r\n", "\n"))
	if title != "" {
		p.title = title
	}
	if flattened > 0 {
		p.notes = append(p.notes, fmt.Sprintf("flattened %d HTML element(s) nested more than %d deep", flattened, maxHTMLDepth))
	}
	return p, nil
}

// maxHTMLDepth is how deep HTML elements may nest before they are
// unwrapped (their children take their place): converting nested block
// quotes to Markdown costs the square of their depth.
const maxHTMLDepth = 32

// flattenDOM unwraps every element of n's subtree deeper than
// maxHTMLDepth (n is at depth), keeping its children in its place, and
// returns how many it unwrapped. Each node is visited once, however deep.
func flattenDOM(n *html.Node, depth int) int {
	count := 0
	for c := n.FirstChild; c != nil; {
		if c.Type == html.ElementNode && depth+1 > maxHTMLDepth {
			// Move c's children before c, then drop c; visit them next.
			first := c.FirstChild
			for gc := c.FirstChild; gc != nil; {
				next := gc.NextSibling
				c.RemoveChild(gc)
				n.InsertBefore(gc, c)
				gc = next
			}
			next := c.NextSibling
			n.RemoveChild(c)
			count++
			if first != nil {
				c = first
			} else {
				c = next
			}
			continue
		}
		count += flattenDOM(c, depth+1)
		c = c.NextSibling
	}
	return count
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
