//go:build !unix

package embedded

import "os"

func mapAnon(int, bool) ([]byte, bool) { return nil, false }

func unmapAnon([]byte) {}

func mapFile(*os.File, int64) []byte { return nil }
