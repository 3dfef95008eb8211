//go:build !unix

package atomicfile

import "os"

func writeFile(path string, data []byte, perm os.FileMode) error {
	return writeByHand(path, data, perm)
}
