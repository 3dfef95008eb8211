package ingest

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Expand turns command-line arguments into the files to load. An argument
// may be a file, a directory (walked recursively in lexical order, skipping
// hidden files and directories, whose names start with "."), or a glob
// pattern (filepath.Match syntax, matches in lexical order, hidden names
// only when the pattern starts with a dot; matched directories are walked
// too). Files are returned in argument order with
// duplicates (same absolute path) dropped, so the result is deterministic.
// Arguments that do not exist, cannot be read, match nothing, or are not
// regular files come back as SkipErrors; a file given by name is returned
// even if hidden.
func Expand(paths []string) (files []string, skipped []*SkipError) {
	seen := map[string]bool{}
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		if !seen[abs] {
			seen[abs] = true
			files = append(files, p)
		}
	}
	visit := func(p string, explicit bool) {
		info, err := os.Stat(p)
		if err != nil {
			skipped = append(skipped, skip(p, "%s", readReason(err)))
			return
		}
		switch {
		case info.Mode().IsRegular():
			add(p)
		case info.IsDir():
			walkDir(p, add, func(s *SkipError) { skipped = append(skipped, s) })
		default:
			if explicit {
				skipped = append(skipped, skip(p, "not a regular file"))
			}
		}
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil && hasMeta(p) {
			matches, gerr := filepath.Glob(p)
			if gerr != nil {
				skipped = append(skipped, skip(p, "bad pattern: %v", gerr))
				continue
			}
			if len(matches) == 0 {
				skipped = append(skipped, skip(p, "no files match this pattern"))
				continue
			}
			sort.Strings(matches)
			n := 0
			for _, m := range matches {
				// Like a shell, a wildcard does not match a leading dot.
				if strings.HasPrefix(filepath.Base(m), ".") && !strings.HasPrefix(filepath.Base(p), ".") {
					continue
				}
				n++
				visit(m, true)
			}
			if n == 0 {
				skipped = append(skipped, skip(p, "no files match this pattern"))
			}
			continue
		}
		visit(p, true)
	}
	return files, skipped
}

// walkDir visits dir recursively in lexical order, skipping hidden entries.
func walkDir(dir string, add func(string), report func(*SkipError)) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			report(skip(p, "%s", readReason(err)))
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.Type().IsRegular():
			add(p)
		case d.Type()&fs.ModeSymlink != 0:
			// Follow links to files; links to directories are not walked
			// (they can loop).
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
				add(p)
			}
		}
		return nil
	})
}

func hasMeta(p string) bool {
	return strings.ContainsAny(p, `*?[`)
}
