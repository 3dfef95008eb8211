package bib

import (
	"net/url"
	"strings"
)

// parseFileField reads a BibTeX file field in the spellings managers
// write:
//
//	Zotero:        {Full Text PDF:/home/u/Zotero/storage/AB12/Gao - 2023.pdf:application/pdf;Snapshot:…:text/html}
//	Better BibTeX: {/home/u/Zotero/storage/AB12/Gao - 2023.pdf;/…/snapshot.html}
//	JabRef:        {:papers/Gao2023.pdf:PDF} or {Preprint:C\:\\Users\\me\\gao.pdf:PDF}
//	Mendeley:      {:home/u/Documents/Mendeley Desktop/Gao - 2023.pdf:pdf} (the leading / dropped),
//	               {:C$\backslash$:/Users/me/gao.pdf:pdf} on Windows
//
// Files are separated by ';' and a file's description, path and type by
// ':'; a backslash escapes ':', ';' and itself (Zotero and JabRef escape
// them). Mendeley's $\backslash$ is a backslash. Paths are returned as
// written (relative ones are relative to the .bib's folder); a file://
// URL becomes its path.
func parseFileField(s string) []File {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	s = strings.ReplaceAll(s, `$\backslash$`, `\`)
	s = strings.ReplaceAll(s, `{\_}`, `_`)
	var files []File
	for _, item := range splitEscaped(s, ';') {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(item)), "file://") {
			if p := fileURLPath(strings.TrimSpace(item)); p != "" {
				files = append(files, File{Path: p})
			}
			continue
		}
		parts := splitEscaped(item, ':')
		for i := range parts {
			parts[i] = unescapeFile(parts[i])
		}
		var f File
		switch {
		case len(parts) == 1:
			f.Path = parts[0]
		case len(parts) == 2 && isDrive(parts[0], parts[1]):
			f.Path = parts[0] + ":" + parts[1] // an unescaped C:\… path
		case len(parts) == 2:
			f.Path, f.MIME = parts[0], parts[1]
			if looksLikeType(parts[0]) && !looksLikeType(parts[1]) {
				f.Path, f.MIME = parts[1], parts[0]
			}
		default:
			// description:path:type; an unescaped drive colon puts more
			// parts in the path.
			f.Description = parts[0]
			f.MIME = parts[len(parts)-1]
			f.Path = strings.Join(parts[1:len(parts)-1], ":")
		}
		f.Path = fileURLPath(strings.TrimSpace(accentGroups(f.Path)))
		f.MIME = strings.TrimSpace(f.MIME)
		f.Description = oneLine(f.Description)
		if f.Path != "" {
			files = append(files, f)
		}
	}
	return files
}

// accentGroups decodes the LaTeX accent groups Mendeley writes into file
// paths ("M{\"{u}}ller"), leaving the rest of the path as it is.
func accentGroups(s string) string {
	if !strings.Contains(s, `{\`) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, `{\`)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := skipGroup(s, i)
		b.WriteString(s[:i])
		b.WriteString(Latex(s[i:end]))
		s = s[end:]
	}
}

// splitEscaped splits s at sep where sep is not escaped by a backslash.
func splitEscaped(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// unescapeFile undoes the backslash escapes of a file field part (\: \;
// \\), leaving other backslashes, which are a Windows path's.
func unescapeFile(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == ':' || s[i+1] == ';' || s[i+1] == '\\') {
			b.WriteByte(s[i+1])
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isDrive reports whether a, b are the two sides of a Windows drive
// colon ("C", "\Users\…" or "/Users/…").
func isDrive(a, b string) bool {
	return len(a) == 1 && isASCIILetter(a[0]) && (strings.HasPrefix(b, `\`) || strings.HasPrefix(b, "/"))
}

// looksLikeType reports whether s reads as a file type (PDF,
// application/pdf, text/html) rather than a path.
func looksLikeType(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return false
	}
	switch s {
	case "pdf", "html", "txt", "md", "markdown", "epub", "djvu", "ps", "doc", "docx", "url":
		return true
	}
	t, sub, ok := strings.Cut(s, "/")
	return ok && !strings.Contains(sub, "/") && !strings.Contains(sub, ".") &&
		(t == "application" || t == "text" || t == "image")
}

// fileURLPath is the local path of a file:// URL, or s unchanged.
func fileURLPath(s string) string {
	if !strings.HasPrefix(strings.ToLower(s), "file:") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	p := u.Path
	if p == "" {
		p = u.Opaque
	}
	if len(p) > 2 && p[0] == '/' && p[2] == ':' { // file:///C:/Users/…
		p = p[1:]
	}
	return p
}
