package pdf

import "strings"

// ReferencesHeadings name a document's list of references in the languages
// ibid reads. A section under one of them, numbered or not ("References",
// "7 References": store.Filter.SkipHeadings), is the references: found
// when a search asks for them, left out of answers by default
// (retrieve.Options.References). Every format's headings count, not only
// a PDF's.
var ReferencesHeadings = []string{
	"References", "Reference", "Bibliography", "Works Cited", "Literature Cited",
	"References and Notes", "Notes and References",
	"Literatur", "Literaturverzeichnis", "Références", "Bibliographie",
	"Referencias", "Bibliografía", "Bibliografia", "Riferimenti bibliografici",
	"Referências", "Referências bibliográficas", "Список литературы", "Литература",
	"参考文献", "参考资料", "引用文献", "참고문헌",
}

// isReferencesHeading reports whether a lower-case heading is one of
// ReferencesHeadings.
func isReferencesHeading(lower string) bool {
	for _, h := range ReferencesHeadings {
		if strings.ToLower(h) == lower {
			return true
		}
	}
	return false
}
