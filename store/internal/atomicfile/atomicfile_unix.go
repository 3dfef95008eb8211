//go:build unix

package atomicfile

import (
	"os"

	"github.com/google/renameio/v2"
)

func writeFile(path string, data []byte, perm os.FileMode) error {
	return renameio.WriteFile(path, data, perm)
}
