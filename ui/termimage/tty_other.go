//go:build !unix

package termimage

import (
	"errors"
	"os"
)

func openDevTTY() (*os.File, error) {
	return nil, errors.New("no terminal device to ask here")
}

func setNonblock(*os.File, bool) error { return errors.ErrUnsupported }

func wouldBlock(error) bool { return false }
