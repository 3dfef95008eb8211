//go:build !unix

package embedded

func mapAnon(int) ([]byte, bool) { return nil, false }

func unmapAnon([]byte) {}
