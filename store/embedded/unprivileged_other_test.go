//go:build !unix

package embedded

import "testing"

func runUnprivileged(t *testing.T, name, env, dir string) {
	t.Skip("running tests as another user is only done on Unix")
}
