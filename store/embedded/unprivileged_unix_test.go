//go:build unix

package embedded

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// runUnprivileged runs test name of this binary again as user nobody, with
// env, and fails if it fails. dir (and the folders above it) are made
// reachable for nobody. Without a nobody user the test is skipped.
func runUnprivileged(t *testing.T, name, env, dir string) {
	t.Helper()
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
	// The binary where nobody can run it, and the test's folders reachable.
	bin := filepath.Join(t.TempDir(), "test.bin")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(bin), dir} {
		for p := filepath.Dir(d); p != filepath.Dir(p); p = filepath.Dir(p) {
			if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
				os.Chmod(p, fi.Mode().Perm()|0o005)
			}
		}
		if d != dir {
			os.Chmod(d, 0o755)
		}
	}
	cmd := exec.Command(bin, "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env, "HOME=/")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("as nobody, %s did not run:\n%s", name, out)
	}
}
