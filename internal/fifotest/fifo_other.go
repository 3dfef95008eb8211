//go:build !unix

package fifotest

// Make makes a named pipe at path; here it cannot (ErrUnsupported).
func Make(path string) error { return ErrUnsupported }
