// Package unprivileged lets a test that checks what an ordinary user
// cannot do (read a file without permission, write into a read-only
// folder) run for real when the tests run as root, as CI does: the test
// runs again, in a copy of the test binary, as user nobody.
package unprivileged

import "testing"

// Rerun runs the calling test again as user nobody when the process is
// root, and reports whether it did: the caller then returns, its checks
// having run in the child (a failure there fails t). dirs are made
// reachable for nobody (the folders above them opened for traversal);
// env is added to the child's environment. Without a user nobody, or off
// Unix, the test is skipped. As any other user Rerun returns false and
// the test goes on.
func Rerun(t *testing.T, env []string, dirs ...string) bool {
	t.Helper()
	return rerun(t, env, dirs)
}
