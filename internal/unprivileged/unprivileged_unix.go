//go:build unix

package unprivileged

import (
	"io"
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
	if err := copyFile(bin, exe); err != nil {
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

// copyFile copies the file at src to a new executable file dst, in the
// kernel (copy_file_range): a race-detector test binary is tens of MB,
// which a copy through the process's memory would have the race detector
// shadow.
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
