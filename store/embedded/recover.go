package embedded

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The manifest holds the four facts a library cannot be read without: its
// format, embedder, dimension and generation. From format 4 they are kept
// in two more places, so that a damaged or lost manifest can be written
// again (`ibid doctor --repair`): the info record that starts each
// generation's log (or that the upgrade of an older library appended), and
// the generation's commit file. A library of format 3 or older that was
// never written since has neither; its manifest can then only be restored
// from a copy.

// ManifestError is a library folder whose manifest is damaged, or gone
// while the library's files remain. Nothing was changed; `ibid doctor
// --repair` rewrites the manifest from the second copy the library keeps.
type ManifestError struct {
	Dir     string
	Library string // the library's name, for the hint ("" or "default": none needed)
	Missing bool   // the manifest is gone (else it is damaged)
	Err     error  // what is wrong with it (damaged)
}

func (e *ManifestError) Error() string {
	what := fmt.Sprintf("library manifest %s is damaged (%v)", filepath.Join(e.Dir, manifestName), e.Err)
	if e.Missing {
		what = fmt.Sprintf("the library in %s has lost its %s, which names its embedder", e.Dir, manifestName)
	}
	return what + "; run " + repairHint(e.Library) + ", which writes it again from the copy the library's log keeps (nothing was changed)"
}

func (e *ManifestError) Unwrap() error { return e.Err }

// repairHint is the command that repairs library name.
func repairHint(name string) string {
	if name == "" || name == "default" {
		return "`ibid doctor --repair`"
	}
	return "`ibid doctor --library " + name + " --repair`"
}

// libraryFiles lists the generations that have files in dir (a log, a
// vector file or a commit file), in increasing order.
func libraryFiles(dir string) []int {
	seen := map[int]bool{}
	for glob, name := range map[string]func(int) string{"segments-*.log": logName, "vectors-*.f32": vectorName, "commit-*": markName} {
		names, _ := filepath.Glob(filepath.Join(dir, glob))
		for _, n := range names {
			base := filepath.Base(n)
			digits := strings.TrimFunc(strings.TrimSuffix(strings.TrimSuffix(base, ".log"), ".f32"), func(r rune) bool { return r < '0' || r > '9' })
			if g, err := strconv.Atoi(digits); err == nil && g > 0 && name(g) == base {
				seen[g] = true
			}
		}
	}
	out := make([]int, 0, len(seen))
	for g := range seen {
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// recoverManifest finds the manifest of the library in dir from the copies
// its files keep: that of the newest generation whose commit file is
// intact (written last, so that generation is whole), else that of the
// newest generation whose log holds an info record. from says which file
// it came from.
func recoverManifest(dir string) (m manifest, from string, err error) {
	gens := libraryFiles(dir)
	if len(gens) == 0 {
		return manifest{}, "", fmt.Errorf("the folder %s holds no library files", dir)
	}
	for _, g := range slices.Backward(gens) {
		if mk, err := readMark(dir, g); err == nil {
			return mk.man, markName(g), nil
		}
	}
	for _, g := range slices.Backward(gens) {
		if info, ok := logInfo(dir, g); ok {
			return info, logName(g), nil
		}
	}
	return manifest{}, "", errors.New("it has no second copy of its manifest (it was last written by an ibid older than format 4): " +
		"restore manifest.json from a copy, or move the folder away and add the documents again")
}

// copyOf is the copy of generation gen's manifest its commit file or, when
// that is not intact, its log keeps; from names the file.
func copyOf(dir string, gen int) (m manifest, from string, ok bool) {
	if mk, err := readMark(dir, gen); err == nil {
		return mk.man, markName(gen), true
	}
	if info, ok := logInfo(dir, gen); ok {
		return info, logName(gen), true
	}
	return manifest{}, "", false
}

// logInfo reads generation gen's log in dir for its last info record,
// which names that generation.
func logInfo(dir string, gen int) (manifest, bool) {
	if _, err := os.Stat(filepath.Join(dir, logName(gen))); errors.Is(err, fs.ErrNotExist) {
		return manifest{}, false
	}
	// Replay it as a format-4 log of gen; the embedder and dimension are
	// what it is to say (replay reads no vectors and records the info it
	// meets; what it finds damaged is not this question's).
	d := &disk{dir: dir, man: manifest{Format: formatVersion, Generation: gen, Embedder: "?", Dimension: 1}, readOnly: true}
	if _, _, err := d.replay(0, 0, map[string]*entry{}); err != nil || !d.hasInfo || d.info.Generation != gen {
		return manifest{}, false
	}
	d.info.Format = max(d.info.Format, formatVersion)
	return d.info, validInfo(d.info.info()) == nil
}
