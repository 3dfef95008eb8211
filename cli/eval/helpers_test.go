package eval_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ibid-dev/ibid/cli"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
)

// The tests run ibid eval as its users do: through the command line
// (cli.Run), whose flags and settings the command shares.

// exitError is the exit status of a command that failed.
const exitError = 1

// runCmd runs ibid with args on the process's environment and returns
// its exit status, stdout and stderr.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{In: new(bytes.Buffer), Out: &out, Err: &errb, Getenv: os.Getenv})
	return code, out.String(), errb.String()
}

// cmdEnv gives the test data and cache folders of its own (the PDF
// engine's compiled code shared), with none of the settings that would
// change ibid eval's defaults taken from the environment.
func cmdEnv(t *testing.T) {
	t.Helper()
	tmp := t.TempDir()
	cache := filepath.Join(tmp, "cache")
	for name, value := range map[string]string{
		"XDG_DATA_HOME": filepath.Join(tmp, "data"), "XDG_CACHE_HOME": cache,
		"IBID_LIBRARY": "", "IBID_EMBED_MODEL": "", "IBID_STORE": "", "IBID_RERANK_MODEL": "", "IBID_ENRICH_MODEL": "",
	} {
		t.Setenv(name, value)
	}
	pdftest.ShareEngineCache(cache)
}
