package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doctorLibrary adds the test notes to library name, one add per file (one
// commit each), and returns the library's folder and the notes' folder.
func doctorLibrary(t *testing.T, name string) (dir, docs string) {
	t.Helper()
	docs = cmdEnv(t)
	for _, f := range []string{"tides.md", "bread.txt"} {
		if code, out, errs := runCmd(t, "add", "--library", name, filepath.Join(docs, f)); code != 0 {
			t.Fatalf("add %s: %d\n%s\n%s", f, code, out, errs)
		}
	}
	return filepath.Join(os.Getenv("XDG_DATA_HOME"), "ibid", "libraries", name), docs
}

func only(t *testing.T, dir, glob string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, glob))
	if len(m) != 1 {
		t.Fatalf("%s in %s: %v", glob, dir, m)
	}
	return m[0]
}

// TestCmdDoctorCutLog: a log cut short is no longer accepted in silence:
// every command warns (naming the library in the repair hint), doctor says
// what is lost and exits 1, add refuses and leaves the files alone, and
// doctor --repair keeps what is readable and says what is lost, counting
// each document once.
func TestCmdDoctorCutLog(t *testing.T) {
	dir, docs := doctorLibrary(t, "thesis")
	log := only(t, dir, "segments-*.log")
	fi, _ := os.Stat(log)
	if err := os.Truncate(log, fi.Size()-10); err != nil { // into the last record
		t.Fatal(err)
	}
	vec := only(t, dir, "vectors-*.f32")
	vecBefore, _ := os.Stat(vec)

	code, _, errs := runCmd(t, "ls", "--library", "thesis")
	if code != 0 || !strings.Contains(errs, "cut short") || !strings.Contains(errs, "ibid doctor --library thesis --repair") {
		t.Fatalf("ls of a cut library: %d\n%s", code, errs)
	}
	code, out, errs := runCmd(t, "doctor", "--library", "thesis")
	if code != 1 || !strings.Contains(out, "is damaged") || !strings.Contains(out, "1 document lost") ||
		strings.Contains(out, "healthy") || !strings.Contains(errs, "ibid doctor --library thesis --repair") {
		t.Fatalf("doctor: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := runCmd(t, "add", "--library", "thesis", docs); code == 0 {
		t.Fatalf("add to a library whose log was cut succeeded:\n%s\n%s", out, errs)
	}
	if fi, _ := os.Stat(vec); fi.Size() != vecBefore.Size() {
		t.Fatalf("the vector file went from %d to %d bytes", vecBefore.Size(), fi.Size())
	}
	code, out, errs = runCmd(t, "doctor", "--library", "thesis", "--repair")
	if code != 0 || !strings.Contains(out, "repaired") || !strings.Contains(out, "1 document lost") ||
		!strings.Contains(out, "damaged files moved to") {
		t.Fatalf("doctor --repair: %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runCmd(t, "doctor", "--library", "thesis")
	if code != 0 || !strings.Contains(out, `library "thesis" is healthy: 1 document`) {
		t.Fatalf("doctor after the repair: %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "add", "--library", "thesis", docs)
	if code != 0 || !strings.Contains(out, "1 added, 1 unchanged") {
		t.Fatalf("adding the lost document again: %d\n%s", code, out)
	}
}

// TestCmdDoctorCutManifest: a manifest cut to 20 bytes is written again by
// doctor --repair from the copy the log keeps.
func TestCmdDoctorCutManifest(t *testing.T) {
	dir, _ := doctorLibrary(t, "default")
	if err := os.Truncate(filepath.Join(dir, "manifest.json"), 20); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd(t, "ls")
	if code == 0 || !strings.Contains(errs, "ibid doctor --repair") || strings.Contains(errs, "--library") {
		t.Fatalf("ls: %d\n%s", code, errs)
	}
	code, out, _ := runCmd(t, "doctor")
	if code != 1 || !strings.Contains(out, "manifest.json: it is damaged") || !strings.Contains(out, "2 documents") {
		t.Fatalf("doctor: %d\n%s", code, out)
	}
	code, out, errs = runCmd(t, "doctor", "--repair")
	if code != 0 || !strings.Contains(out, "repaired: 2 documents") {
		t.Fatalf("doctor --repair: %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runCmd(t, "search", "-k", "1", "why does sourdough rise")
	if code != 0 || !strings.Contains(out, "Sourdough bread rises") {
		t.Fatalf("search after the repair: %d\n%s", code, out)
	}
}

// TestCmdDoctorReembeds: a vector file zeroed or deleted costs no document:
// doctor --repair embeds the texts again at once (the local embedder), and
// dense search finds them.
func TestCmdDoctorReembeds(t *testing.T) {
	for _, how := range []string{"zeroed", "deleted"} {
		t.Run(how, func(t *testing.T) {
			dir, _ := doctorLibrary(t, "default")
			vec := only(t, dir, "vectors-*.f32")
			if how == "deleted" {
				os.Remove(vec)
			} else {
				fi, _ := os.Stat(vec)
				os.WriteFile(vec, make([]byte, fi.Size()), 0o644)
			}
			code, out, _ := runCmd(t, "doctor")
			if code != 1 || !strings.Contains(out, "2 documents, 2 segments (2 without vectors)") || strings.Contains(out, "lost") {
				t.Fatalf("doctor: %d\n%s", code, out)
			}
			code, out, errs := runCmd(t, "doctor", "--repair")
			if code != 0 || !strings.Contains(out, "embedded 2 documents again") || !strings.Contains(errs, "2/2 documents, 2/2 segments") {
				t.Fatalf("doctor --repair: %d\n%s\n%s", code, out, errs)
			}
			code, out, _ = runCmd(t, "doctor")
			if code != 0 || !strings.Contains(out, "is healthy: 2 documents, 2 segments (") {
				t.Fatalf("doctor after the repair: %d\n%s", code, out)
			}
			code, out, _ = runCmd(t, "search", "-k", "1", "moon gravity bulges")
			if code != 0 || !strings.Contains(out, "tidal bulges") {
				t.Fatalf("search after the repair: %d\n%s", code, out)
			}
		})
	}
}

// TestCmdDoctorReembedsRemote: a library built through an embeddings
// endpoint embeds its texts again through it, with progress; without the
// endpoint's model named, --repair keeps the texts and says how to finish.
func TestCmdDoctorReembedsRemote(t *testing.T) {
	docs := cmdEnv(t)
	srv, calls := fakeEmbeddings(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	if code, out, errs := runCmd(t, "add", "--embed-model", "fake-embed", docs); code != 0 {
		t.Fatalf("add: %d\n%s\n%s", code, out, errs)
	}
	dir := filepath.Join(os.Getenv("XDG_DATA_HOME"), "ibid", "libraries", "default")
	os.Remove(only(t, dir, "vectors-*.f32"))

	code, out, errs := runCmd(t, "doctor", "--repair")
	if code == 0 || !strings.Contains(out, "2 documents keep their text") || !strings.Contains(errs, "--embed-model fake-embed") ||
		!strings.Contains(errs, "ibid doctor --repair again") {
		t.Fatalf("doctor --repair without the endpoint's model: %d\n%s\n%s", code, out, errs)
	}
	before := calls.Load()
	code, out, errs = runCmd(t, "doctor", "--repair", "--embed-model", "fake-embed")
	if code != 0 || !strings.Contains(out, "embedded 2 documents again with openai:fake-embed") ||
		!strings.Contains(errs, "embedding again with openai:fake-embed: 0/2 documents") || calls.Load() == before {
		t.Fatalf("doctor --repair with it: %d, %d requests\n%s\n%s", code, calls.Load()-before, out, errs)
	}
	code, out, _ = runCmd(t, "search", "--embed-model", "fake-embed", "sourdough yeast")
	if code != 0 || !strings.Contains(out, "Sourdough") {
		t.Fatalf("search after the repair: %d\n%s", code, out)
	}
}
