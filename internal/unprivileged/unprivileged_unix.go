//go:build unix

package unprivileged

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func rerun(t *testing.T, env, dirs []string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("running as root and there is no user nobody to run as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	// The binary where nobody can run it, and the folders reachable.
	bin := filepath.Join(t.TempDir(), "test.bin")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range append([]string{filepath.Dir(bin)}, dirs...) {
		for p := d; p != filepath.Dir(p); p = filepath.Dir(p) {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() && fi.Mode().Perm()&0o005 != 0o005 {
				os.Chmod(p, fi.Mode().Perm()|0o005)
			}
		}
	}
	var pat []string
	for _, part := range strings.Split(t.Name(), "/") {
		pat = append(pat, "^"+regexp.QuoteMeta(part)+"$")
	}
	cmd := exec.Command(bin, "-test.run="+strings.Join(pat, "/"), "-test.count=1", "-test.v")
	cmd.Env = append(append(os.Environ(), env...), "HOME=/", "TMPDIR=/tmp")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("as nobody, %s did not run:\n%s", t.Name(), out)
	}
	return true
}
